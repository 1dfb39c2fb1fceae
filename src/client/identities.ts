// Machine identities: create, get, update, delete, list (v1).
import { z } from 'zod';
import type { CallOptions, HttpClient } from './http.ts';
import { optString, timestamp } from './schemas.ts';
import { envelope, seg, validateRequest } from './validate.ts';

const metadataEntry = z.object({ id: z.string().optional(), key: z.string(), value: z.string() });

/** An identity as returned by create, update and delete. */
export const identitySchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  authMethod: optString,
  authMethods: z.array(z.string()).default([]),
  hasDeleteProtection: z.boolean().default(false),
  orgId: z.string().optional(),
  metadata: z.array(metadataEntry).default([]),
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
});
export type Identity = z.output<typeof identitySchema>;

/**
 * GET and list answer with the org-membership wrapper `{role, metadata, identity: {...}}`;
 * it is flattened into the identity plus its org `role`.
 */
const membershipWrapper = z
  .object({
    role: z.string(),
    orgId: z.string().optional(),
    metadata: z.array(metadataEntry).nullish(),
    customRole: z.object({ slug: z.string() }).nullish(),
    identity: z.object({
      id: z.string().min(1),
      name: z.string(),
      hasDeleteProtection: z.boolean().default(false),
      orgId: z.string().optional(),
      authMethods: z.array(z.string()).default([]),
    }),
    createdAt: timestamp.optional(),
    updatedAt: timestamp.optional(),
  })
  .transform((m) => ({
    ...m.identity,
    orgId: m.identity.orgId ?? m.orgId,
    // A custom org role is reported as role "custom" plus the custom role's slug.
    role: m.customRole?.slug ?? m.role,
    metadata: m.metadata ?? [],
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  }));
export type IdentityDetails = z.output<typeof membershipWrapper>;

const metadataRequest = z.array(z.object({ key: z.string().trim().min(1), value: z.string().trim().min(1) }));

const createRequest = z.object({
  name: z.string().trim().min(1),
  organizationId: z.string().trim().min(1),
  role: z.string().min(1).optional(),
  hasDeleteProtection: z.boolean().optional(),
  metadata: metadataRequest.optional(),
});
export type CreateIdentityInput = z.input<typeof createRequest>;

const updateRequest = z.object({
  name: z.string().trim().min(1).optional(),
  role: z.string().min(1).optional(),
  hasDeleteProtection: z.boolean().optional(),
  metadata: metadataRequest.optional(),
});
export type UpdateIdentityInput = z.input<typeof updateRequest>;

/** Machine identities of an organisation. */
export interface IdentitiesApi {
  /** `POST /api/v1/identities` (names are not unique; a repeated create makes another identity). */
  create(input: CreateIdentityInput, options?: CallOptions): Promise<Identity>;
  /** `GET /api/v1/identities/{identityId}`, flattened with the org role. */
  get(identityId: string, options?: CallOptions): Promise<IdentityDetails>;
  /** `PATCH /api/v1/identities/{identityId}`. */
  update(identityId: string, input: UpdateIdentityInput, options?: CallOptions): Promise<Identity>;
  /** `DELETE /api/v1/identities/{identityId}`. */
  delete(identityId: string, options?: CallOptions): Promise<Identity>;
  /** `GET /api/v1/identities?orgId=`. */
  list(orgId: string, options?: CallOptions): Promise<IdentityDetails[]>;
}

export function identitiesApi(http: HttpClient): IdentitiesApi {
  const one = (id: string, op: string): string => `/api/v1/identities/${seg(id, 'identityId', op)}`;
  const schema = envelope('identity', identitySchema);
  return {
    create: async (input, options) => {
      const op = 'identities.create';
      const body = validateRequest(createRequest, input, op);
      return http.call({ operation: op, method: 'POST', path: '/api/v1/identities', body }, schema, options);
    },
    get: async (identityId, options) => {
      const op = 'identities.get';
      const spec = { operation: op, method: 'GET', path: one(identityId, op) } as const;
      return http.call(spec, envelope('identity', membershipWrapper), options);
    },
    update: async (identityId, input, options) => {
      const op = 'identities.update';
      const body = validateRequest(updateRequest, input, op);
      return http.call({ operation: op, method: 'PATCH', path: one(identityId, op), body }, schema, options);
    },
    delete: async (identityId, options) => {
      const op = 'identities.delete';
      return http.call({ operation: op, method: 'DELETE', path: one(identityId, op) }, schema, options);
    },
    list: async (orgId, options) => {
      const op = 'identities.list';
      const query = { orgId: validateRequest(z.string().min(1), orgId, op) };
      const spec = { operation: op, method: 'GET', path: '/api/v1/identities', query } as const;
      return http.call(spec, envelope('identities', z.array(membershipWrapper)), options);
    },
  };
}
