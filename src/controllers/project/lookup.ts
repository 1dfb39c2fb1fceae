/**
 * Finding a project by its slug (the natural key) for adoption and crash recovery.
 *
 * The service answers `GET /api/v2/workspace/{slug}` with the bare project (`projects.getBySlug`).
 */
import type { Project, ServiceClient } from '../../client/index.ts';
import { serviceStatus } from '../../managed/service-errors.ts';

/** The project with `slug`, or undefined when there is none. */
export async function findProjectBySlug(
  client: ServiceClient,
  slug: string,
  signal: AbortSignal,
): Promise<Project | undefined> {
  try {
    return await client.projects.getBySlug(slug, { signal });
  } catch (error) {
    if (serviceStatus(error) === 404) return undefined;
    throw error;
  }
}
