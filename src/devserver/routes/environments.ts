/**
 * Environment routes (facts A18, B5) under `/api/v1/workspace/{id}/environments` (also
 * `/api/v1/projects/{id}/environments`): create (duplicate slug 400, position shifting), get,
 * update (slug rename, move), delete; plus `GET /api/v1/workspace/environments/{envId}`.
 */
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import { badRequest, notFound } from '../domain/errors.ts';
import { slugSchema } from '../domain/validation.ts';
import type { RequestContext, RouteDef } from '../http/types.ts';
import { requireProjectPermission } from '../domain/permissions.ts';
import type { EnvironmentRecord, ProjectRecord } from '../state/types.ts';
import { actorOf, environmentsOf, findProject } from './common.ts';
import {
  insertEnvironment,
  moveEnvironment,
  removeEnvironment,
  renameEnvironment,
} from './environment-ops.ts';
import { environmentShape } from './project-shapes.ts';

const createSchema = z.object({
  name: z.string().trim(),
  slug: slugSchema({ max: 64 }),
  position: z.int().min(1).optional(),
});

const updateSchema = z.object({
  name: z.string().trim().optional(),
  slug: slugSchema({ max: 64 }).optional(),
  position: z.int().min(1).optional(),
});

function projectFor(app: DevApp, ctx: RequestContext, action: string): ProjectRecord {
  const actor = actorOf(ctx);
  const project = findProject(app, actor, ctx.params.projectId ?? '');
  requireProjectPermission(app, actor, project.id, { action, subject: 'environments' });
  return project;
}

function findEnv(app: DevApp, projectId: string, id: string): EnvironmentRecord {
  const env = app.state.environments[id];
  if (!env || env.projectId !== projectId)
    throw notFound(`Environment with id '${id}' in project with ID '${projectId}' not found`);
  return env;
}

function slugTaken(app: DevApp, projectId: string, slug: string, exceptId?: string): boolean {
  return environmentsOf(app, projectId).some((e) => e.slug === slug && e.id !== exceptId);
}

function envelope(message: string, project: ProjectRecord, env: EnvironmentRecord): unknown {
  return { message, workspace: project.id, environment: environmentShape(env) };
}

function createEnv(app: DevApp, ctx: RequestContext): unknown {
  const body = createSchema.parse(ctx.body ?? {});
  const project = projectFor(app, ctx, 'create');
  if (slugTaken(app, project.id, body.slug))
    throw badRequest('Environment with slug already exists', 'CreateEnvironment');
  const env = insertEnvironment(app, project.id, body);
  return envelope('Successfully created new environment', project, env);
}

function updateEnv(app: DevApp, ctx: RequestContext): unknown {
  const body = updateSchema.parse(ctx.body ?? {});
  const project = projectFor(app, ctx, 'edit');
  const env = findEnv(app, project.id, ctx.params.envId ?? '');
  if (body.slug !== undefined && slugTaken(app, project.id, body.slug, env.id)) {
    throw badRequest('Environment with slug already exists', 'UpdateEnvironment');
  }
  if (body.slug !== undefined && body.slug !== env.slug) renameEnvironment(app, env, body.slug);
  if (body.name !== undefined) env.name = body.name;
  if (body.position !== undefined && body.position !== env.position) moveEnvironment(app, env, body.position);
  env.updatedAt = app.iso();
  app.changed();
  return envelope('Successfully updated environment', project, env);
}

function deleteEnv(app: DevApp, ctx: RequestContext): unknown {
  const project = projectFor(app, ctx, 'delete');
  const env = findEnv(app, project.id, ctx.params.envId ?? '');
  removeEnvironment(app, env);
  return envelope('Successfully deleted environment', project, env);
}

function getEnvById(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const id = ctx.params.envId ?? '';
  const env = app.state.environments[id];
  const project = env ? app.state.projects[env.projectId] : undefined;
  if (!env || !project || project.orgId !== actor.orgId)
    throw notFound(`Environment with id '${id}' not found`);
  requireProjectPermission(app, actor, project.id, { action: 'read', subject: 'environments' });
  return { environment: environmentShape(env) };
}

/** The environment routes. */
export function environmentRoutes(app: DevApp): RouteDef[] {
  const routes: RouteDef[] = [
    {
      method: 'GET',
      path: '/api/v1/workspace/environments/:envId',
      bucket: 'read',
      handler: (ctx) => getEnvById(app, ctx),
    },
  ];
  for (const prefix of [
    '/api/v1/workspace/:projectId/environments',
    '/api/v1/projects/:projectId/environments',
  ]) {
    routes.push(
      { method: 'POST', path: prefix, bucket: 'write', handler: (ctx) => createEnv(app, ctx) },
      {
        method: 'GET',
        path: `${prefix}/:envId`,
        bucket: 'read',
        handler: (ctx) => ({
          environment: environmentShape(
            findEnv(app, projectFor(app, ctx, 'read').id, ctx.params.envId ?? ''),
          ),
        }),
      },
      { method: 'PATCH', path: `${prefix}/:envId`, bucket: 'write', handler: (ctx) => updateEnv(app, ctx) },
      { method: 'DELETE', path: `${prefix}/:envId`, bucket: 'write', handler: (ctx) => deleteEnv(app, ctx) },
    );
  }
  return routes;
}
