// Identity project memberships: `/api/v1/projects/{projectId}/memberships/identities/{identityId}`.
import { z } from 'zod';
import type { CallOptions, HttpClient } from './http.ts';
import { temporaryAccessRequest, temporaryFields, timestamp } from './schemas.ts';
import { envelope, seg, validateRequest } from './validate.ts';

/**
 * One role of a membership. For a custom role the service reports `role: "custom"` plus
 * `customRoleSlug`; `slug` is the effective slug either way.
 */
const membershipRole = z
  .object({
    id: z.string().optional(),
    role: z.string(),
    customRoleId: z.string().nullish(),
    customRoleSlug: z.string().nullish(),
    customRoleName: z.string().nullish(),
    ...temporaryFields,
    isTemporary: z.boolean().default(false),
  })
  .transform((r) => ({ ...r, slug: r.customRoleSlug ?? r.role }));
export type MembershipRole = z.output<typeof membershipRole>;

/** An identity's membership of a project. */
export const identityMembershipSchema = z.object({
  id: z.string().min(1),
  identityId: z.string().optional(),
  projectId: z.string().optional(),
  roles: z.array(membershipRole).default([]),
  identity: z.object({ id: z.string(), name: z.string() }).optional(),
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
});
export type IdentityMembership = z.output<typeof identityMembershipSchema>;

const roleRequest = z.intersection(z.object({ role: z.string().min(1) }), temporaryAccessRequest);
export type MembershipRoleInput = z.input<typeof roleRequest>;

const createRequest = z.object({ roles: z.array(roleRequest).min(1) });
const updateRequest = z.object({ roles: z.array(roleRequest).min(1) });
export type MembershipRolesInput = z.input<typeof createRequest>;

const listQuery = z.object({
  offset: z.number().int().min(0).optional(),
  limit: z.number().int().min(1).max(1000).optional(),
  identityName: z.string().optional(),
  roles: z.string().optional(),
});
export type ListMembershipsQuery = z.input<typeof listQuery>;

const listResponse = z.object({
  identityMemberships: z.array(identityMembershipSchema),
  totalCount: z.number().int(),
});
export type MembershipPage = z.output<typeof listResponse>;

/** Which identities belong to a project, with which roles. */
export interface MembershipsApi {
  /** POST: adds the identity with the given roles. */
  create(
    projectId: string,
    identityId: string,
    input: MembershipRolesInput,
    options?: CallOptions,
  ): Promise<IdentityMembership>;
  get(projectId: string, identityId: string, options?: CallOptions): Promise<IdentityMembership>;
  /** PATCH: the role set is replaced. */
  update(
    projectId: string,
    identityId: string,
    input: MembershipRolesInput,
    options?: CallOptions,
  ): Promise<IdentityMembership>;
  delete(projectId: string, identityId: string, options?: CallOptions): Promise<IdentityMembership>;
  list(projectId: string, query?: ListMembershipsQuery, options?: CallOptions): Promise<MembershipPage>;
}

export function membershipsApi(http: HttpClient): MembershipsApi {
  const base = (projectId: string, op: string): string =>
    `/api/v1/projects/${seg(projectId, 'projectId', op)}/memberships/identities`;
  const one = (projectId: string, identityId: string, op: string): string =>
    `${base(projectId, op)}/${seg(identityId, 'identityId', op)}`;
  const schema = envelope('identityMembership', identityMembershipSchema);
  return {
    create: async (projectId, identityId, input, options) => {
      const op = 'memberships.create';
      const body = validateRequest(createRequest, input, op);
      return http.call(
        { operation: op, method: 'POST', path: one(projectId, identityId, op), body },
        schema,
        options,
      );
    },
    get: async (projectId, identityId, options) => {
      const op = 'memberships.get';
      return http.call(
        { operation: op, method: 'GET', path: one(projectId, identityId, op) },
        schema,
        options,
      );
    },
    update: async (projectId, identityId, input, options) => {
      const op = 'memberships.update';
      const body = validateRequest(updateRequest, input, op);
      return http.call(
        { operation: op, method: 'PATCH', path: one(projectId, identityId, op), body },
        schema,
        options,
      );
    },
    delete: async (projectId, identityId, options) => {
      const op = 'memberships.delete';
      return http.call(
        { operation: op, method: 'DELETE', path: one(projectId, identityId, op) },
        schema,
        options,
      );
    },
    list: async (projectId, query, options) => {
      const op = 'memberships.list';
      const q = validateRequest(listQuery, query ?? {}, op);
      return http.call(
        { operation: op, method: 'GET', path: base(projectId, op), query: q },
        listResponse,
        options,
      );
    },
  };
}
