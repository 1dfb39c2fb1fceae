/**
 * Finding a project by its slug (the natural key) for adoption and crash recovery.
 *
 * The service answers `GET /api/v2/workspace/{slug}` with the bare project. The shared client
 * exposes it as `projects.getBySlug` where implemented; with a client that lacks it, no project
 * is found by slug (adoption then needs the `coffer.dev/external-id` annotation, and a create
 * interrupted by a crash ends in a 400 "slug already exists" that names the cause).
 */
import type { CallOptions, Project, ProjectsApi, ServiceClient } from '../../client/index.ts';
import { serviceStatus } from '../../managed/service-errors.ts';

/** The slug-addressed read, optional on `ProjectsApi`. */
interface SlugLookup {
  getBySlug?(slug: string, options?: CallOptions): Promise<Project>;
}

/** The project with `slug`, or undefined when there is none (or no way to ask). */
export async function findProjectBySlug(
  client: ServiceClient,
  slug: string,
  signal: AbortSignal,
): Promise<Project | undefined> {
  const projects: ProjectsApi & SlugLookup = client.projects;
  if (!projects.getBySlug) return undefined;
  try {
    return await projects.getBySlug(slug, { signal });
  } catch (error) {
    if (serviceStatus(error) === 404) return undefined;
    throw error;
  }
}
