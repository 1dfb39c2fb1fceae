/**
 * Integration-auth records: storing credentials, applying them to an integration's own record,
 * and removing a record nothing uses any more.
 *
 * The service stores credentials per project and integration type: the real one updates the
 * project's existing record of that type in place (same id), while a service that creates a new
 * record each time leaves the integration on its old one (an integration cannot be moved to
 * another record, and deleting its record deletes the integration). So Coffer never deletes the
 * record an integration uses; a record the call newly created and nothing uses is removed again.
 */
import type { IntegrationSpec } from '../../api/v1alpha1/index.ts';
import type { Integration, ServiceClient } from '../../client/index.ts';
import { serviceStatus } from '../../managed/service-errors.ts';
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
    if (serviceStatus(error) !== 404) throw error;
  }
}

/**
 * Sends the credentials and reports whether they reached `integration`'s own auth record. When
 * the service put them into another, newly created record, that record is deleted again.
 */
export async function applyCredentials(
  client: ServiceClient,
  spec: IntegrationSpec,
  target: { projectId: string; credentials: Credentials; integration: Integration },
  signal: AbortSignal,
): Promise<boolean> {
  const stored = await storeCredentials(client, spec, target, signal);
  if (stored.id === target.integration.integrationAuthId) return true;
  if (stored.created) await deleteAuthRecord(client, stored.id, signal);
  return false;
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
    if (serviceStatus(error) === 404) return;
    throw error;
  }
  const users = await client.integrations.list(projectId, { signal });
  if (users.some((i) => i.integrationAuthId === integrationAuthId)) return;
  await deleteAuthRecord(client, integrationAuthId, signal);
}
