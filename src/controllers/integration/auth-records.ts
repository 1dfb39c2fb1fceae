/**
 * Integration-auth records: storing credentials, applying them to an integration's own record,
 * and removing a record nothing uses any more.
 *
 * The service's `POST /api/v1/integration-auth/access-token` always creates a new record, and an
 * integration cannot be moved to another record (deleting its record deletes the integration).
 * So a create stores credentials in a new record for the new integration, while changed
 * credentials of an existing (e.g. adopted) integration go into its own record in place with
 * `PATCH /api/v1/integration-auth/{id}` (docs/service-facts.md, "Client compatibility").
 */
import type { IntegrationSpec } from '../../api/v1alpha1/index.ts';
import { type Integration, isNotFound, type ServiceClient } from '../../client/index.ts';
import { authRequest, type Credentials } from './credentials.ts';

/** Where the service stored credentials, and whether the record is new. */
export interface StoredCredentials {
  readonly id: string;
  readonly created: boolean;
}

/** `POST /api/v1/integration-auth/access-token`, noting whether the record already existed. */
export async function storeCredentials(
  client: ServiceClient,
  spec: IntegrationSpec,
  target: { projectId: string; credentials: Credentials },
  signal: AbortSignal,
): Promise<StoredCredentials> {
  const api = client.integrations.auth;
  const before = new Set((await api.list(target.projectId, { signal })).map((a) => a.id));
  const stored = await api.createWithAccessToken(authRequest(spec, target.projectId, target.credentials), {
    signal,
  });
  return { id: stored.id, created: !before.has(stored.id) };
}

/** Deletes an auth record; one already gone is fine. */
export async function deleteAuthRecord(
  client: ServiceClient,
  id: string,
  signal: AbortSignal,
): Promise<void> {
  try {
    await client.integrations.auth.delete(id, { signal });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/**
 * Writes the credentials into `integration`'s own auth record, in place; returns true once they
 * are there (a failure throws). The record keeps its id, so the integration keeps using it.
 */
export async function applyCredentials(
  client: ServiceClient,
  spec: IntegrationSpec,
  target: { projectId: string; credentials: Credentials; integration: Integration },
  signal: AbortSignal,
): Promise<boolean> {
  const {
    workspaceId: _project,
    integration: _type,
    ...fields
  } = authRequest(spec, target.projectId, target.credentials);
  const updated = await client.integrations.auth.update(target.integration.integrationAuthId, fields, {
    signal,
  });
  return updated.id === target.integration.integrationAuthId;
}

/** After an integration is deleted: removes its auth record when no integration uses it any more. */
export async function removeUnusedAuth(
  client: ServiceClient,
  integrationAuthId: string,
  signal: AbortSignal,
): Promise<void> {
  let projectId: string;
  try {
    projectId = (await client.integrations.auth.get(integrationAuthId, { signal })).projectId;
  } catch (error) {
    if (isNotFound(error)) return;
    throw error;
  }
  const users = await client.integrations.list(projectId, { signal });
  if (users.some((i) => i.integrationAuthId === integrationAuthId)) return;
  await deleteAuthRecord(client, integrationAuthId, signal);
}
