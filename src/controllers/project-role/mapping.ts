/**
 * ProjectRole spec ↔ service role: the create and update requests, what drifted, and the status.
 * Pure functions, so every rule is a table test.
 *
 * `description` unset means "leave the service's description alone" (as for Project), so an
 * adopted role keeps its text until the spec says otherwise. Permissions are compared
 * semantically (`../permissions/compare.ts`).
 */
import type { ProjectRoleSpec, ProjectRoleStatus } from '../../api/v1alpha1/index.ts';
import type { CreateRoleInput, Role, UpdateRoleInput } from '../../client/index.ts';
import { samePermissions } from '../permissions/compare.ts';
import { rulesRequest } from '../permissions/request.ts';

/** The adapter's part of ProjectRole status. */
export type ProjectRoleStatusFields = Pick<ProjectRoleStatus, 'slug' | 'projectId'>;

/** `POST /api/v2/workspace/{projectId}/roles` body. */
export function createRequest(spec: ProjectRoleSpec): CreateRoleInput {
  return {
    slug: spec.slug,
    name: spec.name,
    ...(spec.description === undefined ? {} : { description: spec.description }),
    permissions: rulesRequest(spec.permissions),
  };
}

/** Names of the fields where the role differs from the spec (empty when none). */
export function driftedFields(spec: ProjectRoleSpec, role: Role): string[] {
  const fields: string[] = [];
  if (role.slug !== spec.slug) fields.push('slug');
  if (role.name !== spec.name) fields.push('name');
  if (spec.description !== undefined && (role.description ?? '') !== spec.description)
    fields.push('description');
  if (!samePermissions(spec.permissions, role.permissions ?? [])) fields.push('permissions');
  return fields;
}

/** The PATCH body: every managed field, so one call converges whatever drifted. */
export function updateRequest(spec: ProjectRoleSpec): UpdateRoleInput {
  return createRequest(spec);
}

/** Status from the role as the service returned it. */
export function statusOf(role: Role, projectId: string): ProjectRoleStatusFields {
  return { slug: role.slug, projectId };
}
