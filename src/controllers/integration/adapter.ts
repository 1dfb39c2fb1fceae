/**
 * Integration adapter: a native integration and the credentials of its auth record.
 *
 * - observe: `GET /api/v1/integration/{id}`, or the project's integrations list by the natural
 *   key (integration, environment, secretPath, app) when no id is recorded (adoption);
 * - create: credentials, then the integration (see `create.ts`: the service answers 403 now);
 * - update: the differing settings by PATCH; credentials sent again when their keyed hash differs
 *   from the one in status (the service never returns them), see `auth-records.ts`;
 * - delete: `DELETE /api/v1/integration/{id}` (the synced secrets in the external store are kept),
 *   then its auth record when no other integration uses it.
 */
import type { IntegrationSpec } from '../../api/v1alpha1/index.ts';
import { type Integration, isNotFound, type ServiceClient } from '../../client/index.ts';
import type {
  ExternalClient,
  ExternalContext,
  ManagedAdapter,
  ManagedObject,
} from '../../managed/external-client.ts';
import { naturalKeyMatch } from '../../managed/external-client.ts';
import { TerminalError } from '../../runtime/errors.ts';
import { ANNOTATION_EXTERNAL_ID } from '../../runtime/object-meta.ts';
import type { OperatorServices } from '../kind-controller.ts';
import { applyCredentials, removeUnusedAuth } from './auth-records.ts';
import { createIntegration, standingRefusal } from './create.ts';
import { credentialsHash } from './credentials.ts';
import {
  matchesNaturalKey,
  settingsPlan,
  statusOf,
  type AuthState,
  type IntegrationStatusFields,
} from './mapping.ts';
import { resolved, resolveIntegrationRefs, type IntegrationRefs } from './references.ts';
import { commonReasons } from '../../runtime/common-reasons.ts';
import { integrationReasons } from './reasons.ts';

type Client = ExternalClient<IntegrationSpec, IntegrationRefs, IntegrationStatusFields>;
type Obj = ManagedObject<IntegrationSpec>;

/** Ready reason when the service did not store the credentials in the integration's record. */
export const CREDENTIALS_NOT_APPLIED = integrationReasons.names.CredentialsNotApplied;
/** Ready reason when the service reports the integration's last sync as failed. */
export const SYNC_FAILED = integrationReasons.names.SyncFailed;

async function getById(client: ServiceClient, id: string, signal: AbortSignal) {
  try {
    return await client.integrations.get(id, { signal });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

async function byNaturalKey(client: ServiceClient, obj: Obj, projectId: string, signal: AbortSignal) {
  const all = await client.integrations.list(projectId, { signal });
  return all.filter((integration) => matchesNaturalKey(obj.spec, integration));
}

async function find(client: ServiceClient, obj: Obj, ctx: ExternalContext<IntegrationRefs>) {
  if (ctx.externalId) return getById(client, ctx.externalId, ctx.signal);
  const refused = standingRefusal(obj);
  if (refused) throw refused;
  const matches = await byNaturalKey(client, obj, resolved(ctx.references).projectId, ctx.signal);
  if (matches.length > 1) {
    throw new TerminalError(
      integrationReasons.names.AmbiguousNaturalKey,
      `cannot adopt integration: ${matches.length} integrations of the project match integration, environment, ` +
        `secretPath and app; set the ${ANNOTATION_EXTERNAL_ID} annotation to the id of the one to manage`,
    );
  }
  return matches[0];
}

function recorded(obj: Obj): IntegrationStatusFields {
  return obj.status ?? {};
}

function recordedAuth(obj: Obj): AuthState {
  const { authHash, credentialsApplied } = recorded(obj);
  return {
    ...(authHash === undefined ? {} : { authHash }),
    ...(credentialsApplied === undefined ? {} : { credentialsApplied }),
  };
}

/** Whether the credentials were last sent with these values, for the integration's current record. */
function credentialsCurrent(obj: Obj, hash: string, integration: Integration): boolean {
  const status = recorded(obj);
  return status.authHash === hash && status.integrationAuthId === integration.integrationAuthId;
}

function checkType(obj: Obj, integration: Integration): void {
  if (integration.integration === obj.spec.integration) return;
  throw new TerminalError(
    commonReasons.names.SpecMismatch,
    `cannot manage integration ${integration.id}: it is a ${integration.integration} integration, the spec ` +
      `says ${obj.spec.integration}; set ${ANNOTATION_EXTERNAL_ID} to an integration of that type`,
  );
}

function integrationClient(client: ServiceClient): Client {
  return {
    async observe(obj, ctx) {
      const integration = await find(client, obj, ctx);
      if (!integration) return { exists: false };
      checkType(obj, integration);
      const { diff } = settingsPlan(obj.spec, integration);
      const hash = credentialsHash(obj, resolved(ctx.references).credentials);
      if (!credentialsCurrent(obj, hash, integration)) diff.push('credentials');
      return {
        exists: true,
        upToDate: diff.length === 0,
        externalId: integration.id,
        status: statusOf(integration, recordedAuth(obj)),
        ...(diff.length > 0 ? { diff: diff.join(', ') } : {}),
      };
    },
    async create(obj, ctx) {
      const target = resolved(ctx.references);
      const integration = await createIntegration(client, obj.spec, target, ctx.signal);
      const auth = { authHash: credentialsHash(obj, target.credentials), credentialsApplied: true };
      return { externalId: integration.id, status: statusOf(integration, auth) };
    },
    async update(obj, ctx) {
      const target = resolved(ctx.references);
      let integration = await client.integrations.get(ctx.externalId, { signal: ctx.signal });
      const plan = settingsPlan(obj.spec, integration);
      if (plan.diff.length > 0)
        integration = await client.integrations.update(integration.id, plan.body, { signal: ctx.signal });
      const hash = credentialsHash(obj, target.credentials);
      if (credentialsCurrent(obj, hash, integration))
        return { status: statusOf(integration, recordedAuth(obj)) };
      const applied = await applyCredentials(client, obj.spec, { ...target, integration }, ctx.signal);
      if (!applied) {
        ctx.log.warn(
          { externalId: integration.id, integrationAuthId: integration.integrationAuthId },
          'the service stored the credentials in a separate auth record, which was removed again',
        );
      }
      return { status: statusOf(integration, { authHash: hash, credentialsApplied: applied }) };
    },
    async delete(_obj, ctx) {
      let deleted: Integration;
      try {
        const query = { shouldDeleteIntegrationSecrets: false };
        deleted = await client.integrations.delete(ctx.externalId, query, { signal: ctx.signal });
      } catch (error) {
        if (isNotFound(error)) return;
        throw error;
      }
      await removeUnusedAuth(client, deleted.integrationAuthId, ctx.signal);
    },
    async findByNaturalKey(obj, ctx) {
      const matches = await byNaturalKey(client, obj, resolved(ctx.references).projectId, ctx.signal);
      return matches.map(naturalKeyMatch);
    },
    readyCheck(_obj, status) {
      if (status?.credentialsApplied === false) {
        return {
          reason: CREDENTIALS_NOT_APPLIED,
          message:
            `the service stored the credentials in a new auth record instead of record ${status.integrationAuthId ?? ''} ` +
            'that this integration uses (an integration cannot move to another record); the new record was removed. ' +
            'Update the credentials in the service, or re-create the integration there and adopt it',
        };
      }
      if (status?.isActive === true && status.isSynced === false) {
        return {
          reason: SYNC_FAILED,
          message: `the service reports that the last sync failed: ${status.syncMessage ?? 'no message'}`,
        };
      }
      return undefined;
    },
  };
}

/** The Integration adapter on the operator's services. */
export function integrationAdapter(
  services: OperatorServices,
): ManagedAdapter<IntegrationSpec, IntegrationRefs, IntegrationStatusFields> {
  return {
    resolveReferences: (obj, context) => resolveIntegrationRefs(services, obj, context),
    async connect(obj) {
      const connection = await services.connectionFor(obj);
      return integrationClient(connection.client);
    },
  };
}
