/**
 * Project (workspace) routes (facts A7, B4): create (`POST /api/v2/workspace`, also
 * `POST /api/v1/projects`), get/update/delete by id (`/api/v1/workspace/{id}`, also
 * `/api/v1/projects/{id}`), the slug-addressed v2 variants that answer the bare project, and
 * the list of the caller's projects.
 */
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import { badRequest } from '../domain/errors.ts';
import { ProjectPatchSlugSchema } from '../domain/validation.ts';
import type { RequestContext, RouteDef } from '../http/types.ts';
import { findMembership, isOrgAdmin, projectRules, requireProjectPermission } from '../domain/permissions.ts';
import type { ProjectRecord } from '../state/types.ts';
import { actorOf, findProject, findProjectBySlug } from './common.ts';
import { createProject, deleteProjectCascade } from './project-create.ts';
import { projectShape } from './project-shapes.ts';

const updateSchema = z.object({
  name: z.string().trim().max(64).optional(),
  description: z.string().trim().max(256).optional(),
  autoCapitalization: z.boolean().optional(),
  hasDeleteProtection: z.boolean().optional(),
  slug: ProjectPatchSlugSchema.optional(),
  secretSharing: z.boolean().optional(),
  showSnapshotsLegacy: z.boolean().optional(),
  defaultProduct: z.string().optional(),
  secretDetectionIgnoreValues: z.array(z.string()).optional(),
});

function readable(app: DevApp, ctx: RequestContext, project: ProjectRecord): ProjectRecord {
  // Any membership (or org admin) may read the project itself.
  projectRules(app, actorOf(ctx), project.id);
  return project;
}

function updateProject(app: DevApp, ctx: RequestContext, project: ProjectRecord): ProjectRecord {
  const actor = actorOf(ctx);
  const body = updateSchema.parse(ctx.body ?? {});
  requireProjectPermission(app, actor, project.id, { action: 'edit', subject: 'settings' });
  if (body.slug !== undefined && body.slug !== project.slug) {
    const taken = Object.values(app.state.projects).some(
      (p) => p.orgId === project.orgId && p.slug === body.slug,
    );
    if (taken) throw badRequest(`Project with slug '${body.slug}' already exists`);
    project.slug = body.slug;
  }
  const { slug: _slug, ...rest } = body;
  for (const [key, value] of Object.entries(rest)) {
    if (value !== undefined) (project as unknown as Record<string, unknown>)[key] = value;
  }
  project.updatedAt = app.iso();
  app.changed();
  return project;
}

function deleteProject(app: DevApp, ctx: RequestContext, project: ProjectRecord): Record<string, unknown> {
  requireProjectPermission(app, actorOf(ctx), project.id, { action: 'delete', subject: 'workspace' });
  if (project.hasDeleteProtection) {
    throw badRequest('Project has delete protection enabled. Disable delete protection to delete it.');
  }
  const shape = projectShape(app, project);
  deleteProjectCascade(app, project.id);
  return shape;
}

function listProjects(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const all = Object.values(app.state.projects).filter((p) => p.orgId === actor.orgId);
  const visible = isOrgAdmin(app, actor)
    ? all
    : all.filter((p) => findMembership(app, p.id, actor.identityId));
  return { workspaces: visible.map((p) => projectShape(app, p)) };
}

/** The project routes. */
export function projectRoutes(app: DevApp): RouteDef[] {
  const byId = (ctx: RequestContext) => findProject(app, actorOf(ctx), ctx.params.projectId ?? '');
  const bySlug = (ctx: RequestContext) => findProjectBySlug(app, actorOf(ctx), ctx.params.slug ?? '');
  const create = (ctx: RequestContext) => ({ project: projectShape(app, createProject(app, ctx)) });
  const routes: RouteDef[] = [
    { method: 'POST', path: '/api/v2/workspace', bucket: 'write', handler: create },
    { method: 'POST', path: '/api/v1/projects', bucket: 'write', handler: create },
    { method: 'GET', path: '/api/v1/workspace', bucket: 'read', handler: (ctx) => listProjects(app, ctx) },
    {
      method: 'GET',
      path: '/api/v2/workspace/:slug',
      bucket: 'read',
      handler: (ctx) => projectShape(app, readable(app, ctx, bySlug(ctx))),
    },
    {
      method: 'PATCH',
      path: '/api/v2/workspace/:slug',
      bucket: 'write',
      handler: (ctx) => projectShape(app, updateProject(app, ctx, bySlug(ctx))),
    },
    {
      method: 'DELETE',
      path: '/api/v2/workspace/:slug',
      bucket: 'write',
      handler: (ctx) => deleteProject(app, ctx, bySlug(ctx)),
    },
  ];
  for (const [prefix, envelope] of [
    ['/api/v1/workspace/:projectId', 'workspace'],
    ['/api/v1/projects/:projectId', 'project'],
  ] as const) {
    routes.push(
      {
        method: 'GET',
        path: prefix,
        bucket: 'read',
        handler: (ctx) => ({ [envelope]: projectShape(app, readable(app, ctx, byId(ctx))) }),
      },
      {
        method: 'PATCH',
        path: prefix,
        bucket: 'write',
        handler: (ctx) => ({ [envelope]: projectShape(app, updateProject(app, ctx, byId(ctx))) }),
      },
      {
        method: 'DELETE',
        path: prefix,
        bucket: 'write',
        handler: (ctx) => ({ [envelope]: deleteProject(app, ctx, byId(ctx)) }),
      },
    );
  }
  return routes;
}
