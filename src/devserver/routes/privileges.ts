/**
 * Additional privilege routes, v2 by id (facts A2, A5, A9, B11) and v1 by identity and project
 * slug (A3, A19, B11). Granting and changing privileges needs `edit` on the project's
 * `identity` subject for that identity; creating and updating also need `grant-privileges` on
 * `identity` (403 `PermissionBoundaryError`, see `domain/permission-grant.ts`); reading needs
 * `read`.
 */
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import { notFound, unauthorized } from '../domain/errors.ts';
import { GRANT_OPERATION } from '../domain/permission-grant.ts';
import {
  backfillV1Rules,
  PermissionRuleV1Schema,
  privilegePermissionToV1,
  PrivilegePermissionSchema,
  ProjectPermissionRuleSchema,
} from '../domain/permission-schema.ts';
import {
  PrivilegeTypeSchema,
  slugSchema,
  TemporaryAccessStartTimeSchema,
  TemporaryModeSchema,
  TemporaryRangeSchema,
} from '../domain/validation.ts';
import type { RequestContext, RouteDef } from '../http/types.ts';
import { requireGrantPrivileges, requireProjectPermission } from '../domain/permissions.ts';
import type { PrivilegeRecord, ProjectRecord } from '../state/types.ts';
import { actorOf, findIdentity, findProject, findProjectBySlug } from './common.ts';
import {
  applyPrivilegeUpdate,
  createPrivilege,
  generatedSlug,
  privilegeShapeV1,
  privilegeShapeV2,
  requireMembership,
} from './privilege-ops.ts';

const privilegeSlug = slugSchema({ max: 60 });

const createV2 = z.object({
  identityId: z.string().min(1),
  projectId: z.string().min(1),
  slug: privilegeSlug.optional(),
  permissions: z.array(ProjectPermissionRuleSchema),
  type: PrivilegeTypeSchema,
});
const updateV2 = z.object({
  slug: privilegeSlug,
  permissions: z.array(ProjectPermissionRuleSchema).optional(),
  type: PrivilegeTypeSchema,
});
const scopeQuery = z.object({ identityId: z.string().min(1), projectSlug: z.string().min(1) });
const v1Target = scopeQuery.extend({ privilegeSlug: z.string().min(1) });
const updateV1 = v1Target.extend({
  privilegeDetails: z
    .object({
      slug: privilegeSlug,
      permissions: z.array(PermissionRuleV1Schema),
      privilegePermission: PrivilegePermissionSchema,
      isTemporary: z.boolean(),
      temporaryMode: TemporaryModeSchema,
      temporaryRange: TemporaryRangeSchema,
      temporaryAccessStartTime: TemporaryAccessStartTimeSchema,
    })
    .partial(),
});

function guard(
  app: DevApp,
  ctx: RequestContext,
  { project, identityId }: { project: ProjectRecord; identityId: string },
  action: 'read' | 'edit',
): void {
  requireProjectPermission(app, actorOf(ctx), project.id, {
    action,
    subject: 'identity',
    context: { identityId },
  });
}

/** The privilege `id` (404 when unknown), checked for membership and permission. */
function byId(app: DevApp, ctx: RequestContext, action: 'read' | 'edit'): PrivilegeRecord {
  const id = z.string().min(1).parse(ctx.params.id);
  const p = app.state.privileges[id];
  const project = p ? app.state.projects[p.projectId] : undefined;
  if (!p || !project || project.orgId !== actorOf(ctx).orgId)
    throw notFound(`Failed to find privilege with ID ${id}`);
  requireMembership(app, p.projectId, p.identityId);
  guard(app, ctx, { project, identityId: p.identityId }, action);
  return p;
}

/** The privilege named by slug, identity and project slug (v1 and v2 slug lookups). */
function bySlug(
  app: DevApp,
  ctx: RequestContext,
  q: z.infer<typeof v1Target>,
  action: 'read' | 'edit',
): PrivilegeRecord {
  const project = findProjectBySlug(app, actorOf(ctx), q.projectSlug);
  guard(app, ctx, { project, identityId: q.identityId }, action);
  requireMembership(app, project.id, q.identityId);
  const p = Object.values(app.state.privileges).find(
    (x) => x.projectId === project.id && x.identityId === q.identityId && x.slug === q.privilegeSlug,
  );
  if (!p) throw notFound(`Additional privilege with slug ${q.privilegeSlug} not found`);
  return p;
}

function create(app: DevApp, ctx: RequestContext): unknown {
  const body = createV2.parse(ctx.body ?? {});
  const project = findProject(app, actorOf(ctx), body.projectId);
  guard(app, ctx, { project, identityId: body.identityId }, 'edit');
  requireGrantPrivileges(app, actorOf(ctx), project.id, GRANT_OPERATION.privilege);
  findIdentity(app, actorOf(ctx), body.identityId);
  const p = createPrivilege(app, {
    projectId: project.id,
    identityId: body.identityId,
    slug: body.slug ?? generatedSlug(),
    permissions: body.permissions,
    window: body.type,
  });
  return { privilege: privilegeShapeV2(p) };
}

function updateById(app: DevApp, ctx: RequestContext): unknown {
  const body = updateV2.parse(ctx.body ?? {});
  const p = byId(app, ctx, 'edit');
  requireGrantPrivileges(app, actorOf(ctx), p.projectId, GRANT_OPERATION.privilege);
  applyPrivilegeUpdate(app, p, { slug: body.slug, permissions: body.permissions, window: body.type });
  return { privilege: privilegeShapeV2(p) };
}

function remove(app: DevApp, p: PrivilegeRecord): PrivilegeRecord {
  delete app.state.privileges[p.id];
  app.changed();
  return p;
}

function listV2(app: DevApp, ctx: RequestContext): unknown {
  const q = z.object({ identityId: z.string().min(1), projectId: z.string().min(1) }).parse(ctx.query);
  const project = findProject(app, actorOf(ctx), q.projectId);
  guard(app, ctx, { project, identityId: q.identityId }, 'read');
  requireMembership(app, project.id, q.identityId);
  const list = Object.values(app.state.privileges).filter(
    (p) => p.projectId === project.id && p.identityId === q.identityId,
  );
  return { privileges: list.map((p) => privilegeShapeV2(p, false)) };
}

function listV1(app: DevApp, ctx: RequestContext): unknown {
  const q = scopeQuery.parse(ctx.query);
  const project = findProjectBySlug(app, actorOf(ctx), q.projectSlug);
  guard(app, ctx, { project, identityId: q.identityId }, 'read');
  requireMembership(app, project.id, q.identityId);
  const list = Object.values(app.state.privileges).filter(
    (p) => p.projectId === project.id && p.identityId === q.identityId,
  );
  return { privileges: list.map(privilegeShapeV1) };
}

function updateBySlug(app: DevApp, ctx: RequestContext): unknown {
  const body = updateV1.parse(ctx.body ?? {});
  const details = body.privilegeDetails;
  if (!details.permissions && !details.privilegePermission) {
    throw unauthorized('Permission or privilegePermission must be provided');
  }
  const p = bySlug(app, ctx, body, 'edit');
  requireGrantPrivileges(app, actorOf(ctx), p.projectId, GRANT_OPERATION.privilege);
  const v1Rules = details.permissions ?? privilegePermissionToV1(details.privilegePermission!);
  const window = {
    isTemporary: details.isTemporary ?? p.isTemporary,
    temporaryMode: details.temporaryMode ?? p.temporaryMode ?? undefined,
    temporaryRange: details.temporaryRange ?? p.temporaryRange ?? undefined,
    temporaryAccessStartTime: details.temporaryAccessStartTime ?? p.temporaryAccessStartTime ?? undefined,
  };
  applyPrivilegeUpdate(app, p, { slug: details.slug, permissions: backfillV1Rules(v1Rules), window });
  return { privilege: privilegeShapeV1(p) };
}

/** The v1 and v2 privilege routes. */
export function privilegeRoutes(app: DevApp): RouteDef[] {
  const v2 = '/api/v2/identity-project-additional-privilege';
  const v1 = '/api/v1/additional-privilege/identity';
  return [
    { method: 'POST', path: v2, bucket: 'write', handler: (ctx) => create(app, ctx) },
    { method: 'GET', path: v2, bucket: 'read', handler: (ctx) => listV2(app, ctx) },
    {
      method: 'GET',
      path: `${v2}/slug/:privilegeSlug`,
      bucket: 'read',
      handler: (ctx) => ({
        privilege: privilegeShapeV2(
          bySlug(app, ctx, v1Target.parse({ ...ctx.query, ...ctx.params }), 'read'),
        ),
      }),
    },
    {
      method: 'GET',
      path: `${v2}/:id`,
      bucket: 'read',
      handler: (ctx) => ({ privilege: privilegeShapeV2(byId(app, ctx, 'read')) }),
    },
    { method: 'PATCH', path: `${v2}/:id`, bucket: 'write', handler: (ctx) => updateById(app, ctx) },
    {
      method: 'DELETE',
      path: `${v2}/:id`,
      bucket: 'write',
      handler: (ctx) => ({ privilege: privilegeShapeV2(remove(app, byId(app, ctx, 'edit'))) }),
    },
    { method: 'GET', path: v1, bucket: 'read', handler: (ctx) => listV1(app, ctx) },
    {
      method: 'GET',
      path: `${v1}/:privilegeSlug`,
      bucket: 'read',
      handler: (ctx) => ({
        privilege: privilegeShapeV1(
          bySlug(app, ctx, v1Target.parse({ ...ctx.query, ...ctx.params }), 'read'),
        ),
      }),
    },
    { method: 'PATCH', path: v1, bucket: 'write', handler: (ctx) => updateBySlug(app, ctx) },
    {
      method: 'DELETE',
      path: v1,
      bucket: 'write',
      handler: (ctx) => ({
        privilege: privilegeShapeV1(remove(app, bySlug(app, ctx, v1Target.parse(ctx.body ?? {}), 'edit'))),
      }),
    },
  ];
}
