/**
 * Finding a project role. The service has no get-by-id, only get-by-slug: with a recorded id the
 * last recorded slug and the spec's slug are tried (one call when the slug did not change), and a
 * role renamed behind our back is found by id in the role list. Without an id, the spec's slug is
 * the natural key.
 */
import type { ProjectRoleSpec } from '../../api/v1alpha1/index.ts';
import { type Role, type ServiceClient, unlessNotFound } from '../../client/index.ts';
import type { ManagedObject } from '../../managed/external-client.ts';

/** The project's role with `slug`, or undefined when there is none. */
export function findBySlug(
  client: ServiceClient,
  projectId: string,
  slug: string,
  signal: AbortSignal,
): Promise<Role | undefined> {
  return unlessNotFound(client.roles.getBySlug(projectId, slug, { signal }));
}

/** The slug last recorded in status, if any. */
export function recordedSlug(obj: ManagedObject<ProjectRoleSpec>): string | undefined {
  const slug = obj.status?.slug;
  return typeof slug === 'string' ? slug : undefined;
}

/** Where to look for a role by id. */
export interface RoleScope {
  readonly projectId: string;
  readonly id: string;
  readonly signal: AbortSignal;
}

/** The role with `scope.id`: by the known slugs first, else through the list (see the module comment). */
export async function findById(
  client: ServiceClient,
  obj: ManagedObject<ProjectRoleSpec>,
  { projectId, id, signal }: RoleScope,
): Promise<Role | undefined> {
  for (const slug of new Set([recordedSlug(obj) ?? obj.spec.slug, obj.spec.slug])) {
    const role = await findBySlug(client, projectId, slug, signal);
    if (role?.id === id) return role;
  }
  const listed = (await client.roles.list(projectId, { signal })).find((r) => r.id === id);
  return listed ? findBySlug(client, projectId, listed.slug, signal) : undefined;
}
