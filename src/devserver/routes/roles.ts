/**
 * Project role routes (facts A16, B10) under `/api/v2/workspace/{projectId}/roles`: create
 * (a duplicate slug is 404, a quirk of the service), get by slug (predefined roles readable;
 * an undefined reserved slug 400; unknown 404), update, delete (400 while a membership uses the
 * role), and list (predefined first, without permissions).
 */
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import { badRequest, notFound } from '../domain/errors.ts';
import { invalidTemplateExpressions, type PermissionRule } from '../domain/permission-rules.ts';
import { ProjectPermissionRuleSchema } from '../domain/permission-schema.ts';
import { PREDEFINED_PROJECT_ROLES, RESERVED_PROJECT_ROLE_SLUGS } from '../domain/predefined-roles.ts';
import { slugSchema } from '../domain/validation.ts';
import type { RequestContext, RouteDef } from '../http/types.ts';
import { requireProjectPermission } from '../domain/permissions.ts';
import type { ProjectRecord, RoleRecord } from '../state/types.ts';
import { actorOf, findProject } from './common.ts';
import { predefinedRoleShape, roleShape } from './role-shapes.ts';

const customSlug = slugSchema().refine(
  (s) => !RESERVED_PROJECT_ROLE_SLUGS.includes(s),
  'Cannot use reserved role slug',
);

const createSchema = z.object({
  slug: customSlug,
  name: z.string().trim().min(1),
  description: z.string().nullish(),
  permissions: z.array(ProjectPermissionRuleSchema),
});

const updateSchema = z.object({
  slug: customSlug.optional(),
  name: z.string().trim().min(1).optional(),
  description: z.string().nullish(),
  permissions: z.array(ProjectPermissionRuleSchema).optional(),
});

/** Throws 400 when rules use template expressions other than `identity.*`. */
export function checkTemplates(rules: readonly PermissionRule[]): void {
  const invalid = invalidTemplateExpressions(rules);
  if (invalid.length > 0) throw badRequest(`Invalid permission template expression: ${invalid.join(', ')}`);
}

function projectFor(app: DevApp, ctx: RequestContext, action: string): ProjectRecord {
  const actor = actorOf(ctx);
  const project = findProject(app, actor, ctx.params.projectId ?? '');
  requireProjectPermission(app, actor, project.id, { action, subject: 'role' });
  return project;
}

function rolesOf(app: DevApp, projectId: string): RoleRecord[] {
  return Object.values(app.state.roles).filter((r) => r.projectId === projectId);
}

function createRole(app: DevApp, ctx: RequestContext): unknown {
  const body = createSchema.parse(ctx.body ?? {});
  const project = projectFor(app, ctx, 'create');
  if (rolesOf(app, project.id).some((r) => r.slug === body.slug))
    throw notFound(`Role with slug ${body.slug} exists`);
  checkTemplates(body.permissions);
  const now = app.iso();
  const role: RoleRecord = {
    id: app.newId(),
    projectId: project.id,
    name: body.name,
    slug: body.slug,
    description: body.description ?? null,
    permissions: body.permissions,
    createdAt: now,
    updatedAt: now,
  };
  app.state.roles[role.id] = role;
  app.changed();
  return { role: roleShape(role) };
}

function getBySlug(app: DevApp, ctx: RequestContext): unknown {
  const project = projectFor(app, ctx, 'read');
  const slug = ctx.params.roleSlug ?? '';
  const predefined = predefinedRoleShape(project.id, slug);
  if (predefined) return { role: predefined };
  if (RESERVED_PROJECT_ROLE_SLUGS.includes(slug)) throw badRequest(`Invalid predefined role slug ${slug}`);
  const role = rolesOf(app, project.id).find((r) => r.slug === slug);
  if (!role) throw notFound(`Role with slug ${slug} not found`);
  return { role: roleShape(role) };
}

function findRole(app: DevApp, project: ProjectRecord, id: string): RoleRecord {
  const role = app.state.roles[id];
  if (!role || role.projectId !== project.id) throw notFound(`Role with ID ${id} not found`);
  return role;
}

function updateRole(app: DevApp, ctx: RequestContext): unknown {
  const body = updateSchema.parse(ctx.body ?? {});
  const project = projectFor(app, ctx, 'edit');
  const role = findRole(app, project, ctx.params.roleId ?? '');
  if (
    body.slug !== undefined &&
    rolesOf(app, project.id).some((r) => r.slug === body.slug && r.id !== role.id)
  ) {
    throw badRequest(`Role with slug ${body.slug} already exists`);
  }
  if (body.permissions) checkTemplates(body.permissions);
  if (body.slug !== undefined) role.slug = body.slug;
  if (body.name !== undefined) role.name = body.name;
  if (body.description !== undefined) role.description = body.description;
  if (body.permissions !== undefined) role.permissions = body.permissions;
  role.updatedAt = app.iso();
  app.changed();
  return { role: roleShape(role) };
}

function deleteRole(app: DevApp, ctx: RequestContext): unknown {
  const project = projectFor(app, ctx, 'delete');
  return removeRole(app, findRole(app, project, ctx.params.roleId ?? ''));
}

/** Deletes a custom role (the caller checked `delete` on `role`); 400 while a membership uses it. */
export function removeRole(app: DevApp, role: RoleRecord): unknown {
  const users = Object.values(app.state.memberships).filter((m) =>
    m.roles.some((r) => r.customRoleId === role.id),
  ).length;
  if (users > 0) {
    throw badRequest(
      `Role is assigned to ${users} identity membership(s). Reassign them before deleting the role.`,
    );
  }
  delete app.state.roles[role.id];
  app.changed();
  return { role: roleShape(role) };
}

function listRoles(app: DevApp, ctx: RequestContext): unknown {
  const project = projectFor(app, ctx, 'read');
  const predefined = PREDEFINED_PROJECT_ROLES.map((slug) => predefinedRoleShape(project.id, slug, false));
  return { roles: [...predefined, ...rolesOf(app, project.id).map((r) => roleShape(r, false))] };
}

/** The project role routes. */
export function roleRoutes(app: DevApp): RouteDef[] {
  const base = '/api/v2/workspace/:projectId/roles';
  return [
    { method: 'POST', path: base, bucket: 'write', handler: (ctx) => createRole(app, ctx) },
    { method: 'GET', path: base, bucket: 'read', handler: (ctx) => listRoles(app, ctx) },
    { method: 'GET', path: `${base}/slug/:roleSlug`, bucket: 'read', handler: (ctx) => getBySlug(app, ctx) },
    { method: 'PATCH', path: `${base}/:roleId`, bucket: 'write', handler: (ctx) => updateRole(app, ctx) },
    { method: 'DELETE', path: `${base}/:roleId`, bucket: 'write', handler: (ctx) => deleteRole(app, ctx) },
  ];
}
