/**
 * Project routes of the current `/api/v1/projects` router that real clients call (server/routes/
 * v1/project-router.ts): the caller's projects (`GET /api/v1/projects`, `{projects}`), a project
 * by slug (`GET /api/v1/projects/slug/{slug}`, the bare project), an environment by slug, and the
 * audit-log retention setting (`PUT …/audit-logs-retention`, by id under `/projects` and by slug
 * under the deprecated `/workspace`), which project reads return as `auditLogsRetentionDays`.
 */
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import type { RequestContext, RouteDef } from '../http/types.ts';
import { findMembership, isOrgAdmin, projectRules, requireProjectPermission } from '../domain/permissions.ts';
import type { ProjectRecord } from '../state/types.ts';
import { actorOf, findEnvironmentBySlug, findProject, findProjectBySlug } from './common.ts';
import { environmentShape, projectShape } from './project-shapes.ts';

const listQuery = z.object({ type: z.string().optional() });
const retentionBody = z.object({ auditLogsRetentionDays: z.number().min(0) });

function listProjects(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const { type } = listQuery.parse(ctx.query);
  const admin = isOrgAdmin(app, actor);
  const projects = Object.values(app.state.projects).filter(
    (p) =>
      p.orgId === actor.orgId &&
      (type === undefined || p.type === type) &&
      (admin || findMembership(app, p.id, actor.identityId) !== undefined),
  );
  return { projects: projects.map((p) => projectShape(app, p)) };
}

function projectBySlug(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const project = findProjectBySlug(app, actor, ctx.params.slug ?? '');
  // Any membership (or org admin) may read the project itself; others get 403.
  projectRules(app, actor, project.id);
  return projectShape(app, project);
}

function environmentBySlug(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const project = findProject(app, actor, ctx.params.projectId ?? '');
  requireProjectPermission(app, actor, project.id, { action: 'read', subject: 'environments' });
  return { environment: environmentShape(findEnvironmentBySlug(app, project.id, ctx.params.slug ?? '')) };
}

/** The project without `_id` and environments (the service's sanitized project). */
function sanitized(app: DevApp, project: ProjectRecord): Record<string, unknown> {
  const { _id: _legacyId, environments: _environments, ...rest } = projectShape(app, project);
  return rest;
}

function setRetention(app: DevApp, ctx: RequestContext, project: ProjectRecord): unknown {
  const body = retentionBody.parse(ctx.body ?? {});
  requireProjectPermission(app, actorOf(ctx), project.id, { action: 'edit', subject: 'settings' });
  project.auditLogsRetentionDays = body.auditLogsRetentionDays;
  project.updatedAt = app.iso();
  app.changed();
  return {
    message: "Successfully updated project's audit logs retention period",
    project: sanitized(app, project),
  };
}

/** The project lookup and retention routes. */
export function projectLookupRoutes(app: DevApp): RouteDef[] {
  return [
    { method: 'GET', path: '/api/v1/projects', bucket: 'read', handler: (ctx) => listProjects(app, ctx) },
    {
      method: 'GET',
      path: '/api/v1/projects/slug/:slug',
      bucket: 'read',
      handler: (ctx) => projectBySlug(app, ctx),
    },
    {
      method: 'GET',
      path: '/api/v1/projects/:projectId/environments/slug/:slug',
      bucket: 'read',
      handler: (ctx) => environmentBySlug(app, ctx),
    },
    {
      method: 'PUT',
      path: '/api/v1/projects/:projectId/audit-logs-retention',
      bucket: 'write',
      handler: (ctx) => setRetention(app, ctx, findProject(app, actorOf(ctx), ctx.params.projectId ?? '')),
    },
    {
      method: 'PUT',
      path: '/api/v1/workspace/:projectSlug/audit-logs-retention',
      bucket: 'write',
      handler: (ctx) =>
        setRetention(app, ctx, findProjectBySlug(app, actorOf(ctx), ctx.params.projectSlug ?? '')),
    },
  ];
}
