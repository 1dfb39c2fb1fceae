/**
 * Lease routes under `/api/v1/dynamic-secrets/leases` (docs/service-facts.md, "Dynamic secrets"):
 * create (`{lease, dynamicSecret, data}`, the credentials only here), get (`{lease}` with its
 * dynamic secret), renew and revoke (`isForced` deletes the lease even when the provider fails).
 * All need `lease` on `dynamic-secrets` for the request's environment and path.
 */
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import { notFound } from '../domain/errors.ts';
import { issueLease, renewLease, revokeLease } from '../dynamic-secrets/leases.ts';
import { optionalTtlSchema, pathSchema } from '../dynamic-secrets/schemas.ts';
import type { RequestContext, RouteDef } from '../http/types.ts';
import type { DynamicSecretLeaseRecord, DynamicSecretRecord } from '../state/types.ts';
import {
  dynamicSecretShape,
  findDynamicSecret,
  folderIdOf,
  leaseShape,
  requireDynamicSecretPermission,
  resolveScope,
  type DynamicScope,
} from './dynamic-secret-scope.ts';

const scopeFields = {
  projectSlug: z.string().min(1),
  path: pathSchema,
  environmentSlug: z.string().min(1),
};

const createSchema = z.object({
  ...scopeFields,
  dynamicSecretName: z.string().min(1).toLowerCase(),
  ttl: optionalTtlSchema,
  config: z.unknown().optional(),
});
const renewSchema = z.object({ ...scopeFields, ttl: optionalTtlSchema });
const revokeSchema = z.object({ ...scopeFields, isForced: z.boolean().default(false) });
const getQuery = z.object(scopeFields);

const envFolderMessage = (scope: DynamicScope) =>
  `Folder with path '${scope.path}' in environment with slug '${scope.environment}' not found`;

async function createLease(app: DevApp, ctx: RequestContext): Promise<unknown> {
  const body = createSchema.parse(ctx.body ?? {});
  const scope = resolveScope(app, ctx, body);
  const folderId = folderIdOf(app, scope, envFolderMessage(scope));
  const name = body.dynamicSecretName;
  const ds = findDynamicSecret(app, folderId, name, `Dynamic secret with name '${name}' in folder with path '${scope.path}' not found`); // prettier-ignore
  requireDynamicSecretPermission(scope, 'lease');
  const identityName = app.state.identities[scope.actor.identityId]?.name ?? '';
  const { lease, data } = await issueLease(app, ds, { ttl: body.ttl, config: body.config, identityName });
  return { lease: leaseShape(lease), dynamicSecret: dynamicSecretShape(ds), data };
}

/**
 * The lease `leaseId` of a dynamic secret in the scope's folder and that dynamic secret; 404 for a
 * lease of another folder. Then `lease` is required.
 */
function findLease(
  app: DevApp,
  scope: DynamicScope,
  leaseId: string,
  folderMessage: string,
): { lease: DynamicSecretLeaseRecord; ds: DynamicSecretRecord } {
  const folderId = folderIdOf(app, scope, folderMessage);
  const lease = app.state.dynamicSecretLeases[leaseId];
  if (!lease) throw notFound(`Dynamic secret lease with ID '${leaseId}' not found`);
  const ds = app.state.dynamicSecrets[lease.dynamicSecretId];
  if (!ds || ds.folderId !== folderId) {
    throw notFound(`Dynamic secret with ID '${lease.dynamicSecretId}' not found`);
  }
  requireDynamicSecretPermission(scope, 'lease');
  return { lease, ds };
}

function leaseInFolder(app: DevApp, ctx: RequestContext, scope: DynamicScope) {
  const leaseId = ctx.params.leaseId ?? '';
  const lease = app.state.dynamicSecretLeases[leaseId];
  const folderId = folderIdOf(app, scope, envFolderMessage(scope));
  if (!lease || app.state.dynamicSecrets[lease.dynamicSecretId]?.folderId !== folderId) {
    throw notFound(`Dynamic secret lease with ID '${leaseId}' not found`);
  }
  return findLease(app, scope, leaseId, envFolderMessage(scope));
}

async function renew(app: DevApp, ctx: RequestContext): Promise<unknown> {
  const body = renewSchema.parse(ctx.body ?? {});
  const scope = resolveScope(app, ctx, body);
  const { lease, ds } = leaseInFolder(app, ctx, scope);
  return { lease: leaseShape(await renewLease(app, ds, lease, body.ttl)) };
}

async function revoke(app: DevApp, ctx: RequestContext): Promise<unknown> {
  const body = revokeSchema.parse(ctx.body ?? {});
  const scope = resolveScope(app, ctx, body);
  const { lease, ds } = leaseInFolder(app, ctx, scope);
  return { lease: leaseShape(await revokeLease(app, ds, lease, body.isForced)) };
}

function getLease(app: DevApp, ctx: RequestContext): unknown {
  const query = getQuery.parse(ctx.query);
  const scope = resolveScope(app, ctx, query);
  const folderMessage = `Folder with path '${scope.path}' not found`;
  const { lease, ds } = findLease(app, scope, ctx.params.leaseId ?? '', folderMessage);
  return { lease: { ...leaseShape(lease), dynamicSecret: dynamicSecretShape(ds) } };
}

/** The lease routes. */
export function dynamicSecretLeaseRoutes(app: DevApp): RouteDef[] {
  const base = '/api/v1/dynamic-secrets/leases';
  return [
    { method: 'POST', path: base, bucket: 'write', handler: (ctx) => createLease(app, ctx) },
    { method: 'GET', path: `${base}/:leaseId`, bucket: 'read', handler: (ctx) => getLease(app, ctx) },
    { method: 'DELETE', path: `${base}/:leaseId`, bucket: 'write', handler: (ctx) => revoke(app, ctx) },
    { method: 'POST', path: `${base}/:leaseId/renew`, bucket: 'write', handler: (ctx) => renew(app, ctx) },
  ];
}
