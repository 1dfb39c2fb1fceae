// Project roles on `/api/v2/workspace/{projectId}/roles`: create, get by slug, update,
// delete, list.
import { z } from 'zod';
import type { CallOptions, HttpClient } from './http.ts';
import { optString, permissionRuleRequest, permissionRuleResponse, slug, timestamp } from './schemas.ts';
import { envelope, seg, validateRequest } from './validate.ts';

/** Slugs of the predefined roles (readable by slug, not creatable). */
export const PREDEFINED_ROLE_SLUGS = [
  'admin',
  'member',
  'custom',
  'viewer',
  'no-access',
  'ssh-host-bootstrapper',
  'cryptographic-operator',
] as const;

/** A project role; `permissions` is absent in the list. */
export const roleSchema = z.object({
  id: z.string().min(1),
  slug: z.string(),
  name: z.string(),
  description: optString,
  projectId: z.string().optional(),
  permissions: z.array(permissionRuleResponse).optional(),
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
});
export type Role = z.output<typeof roleSchema>;

/** Whether `value` is one of the {@link PREDEFINED_ROLE_SLUGS} (a custom role may not use it). */
export function isPredefinedRoleSlug(value: string): boolean {
  return (PREDEFINED_ROLE_SLUGS as readonly string[]).includes(value);
}

const customSlug = slug(64).refine(
  (v) => !isPredefinedRoleSlug(v),
  'role slug is reserved for a predefined role',
);
const createRequest = z.object({
  slug: customSlug,
  name: z.string().min(1),
  description: z.string().nullish(),
  permissions: z.array(permissionRuleRequest),
});
const updateRequest = createRequest.partial();
export type CreateRoleInput = z.input<typeof createRequest>;
export type UpdateRoleInput = z.input<typeof updateRequest>;

/** Roles of a project. */
export interface RolesApi {
  /** A duplicate slug is reported as 404 by the service (a quirk). */
  create(projectId: string, input: CreateRoleInput, options?: CallOptions): Promise<Role>;
  /** `GET …/roles/slug/{roleSlug}`; predefined slugs return the built-in role. */
  getBySlug(projectId: string, roleSlug: string, options?: CallOptions): Promise<Role>;
  update(projectId: string, roleId: string, input: UpdateRoleInput, options?: CallOptions): Promise<Role>;
  /** 400 while a membership still uses the role. */
  delete(projectId: string, roleId: string, options?: CallOptions): Promise<Role>;
  /** Predefined roles first; without permissions. */
  list(projectId: string, options?: CallOptions): Promise<Role[]>;
}

export function rolesApi(http: HttpClient): RolesApi {
  const base = (projectId: string, op: string): string =>
    `/api/v2/workspace/${seg(projectId, 'projectId', op)}/roles`;
  const one = (projectId: string, roleId: string, op: string): string =>
    `${base(projectId, op)}/${seg(roleId, 'roleId', op)}`;
  const single = envelope('role', roleSchema);
  return {
    create: async (projectId, input, options) => {
      const op = 'roles.create';
      const body = validateRequest(createRequest, input, op);
      return http.call({ operation: op, method: 'POST', path: base(projectId, op), body }, single, options);
    },
    getBySlug: async (projectId, roleSlug, options) => {
      const op = 'roles.getBySlug';
      const path = `${base(projectId, op)}/slug/${seg(roleSlug, 'roleSlug', op)}`;
      return http.call({ operation: op, method: 'GET', path }, single, options);
    },
    update: async (projectId, roleId, input, options) => {
      const op = 'roles.update';
      const body = validateRequest(updateRequest, input, op);
      return http.call(
        { operation: op, method: 'PATCH', path: one(projectId, roleId, op), body },
        single,
        options,
      );
    },
    delete: async (projectId, roleId, options) => {
      const op = 'roles.delete';
      return http.call(
        { operation: op, method: 'DELETE', path: one(projectId, roleId, op) },
        single,
        options,
      );
    },
    list: async (projectId, options) => {
      const op = 'roles.list';
      return http.call(
        { operation: op, method: 'GET', path: base(projectId, op) },
        envelope('roles', z.array(roleSchema)),
        options,
      );
    },
  };
}
