/**
 * ProjectTemplate spec ↔ service template: the create and update requests, what drifted, and
 * the status. Pure functions.
 *
 * - roles are matched by slug (order irrelevant); each role's permissions are compared
 *   semantically. Unset `roles` means no custom roles;
 * - environments are matched by slug with name and position. Unset `environments` means the
 *   template has no environment list (`null`: projects get the service's default set);
 * - `description` unset leaves the service's description alone;
 * - `type` cannot be changed by the service (the CRD makes it immutable): a template adopted with
 *   another type is reported, not "fixed" in a loop.
 */
import type { ProjectTemplateSpec, ProjectTemplateStatus } from '../../api/v1alpha1/index.ts';
import type {
  CreateProjectTemplateInput,
  ProjectTemplate,
  UpdateProjectTemplateInput,
} from '../../client/index.ts';
import { samePermissions } from '../permissions/compare.ts';
import { rulesRequest } from '../permissions/request.ts';

/** The adapter's part of ProjectTemplate status. */
export type ProjectTemplateStatusFields = Pick<ProjectTemplateStatus, 'organizationId'>;

type Roles = ProjectTemplate['roles'];
type Environments = NonNullable<ProjectTemplate['environments']>;

function rolesRequest(spec: ProjectTemplateSpec): NonNullable<CreateProjectTemplateInput['roles']> {
  return (spec.roles ?? []).map((role) => ({
    name: role.name,
    slug: role.slug,
    permissions: rulesRequest(role.permissions),
  }));
}

function environmentsRequest(spec: ProjectTemplateSpec): Environments | null {
  return (
    spec.environments?.map((env) => ({ name: env.name, slug: env.slug, position: env.position })) ?? null
  );
}

/** `POST /api/v1/project-templates` body. */
export function createRequest(spec: ProjectTemplateSpec): CreateProjectTemplateInput {
  return {
    name: spec.name,
    type: spec.type,
    ...(spec.description === undefined ? {} : { description: spec.description }),
    roles: rolesRequest(spec),
    environments: environmentsRequest(spec),
  };
}

/** The PATCH body: every managed field but `type`, which the service does not change. */
export function updateRequest(spec: ProjectTemplateSpec): UpdateProjectTemplateInput {
  const { type: _type, ...rest } = createRequest(spec);
  return rest;
}

function sameRoles(spec: ProjectTemplateSpec, actual: Roles): boolean {
  const desired = spec.roles ?? [];
  if (desired.length !== actual.length) return false;
  const bySlug = new Map(actual.map((role) => [role.slug, role]));
  return desired.every((role) => {
    const found = bySlug.get(role.slug);
    return (
      found !== undefined && found.name === role.name && samePermissions(role.permissions, found.permissions)
    );
  });
}

function sameEnvironments(spec: ProjectTemplateSpec, actual: Environments | null | undefined): boolean {
  const desired = spec.environments;
  if (!desired || !actual) return !desired && !actual;
  if (desired.length !== actual.length) return false;
  const bySlug = new Map(actual.map((env) => [env.slug, env]));
  return desired.every((env) => {
    const found = bySlug.get(env.slug);
    return found !== undefined && found.name === env.name && found.position === env.position;
  });
}

/** Names of the fields where the template differs from the spec (empty when none). */
export function driftedFields(spec: ProjectTemplateSpec, template: ProjectTemplate): string[] {
  const fields: string[] = [];
  if (template.name !== spec.name) fields.push('name');
  if (template.type !== spec.type) fields.push('type');
  if (spec.description !== undefined && (template.description ?? '') !== spec.description)
    fields.push('description');
  if (!sameRoles(spec, template.roles)) fields.push('roles');
  if (!sameEnvironments(spec, template.environments)) fields.push('environments');
  return fields;
}

/** Status from the template as the service returned it. */
export function statusOf(template: ProjectTemplate): ProjectTemplateStatusFields {
  return template.orgId ? { organizationId: template.orgId } : {};
}
