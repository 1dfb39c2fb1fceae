/**
 * Response shapes of project roles, predefined and custom. Predefined roles get a stable id
 * derived from project and slug, so repeated reads agree.
 */
import { createHash } from 'node:crypto';
import { returnedRules } from '../domain/permission-response.ts';
import { projectRoleRules } from '../domain/predefined-roles.ts';
import type { RoleRecord } from '../state/types.ts';

const NAMES: Readonly<Record<string, string>> = {
  admin: 'Admin',
  member: 'Developer',
  viewer: 'Viewer',
  'no-access': 'No Access',
};

const DESCRIPTIONS: Readonly<Record<string, string>> = {
  admin: 'Full administrative access over a project',
  member: 'Limited read/write role in a project',
  viewer: 'Only read role in a project',
  'no-access': 'No access to any resources in the project',
};

/** Display name of a predefined project role. */
export function predefinedRoleName(slug: string): string {
  return NAMES[slug] ?? slug;
}

/** A UUID-shaped id derived from `seed` (stable across reads and restarts). */
export function stableId(seed: string): string {
  const h = createHash('sha1').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A role as the service returns it; its rules always carry `inverted` (see `returnedRules`). */
export function roleShape(r: RoleRecord, withPermissions = true): Record<string, unknown> {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    slug: r.slug,
    ...(withPermissions ? { permissions: returnedRules(r.permissions) } : {}),
    projectId: r.projectId,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/** A predefined role of `projectId` in the role shape, or undefined for other slugs. */
export function predefinedRoleShape(
  projectId: string,
  slug: string,
  withPermissions = true,
): Record<string, unknown> | undefined {
  const rules = projectRoleRules(slug);
  if (!rules) return undefined;
  const epoch = new Date(0).toISOString();
  return roleShape(
    {
      id: stableId(`${projectId}:${slug}`),
      name: predefinedRoleName(slug),
      description: DESCRIPTIONS[slug] ?? null,
      slug,
      permissions: rules,
      projectId,
      createdAt: epoch,
      updatedAt: epoch,
    },
    withPermissions,
  );
}
