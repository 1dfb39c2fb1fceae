/**
 * Identity routes (facts A6, B1): create, get (org-membership wrapper), update, delete (with
 * deletion protection), list by org, search, and the identity's project memberships.
 */
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import { badRequest, notFound } from '../domain/errors.ts';
import type { RequestContext, RouteDef } from '../http/types.ts';
import { isPredefinedOrgRole } from '../domain/predefined-roles.ts';
import { requireOrgPermission, requireSameOrg } from '../domain/permissions.ts';
import { deleteWhere } from '../state/store.ts';
import type { IdentityRecord } from '../state/types.ts';
import { actorOf, findIdentity } from './common.ts';
import { identityMembershipShape, identityShape } from './identity-shapes.ts';
import { membershipShape } from './membership-shapes.ts';

const metadataSchema = z.array(z.object({ key: z.string().trim().min(1), value: z.string().trim().min(1) }));

const createSchema = z.object({
  name: z.string().trim(),
  organizationId: z.string().trim(),
  role: z.string().trim().min(1).default('no-access'),
  hasDeleteProtection: z.boolean().default(false),
  metadata: metadataSchema.optional(),
});

const updateSchema = z.object({
  name: z.string().trim().optional(),
  role: z.string().trim().min(1).optional(),
  hasDeleteProtection: z.boolean().optional(),
  metadata: metadataSchema.optional(),
});

const searchSchema = z.object({
  limit: z.number().int().min(1).max(100).default(50),
  offset: z.number().int().min(0).default(0),
  orderBy: z.enum(['name', 'role']).default('name'),
  orderDirection: z.enum(['asc', 'desc']).default('asc'),
  search: z
    .object({
      name: z.union([z.string(), z.object({ $contains: z.string() })]).optional(),
      role: z.union([z.string(), z.object({ $in: z.array(z.string()) })]).optional(),
    })
    .optional(),
});

function checkRole(role: string): void {
  if (!isPredefinedOrgRole(role)) throw notFound(`Organization role with slug '${role}' not found`);
}

function withMetadata(app: DevApp, input: { key: string; value: string }[]): IdentityRecord['metadata'] {
  return input.map((m) => ({ id: app.newId(), key: m.key, value: m.value }));
}

/** Deletes an identity and everything hanging off it. */
export function deleteIdentityCascade(app: DevApp, identityId: string): void {
  const s = app.state;
  delete s.identities[identityId];
  const owned: Record<string, { identityId: string }>[] = [
    s.authMethods,
    s.accessTokens,
    s.clientSecrets,
    s.memberships,
    s.privileges,
  ];
  for (const coll of owned) deleteWhere(coll, (r) => r.identityId === identityId);
  app.changed();
}

function matchesSearch(identity: IdentityRecord, search: z.infer<typeof searchSchema>['search']): boolean {
  if (!search) return true;
  const name = typeof search.name === 'string' ? search.name : search.name?.$contains;
  if (name && !identity.name.toLowerCase().includes(name.toLowerCase())) return false;
  const roles = typeof search.role === 'string' ? [search.role] : search.role?.$in;
  return !roles || roles.includes(identity.role);
}

function orgIdentities(app: DevApp, orgId: string): IdentityRecord[] {
  return Object.values(app.state.identities).filter((i) => i.orgId === orgId);
}

function createIdentity(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const body = createSchema.parse(ctx.body);
  requireSameOrg(actor, body.organizationId);
  requireOrgPermission(app, actor, 'create', 'identity');
  checkRole(body.role);
  const now = app.iso();
  const identity: IdentityRecord = {
    id: app.newId(),
    name: body.name,
    orgId: body.organizationId,
    role: body.role,
    orgMembershipId: app.newId(),
    hasDeleteProtection: body.hasDeleteProtection,
    metadata: withMetadata(app, body.metadata ?? []),
    createdAt: now,
    updatedAt: now,
  };
  app.state.identities[identity.id] = identity;
  app.changed();
  return { identity: identityShape(app, identity) };
}

function getIdentity(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const identity = findIdentity(app, actor, ctx.params.identityId ?? '');
  requireOrgPermission(app, actor, 'read', 'identity');
  return { identity: identityMembershipShape(app, identity) };
}

function updateIdentity(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const body = updateSchema.parse(ctx.body ?? {});
  const identity = findIdentity(app, actor, ctx.params.identityId ?? '');
  requireOrgPermission(app, actor, 'edit', 'identity');
  if (body.role !== undefined) checkRole(body.role);
  if (body.name !== undefined) identity.name = body.name;
  if (body.role !== undefined) identity.role = body.role;
  if (body.hasDeleteProtection !== undefined) identity.hasDeleteProtection = body.hasDeleteProtection;
  if (body.metadata !== undefined) identity.metadata = withMetadata(app, body.metadata);
  identity.updatedAt = app.iso();
  app.changed();
  return { identity: identityShape(app, identity) };
}

function deleteIdentity(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const identity = findIdentity(app, actor, ctx.params.identityId ?? '');
  requireOrgPermission(app, actor, 'delete', 'identity');
  if (identity.hasDeleteProtection) {
    throw badRequest('Identity has delete protection enabled. Disable delete protection to delete it.');
  }
  const shape = identityShape(app, identity);
  deleteIdentityCascade(app, identity.id);
  return { identity: shape };
}

function listIdentities(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const { orgId } = z.object({ orgId: z.string().trim().min(1) }).parse(ctx.query);
  requireSameOrg(actor, orgId);
  requireOrgPermission(app, actor, 'read', 'identity');
  const identities = orgIdentities(app, orgId).map((i) => identityMembershipShape(app, i));
  return { identities, totalCount: identities.length };
}

function searchIdentities(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const body = searchSchema.parse(ctx.body ?? {});
  requireOrgPermission(app, actor, 'read', 'identity');
  const dir = body.orderDirection === 'asc' ? 1 : -1;
  const found = orgIdentities(app, actor.orgId)
    .filter((i) => matchesSearch(i, body.search))
    .sort((a, b) => dir * a[body.orderBy].localeCompare(b[body.orderBy]));
  const page = found.slice(body.offset, body.offset + body.limit);
  return { identities: page.map((i) => identityMembershipShape(app, i)), totalCount: found.length };
}

function listIdentityMemberships(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const identity = findIdentity(app, actor, ctx.params.identityId ?? '');
  requireOrgPermission(app, actor, 'read', 'identity');
  const memberships = Object.values(app.state.memberships).filter((m) => m.identityId === identity.id);
  return { identityMemberships: memberships.map((m) => membershipShape(app, m)) };
}

/** The identity routes. */
export function identityRoutes(app: DevApp): RouteDef[] {
  const base = '/api/v1/identities';
  return [
    { method: 'POST', path: base, bucket: 'write', handler: (ctx) => createIdentity(app, ctx) },
    { method: 'GET', path: base, bucket: 'read', handler: (ctx) => listIdentities(app, ctx) },
    {
      method: 'POST',
      path: `${base}/search`,
      bucket: 'read',
      write: false,
      handler: (ctx) => searchIdentities(app, ctx),
    },
    { method: 'GET', path: `${base}/:identityId`, bucket: 'read', handler: (ctx) => getIdentity(app, ctx) },
    {
      method: 'PATCH',
      path: `${base}/:identityId`,
      bucket: 'write',
      handler: (ctx) => updateIdentity(app, ctx),
    },
    {
      method: 'DELETE',
      path: `${base}/:identityId`,
      bucket: 'write',
      handler: (ctx) => deleteIdentity(app, ctx),
    },
    {
      method: 'GET',
      path: `${base}/:identityId/identity-memberships`,
      bucket: 'read',
      handler: (ctx) => listIdentityMemberships(app, ctx),
    },
  ];
}
