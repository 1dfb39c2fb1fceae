/**
 * Project-role routes real clients call beside the v2 ones in `roles.ts`: read a custom role by
 * id (`GET /api/v1/projects/roles/{roleId}`, ee/routes/v1/project-role-router.ts) and delete one
 * through the slug-addressed deprecated router (`DELETE /api/v1/workspace/{projectSlug}/roles/
 * {roleId}`, ee/routes/v1/deprecated-project-role-router.ts). Both check the caller's `role`
 * permission in the role's project.
 */
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import { notFound } from '../domain/errors.ts';
import type { RequestContext, RouteDef } from '../http/types.ts';
import { requireProjectPermission } from '../domain/permissions.ts';
import type { RoleRecord } from '../state/types.ts';
import { actorOf, findProjectBySlug } from './common.ts';
import { roleShape } from './role-shapes.ts';
import { removeRole } from './roles.ts';

function roleInOrg(app: DevApp, ctx: RequestContext): RoleRecord {
  const id = z.uuid().parse(ctx.params.roleId);
  const role = app.state.roles[id];
  if (!role || app.state.projects[role.projectId]?.orgId !== actorOf(ctx).orgId)
    throw notFound(`Role with ID ${id} not found`);
  return role;
}

function getRoleById(app: DevApp, ctx: RequestContext): unknown {
  const role = roleInOrg(app, ctx);
  requireProjectPermission(app, actorOf(ctx), role.projectId, { action: 'read', subject: 'role' });
  return { role: roleShape(role) };
}

function deleteRoleBySlug(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const project = findProjectBySlug(app, actor, ctx.params.projectSlug ?? '');
  requireProjectPermission(app, actor, project.id, { action: 'delete', subject: 'role' });
  const id = ctx.params.roleId ?? '';
  const role = app.state.roles[id];
  if (!role || role.projectId !== project.id) throw notFound(`Role with ID ${id} not found`);
  return removeRole(app, role);
}

/** The role routes addressed by role id alone or by project slug. */
export function roleLookupRoutes(app: DevApp): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/projects/roles/:roleId',
      bucket: 'read',
      handler: (ctx) => getRoleById(app, ctx),
    },
    {
      method: 'DELETE',
      path: '/api/v1/workspace/:projectSlug/roles/:roleId',
      bucket: 'write',
      handler: (ctx) => deleteRoleBySlug(app, ctx),
    },
  ];
}
