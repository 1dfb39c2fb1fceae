/**
 * Helpers shared by the route modules: the acting identity, and lookups that answer 404 with
 * the service's messages when a record is missing or outside the caller's organisation.
 */
import type { DevApp } from '../app.ts';
import { notFound, unauthorized } from '../domain/errors.ts';
import type { Actor, RequestContext } from '../http/types.ts';
import type { EnvironmentRecord, IdentityRecord, ProjectRecord } from '../state/types.ts';

/** The authenticated actor of `ctx` (every authenticated route has one). */
export function actorOf(ctx: RequestContext): Actor {
  if (!ctx.actor) throw unauthorized('Token missing');
  return ctx.actor;
}

/** The identity `id` in the actor's organisation, else 404. */
export function findIdentity(app: DevApp, actor: Actor, id: string): IdentityRecord {
  const identity = app.state.identities[id];
  if (!identity || identity.orgId !== actor.orgId) throw notFound(`Failed to find identity with ID ${id}`);
  return identity;
}

/** The project `id` in the actor's organisation, else 404. */
export function findProject(app: DevApp, actor: Actor, id: string): ProjectRecord {
  const project = app.state.projects[id];
  if (!project || project.orgId !== actor.orgId) throw notFound(`Project with ID '${id}' not found`);
  return project;
}

/** The project with `slug` in the actor's organisation, else 404. */
export function findProjectBySlug(app: DevApp, actor: Actor, slug: string): ProjectRecord {
  const project = Object.values(app.state.projects).find((p) => p.slug === slug && p.orgId === actor.orgId);
  if (!project) throw notFound(`Project with slug '${slug}' not found`);
  return project;
}

/** The project named by either `workspaceId`/`projectId` or `projectSlug`/`workspaceSlug`. */
export function findProjectByIdOrSlug(
  app: DevApp,
  actor: Actor,
  ref: { id?: string | undefined; slug?: string | undefined },
): ProjectRecord {
  if (ref.id) return findProject(app, actor, ref.id);
  if (ref.slug) return findProjectBySlug(app, actor, ref.slug);
  throw notFound('Project not found: either a project id or a project slug is required');
}

/** The environment with `slug` in `projectId`, else 404. */
export function findEnvironmentBySlug(app: DevApp, projectId: string, slug: string): EnvironmentRecord {
  const env = environmentsOf(app, projectId).find((e) => e.slug === slug);
  if (!env) throw notFound(`Environment with slug '${slug}' in project with ID ${projectId} not found`);
  return env;
}

/** The project's environments ordered by position. */
export function environmentsOf(app: DevApp, projectId: string): EnvironmentRecord[] {
  return Object.values(app.state.environments)
    .filter((e) => e.projectId === projectId)
    .sort((a, b) => a.position - b.position);
}

/** A single string from a query value (first of repeated keys). */
export function queryString(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
