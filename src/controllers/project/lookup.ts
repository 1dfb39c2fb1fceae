/**
 * Finding a project by its slug (the natural key) for adoption and crash recovery.
 *
 * The service answers `GET /api/v2/workspace/{slug}` with the bare project (`projects.getBySlug`).
 */
import { isNotFound, type Project, type ServiceClient } from '../../client/index.ts';

/** The project with `slug`, or undefined when there is none. */
export async function findProjectBySlug(
  client: ServiceClient,
  slug: string,
  signal: AbortSignal,
): Promise<Project | undefined> {
  try {
    return await client.projects.getBySlug(slug, { signal });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
