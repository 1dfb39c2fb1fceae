// Additional privileges of an identity in a project: the v2 API (by privilege id) and the
// v1 API (by identity, project slug and privilege slug).
import { z } from 'zod';
import type { CallOptions, HttpClient } from './http.ts';
import {
  permissionRuleRequest,
  permissionRuleResponse,
  slug,
  temporaryAccessRequest,
  temporaryFields,
  temporaryRange,
  timestamp,
} from './schemas.ts';
import { envelope, seg, validateRequest } from './validate.ts';

/** A privilege; `permissions` is absent in the v2 list. */
export const privilegeSchema = z.object({
  id: z.string().min(1),
  slug: z.string(),
  projectMembershipId: z.string().optional(),
  ...temporaryFields,
  permissions: z.array(permissionRuleResponse).optional(),
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
});
export type Privilege = z.output<typeof privilegeSchema>;

const createRequest = z.object({
  identityId: z.string().min(1),
  projectId: z.string().min(1),
  slug: slug(60).optional(),
  permissions: z.array(permissionRuleRequest),
  type: temporaryAccessRequest,
});
export type CreatePrivilegeInput = z.input<typeof createRequest>;

const updateRequest = z.object({
  slug: slug(60),
  permissions: z.array(permissionRuleRequest).optional(),
  type: temporaryAccessRequest,
});
export type UpdatePrivilegeInput = z.input<typeof updateRequest>;

const bySlugQuery = z.object({ identityId: z.string().min(1), projectSlug: z.string().min(1) });
export type PrivilegeScopeBySlug = z.input<typeof bySlugQuery>;
const byIdQuery = z.object({ identityId: z.string().min(1), projectId: z.string().min(1) });
export type PrivilegeScopeById = z.input<typeof byIdQuery>;

const v1Rule = z.object({
  action: z.enum(['read', 'create', 'edit', 'delete']),
  subject: z.string().min(1),
  conditions: z
    .object({ environment: z.string().optional(), secretPath: z.object({ $glob: z.string() }).optional() })
    .optional(),
});
const v1Details = z
  .object({
    slug: slug(60),
    permissions: z.array(v1Rule),
    privilegePermission: z.object({
      actions: z.array(z.string().min(1)).min(1),
      subject: z.literal('secrets'),
      conditions: z.object({
        environment: z.string(),
        secretPath: z.object({ $glob: z.string() }).optional(),
      }),
    }),
    isTemporary: z.boolean(),
    temporaryMode: z.literal('relative'),
    temporaryRange,
    temporaryAccessStartTime: z.iso.datetime(),
  })
  .partial()
  // The service answers 401 (sic) when neither is given; catch it before sending.
  .refine((d) => d.permissions !== undefined || d.privilegePermission !== undefined, {
    message: 'Permission or privilegePermission must be provided',
  });
const v1UpdateRequest = bySlugQuery.extend({ privilegeSlug: z.string().min(1), privilegeDetails: v1Details });
export type UpdatePrivilegeV1Input = z.input<typeof v1UpdateRequest>;
const v1DeleteRequest = bySlugQuery.extend({ privilegeSlug: z.string().min(1) });
export type DeletePrivilegeV1Input = z.input<typeof v1DeleteRequest>;

/** The slug-addressed v1 API. */
export interface PrivilegesV1Api {
  /** `GET /api/v1/additional-privilege/identity?identityId=&projectSlug=`. */
  list(scope: PrivilegeScopeBySlug, options?: CallOptions): Promise<Privilege[]>;
  /** `PATCH /api/v1/additional-privilege/identity`. */
  update(input: UpdatePrivilegeV1Input, options?: CallOptions): Promise<Privilege>;
  /** `DELETE /api/v1/additional-privilege/identity`. */
  delete(input: DeletePrivilegeV1Input, options?: CallOptions): Promise<Privilege>;
}

/** The id-addressed v2 API, plus `v1`. */
export interface PrivilegesApi {
  create(input: CreatePrivilegeInput, options?: CallOptions): Promise<Privilege>;
  get(privilegeId: string, options?: CallOptions): Promise<Privilege>;
  /** `GET …/slug/{privilegeSlug}?identityId=&projectSlug=`: find a privilege after a lost create. */
  getBySlug(privilegeSlug: string, scope: PrivilegeScopeBySlug, options?: CallOptions): Promise<Privilege>;
  /** Without `permissions` on each item. */
  list(scope: PrivilegeScopeById, options?: CallOptions): Promise<Privilege[]>;
  /** PATCH: `slug` and `type` are required by the service. */
  update(privilegeId: string, input: UpdatePrivilegeInput, options?: CallOptions): Promise<Privilege>;
  delete(privilegeId: string, options?: CallOptions): Promise<Privilege>;
  v1: PrivilegesV1Api;
}

const V2 = '/api/v2/identity-project-additional-privilege';
const V1 = '/api/v1/additional-privilege/identity';

export function privilegesApi(http: HttpClient): PrivilegesApi {
  const one = (id: string, op: string): string => `${V2}/${seg(id, 'privilegeId', op)}`;
  const single = envelope('privilege', privilegeSchema);
  const many = envelope('privileges', z.array(privilegeSchema));
  return {
    create: async (input, options) => {
      const op = 'privileges.create';
      const body = validateRequest(createRequest, input, op);
      return http.call({ operation: op, method: 'POST', path: V2, body }, single, options);
    },
    get: async (privilegeId, options) => {
      const op = 'privileges.get';
      return http.call({ operation: op, method: 'GET', path: one(privilegeId, op) }, single, options);
    },
    getBySlug: async (privilegeSlug, scope, options) => {
      const op = 'privileges.getBySlug';
      const query = validateRequest(bySlugQuery, scope, op);
      const path = `${V2}/slug/${seg(privilegeSlug, 'privilegeSlug', op)}`;
      return http.call({ operation: op, method: 'GET', path, query }, single, options);
    },
    list: async (scope, options) => {
      const op = 'privileges.list';
      const query = validateRequest(byIdQuery, scope, op);
      return http.call({ operation: op, method: 'GET', path: V2, query }, many, options);
    },
    update: async (privilegeId, input, options) => {
      const op = 'privileges.update';
      const body = validateRequest(updateRequest, input, op);
      return http.call({ operation: op, method: 'PATCH', path: one(privilegeId, op), body }, single, options);
    },
    delete: async (privilegeId, options) => {
      const op = 'privileges.delete';
      return http.call({ operation: op, method: 'DELETE', path: one(privilegeId, op) }, single, options);
    },
    v1: privilegesV1Api(http, single, many),
  };
}

function privilegesV1Api(
  http: HttpClient,
  single: z.ZodType<Privilege>,
  many: z.ZodType<Privilege[]>,
): PrivilegesV1Api {
  return {
    list: async (scope, options) => {
      const op = 'privileges.v1.list';
      const query = validateRequest(bySlugQuery, scope, op);
      return http.call({ operation: op, method: 'GET', path: V1, query }, many, options);
    },
    update: async (input, options) => {
      const op = 'privileges.v1.update';
      const body = validateRequest(v1UpdateRequest, input, op);
      return http.call({ operation: op, method: 'PATCH', path: V1, body }, single, options);
    },
    delete: async (input, options) => {
      const op = 'privileges.v1.delete';
      const body = validateRequest(v1DeleteRequest, input, op);
      return http.call({ operation: op, method: 'DELETE', path: V1, body }, single, options);
    },
  };
}
