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
import type { ExternalClient, ManagedAdapter, ManagedObject } from '../../managed/external-client.ts';
import { naturalKeyMatch } from '../../managed/external-client.ts';
import type { OperatorServices } from '../kind-controller.ts';
import { applyCredentials, removeUnusedAuth } from './auth-records.ts';
import { createIntegration } from './create.ts';
import { credentialsHash } from './credentials.ts';
import { byNaturalKey, checkType, findIntegration } from './lookup.ts';
import { settingsPlan, statusOf, type AuthState, type IntegrationStatusFields } from './mapping.ts';
import { integrationNotReady } from './ready-check.ts';
import { resolved, resolveIntegrationRefs, type IntegrationRefs } from './references.ts';

type Client = ExternalClient<IntegrationSpec, IntegrationRefs, IntegrationStatusFields>;
type Obj = ManagedObject<IntegrationSpec>;

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

function integrationClient(client: ServiceClient): Client {
  return {
    async observe(obj, ctx) {
      const integration = await findIntegration(client, obj, ctx);
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
    readyCheck: (_obj, status) => integrationNotReady(status),
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
