/**
 * Identity project memberships (facts B4): `/api/v1/projects/{projectId}/memberships/identities`
 * and the deprecated `/api/v2/workspace/{projectId}/identity-memberships` copies. Create takes
 * `role` (default `no-access`) or `roles[]`; update replaces the role set; temporary roles get
 * `temporaryAccessEndTime = start + range` (the start kept with millisecond precision, as the
 * service stores it). Assigning any role but `no-access` needs `grant-privileges` on `identity`
 * (403 `PermissionBoundaryError`, see `domain/permission-grant.ts`).
 */
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import { temporaryEndTime } from '../domain/duration.ts';
import { badRequest, notFound } from '../domain/errors.ts';
import { GRANT_OPERATION, rolesNeedGrant, type GrantOperation } from '../domain/permission-grant.ts';
import { isPredefinedProjectRole } from '../domain/predefined-roles.ts';
import {
  TemporaryAccessStartTimeSchema,
  TemporaryModeSchema,
  TemporaryRangeSchema,
} from '../domain/validation.ts';
import type { RequestContext, RouteDef } from '../http/types.ts';
import { findMembership, requireGrantPrivileges, requireProjectPermission } from '../domain/permissions.ts';
import type { MembershipRoleRecord, ProjectMembershipRecord, ProjectRecord } from '../state/types.ts';
import { actorOf, findIdentity, findProject } from './common.ts';
import { membershipShape } from './membership-shapes.ts';
import { storedInstant } from './privilege-ops.ts';

const withPermanentDefault = (v: unknown) =>
  v && typeof v === 'object' && !('isTemporary' in v) ? { ...v, isTemporary: false } : v;

const roleEntry = z.preprocess(
  withPermanentDefault,
  z.discriminatedUnion('isTemporary', [
    z.object({ role: z.string().min(1), isTemporary: z.literal(false) }),
    z.object({
      role: z.string().min(1),
      isTemporary: z.literal(true),
      temporaryMode: TemporaryModeSchema,
      temporaryRange: TemporaryRangeSchema,
      temporaryAccessStartTime: TemporaryAccessStartTimeSchema,
    }),
  ]),
);
type RoleEntry = z.infer<typeof roleEntry>;

const createSchema = z.object({
  role: z.string().min(1).optional(),
  roles: z.array(roleEntry).min(1).optional(),
});
const updateSchema = z.object({ roles: z.array(roleEntry).min(1) });

function buildRoles(app: DevApp, projectId: string, entries: RoleEntry[]): MembershipRoleRecord[] {
  const now = app.iso();
  return entries.map((entry) => {
    let customRoleId: string | null = null;
    if (!isPredefinedProjectRole(entry.role)) {
      const custom = Object.values(app.state.roles).find(
        (r) => r.projectId === projectId && r.slug === entry.role,
      );
      if (!custom) throw notFound(`Role with slug '${entry.role}' not found in project`);
      customRoleId = custom.id;
    }
    const temporary = entry.isTemporary;
    return {
      id: app.newId(),
      role: customRoleId ? 'custom' : entry.role,
      customRoleId,
      isTemporary: temporary,
      temporaryMode: temporary ? entry.temporaryMode : null,
      temporaryRange: temporary ? entry.temporaryRange : null,
      temporaryAccessStartTime: temporary ? storedInstant(entry.temporaryAccessStartTime) : null,
      temporaryAccessEndTime: temporary
        ? temporaryEndTime(entry.temporaryAccessStartTime, entry.temporaryRange)
        : null,
      createdAt: now,
      updatedAt: now,
    };
  });
}

/**
 * The roles for `entries` (404 for an unknown custom role), after the grant check: assigning any
 * role but `no-access` needs `grant-privileges` on `identity`.
 */
function grantedRoles(
  app: DevApp,
  ctx: RequestContext,
  request: { projectId: string; entries: RoleEntry[]; operation: GrantOperation },
): MembershipRoleRecord[] {
  const { projectId, entries, operation } = request;
  const roles = buildRoles(app, projectId, entries);
  if (rolesNeedGrant(entries.map((e) => e.role)))
    requireGrantPrivileges(app, actorOf(ctx), projectId, operation);
  return roles;
}

function scope(
  app: DevApp,
  ctx: RequestContext,
  action: string,
): { project: ProjectRecord; identityId: string } {
  const actor = actorOf(ctx);
  const project = findProject(app, actor, ctx.params.projectId ?? '');
  const identityId = ctx.params.identityId ?? '';
  requireProjectPermission(app, actor, project.id, { action, subject: 'identity', context: { identityId } });
  return { project, identityId };
}

function existing(app: DevApp, project: ProjectRecord, identityId: string): ProjectMembershipRecord {
  const m = findMembership(app, project.id, identityId);
  if (!m)
    throw notFound(
      `Project membership for identity with ID '${identityId}' in project with ID '${project.id}' not found`,
    );
  return m;
}

function createMembership(app: DevApp, ctx: RequestContext): unknown {
  const body = createSchema.parse(ctx.body ?? {});
  const { project, identityId } = scope(app, ctx, 'create');
  const identity = findIdentity(app, actorOf(ctx), identityId);
  if (findMembership(app, project.id, identity.id)) {
    throw badRequest(`Identity with ID ${identity.id} already exists in project with ID ${project.id}`);
  }
  const entries: RoleEntry[] = body.roles ?? [{ role: body.role ?? 'no-access', isTemporary: false }];
  const roles = grantedRoles(app, ctx, {
    projectId: project.id,
    entries,
    operation: GRANT_OPERATION.createMembership,
  });
  const now = app.iso();
  const m: ProjectMembershipRecord = {
    id: app.newId(),
    projectId: project.id,
    identityId: identity.id,
    roles,
    createdAt: now,
    updatedAt: now,
  };
  app.state.memberships[m.id] = m;
  app.changed();
  return { identityMembership: membershipShape(app, m) };
}

function updateMembership(app: DevApp, ctx: RequestContext): ProjectMembershipRecord {
  const body = updateSchema.parse(ctx.body ?? {});
  const { project, identityId } = scope(app, ctx, 'edit');
  const m = existing(app, project, identityId);
  m.roles = grantedRoles(app, ctx, {
    projectId: project.id,
    entries: body.roles,
    operation: GRANT_OPERATION.updateMembership,
  });
  m.updatedAt = app.iso();
  app.changed();
  return m;
}

function deleteMembership(app: DevApp, ctx: RequestContext): unknown {
  const { project, identityId } = scope(app, ctx, 'delete');
  const m = existing(app, project, identityId);
  const shape = membershipShape(app, m);
  delete app.state.memberships[m.id];
  for (const p of Object.values(app.state.privileges)) {
    if (p.projectId === project.id && p.identityId === identityId) delete app.state.privileges[p.id];
  }
  app.changed();
  return { identityMembership: shape };
}

function listMemberships(app: DevApp, ctx: RequestContext, maxLimit: number, defaultLimit: number): unknown {
  const q = z
    .object({
      offset: z.coerce.number().int().min(0).default(0),
      limit: z.coerce.number().int().min(1).max(maxLimit).default(defaultLimit),
      identityName: z.string().optional(),
      roles: z.string().optional(),
    })
    .parse(ctx.query);
  const actor = actorOf(ctx);
  const project = findProject(app, actor, ctx.params.projectId ?? '');
  requireProjectPermission(app, actor, project.id, { action: 'read', subject: 'identity' });
  const roles = q.roles
    ?.split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  const all = Object.values(app.state.memberships)
    .filter((m) => m.projectId === project.id)
    .map((m) => membershipShape(app, m))
    .filter(
      (m) =>
        !q.identityName ||
        (m.identity as { name: string }).name.toLowerCase().includes(q.identityName.toLowerCase()),
    )
    .filter(
      (m) =>
        !roles ||
        (m.roles as { role: string; customRoleSlug: string | null }[]).some((r) =>
          roles.includes(r.customRoleSlug ?? r.role),
        ),
    );
  return { identityMemberships: all.slice(q.offset, q.offset + q.limit), totalCount: all.length };
}

/** The membership routes (current and deprecated paths). */
export function membershipRoutes(app: DevApp): RouteDef[] {
  const v1 = '/api/v1/projects/:projectId/memberships/identities';
  const v2 = '/api/v2/workspace/:projectId/identity-memberships';
  const getOne = (ctx: RequestContext) => {
    const { project, identityId } = scope(app, ctx, 'read');
    return { identityMembership: membershipShape(app, existing(app, project, identityId)) };
  };
  return [
    { method: 'GET', path: v1, bucket: 'read', handler: (ctx) => listMemberships(app, ctx, 1000, 20) },
    {
      method: 'POST',
      path: `${v1}/:identityId`,
      bucket: 'write',
      handler: (ctx) => createMembership(app, ctx),
    },
    { method: 'GET', path: `${v1}/:identityId`, bucket: 'read', handler: getOne },
    {
      method: 'PATCH',
      path: `${v1}/:identityId`,
      bucket: 'write',
      handler: (ctx) => ({ identityMembership: membershipShape(app, updateMembership(app, ctx)) }),
    },
    {
      method: 'DELETE',
      path: `${v1}/:identityId`,
      bucket: 'write',
      handler: (ctx) => deleteMembership(app, ctx),
    },
    { method: 'GET', path: v2, bucket: 'read', handler: (ctx) => listMemberships(app, ctx, 20000, 100) },
    {
      method: 'POST',
      path: `${v2}/:identityId`,
      bucket: 'write',
      handler: (ctx) => createMembership(app, ctx),
    },
    { method: 'GET', path: `${v2}/:identityId`, bucket: 'read', handler: getOne },
    {
      method: 'PATCH',
      path: `${v2}/:identityId`,
      bucket: 'write',
      handler: (ctx) => ({ roles: membershipShape(app, updateMembership(app, ctx)).roles }),
    },
    {
      method: 'DELETE',
      path: `${v2}/:identityId`,
      bucket: 'write',
      handler: (ctx) => deleteMembership(app, ctx),
    },
  ];
}
