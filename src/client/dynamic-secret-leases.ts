// Leases of dynamic secrets: issue (`POST /api/v1/dynamic-secrets/leases`, the only answer that
// carries the credentials), get, renew, revoke (`/api/v1/dynamic-secrets/leases/{id}`) and the
// list of one dynamic secret's leases (`GET /api/v1/dynamic-secrets/{name}/leases`). Every call
// names the project by slug, the environment by slug and the folder by path
// (docs/service-facts.md, "Dynamic secrets and leases").
import { z } from 'zod';
import type { CallOptions, HttpClient } from './http.ts';
import { optString, timestamp } from './schemas.ts';
import { envelope, seg, validateRequest } from './validate.ts';

/** A lease as the service returns it, without credentials. */
export const leaseSchema = z.object({
  id: z.string().min(1),
  expireAt: timestamp,
  createdAt: timestamp,
  externalEntityId: z.string().optional(),
  status: optString,
  statusDetails: optString,
  config: z.unknown().optional(),
});
export type Lease = z.output<typeof leaseSchema>;

const scope = {
  projectSlug: z.string().min(1),
  environmentSlug: z.string().min(1),
  path: z.string().min(1),
};
const ttl = z.string().min(1).optional();
const issueSchema = z.object({
  ...scope,
  dynamicSecretName: z.string().min(1),
  ttl,
  config: z.record(z.string(), z.unknown()).optional(),
});
const renewSchema = z.object({ ...scope, ttl });
const revokeSchema = z.object({ ...scope, isForced: z.boolean().optional() });
const scopeSchema = z.object(scope);

/** Where a dynamic secret lives. */
export type LeaseScope = z.input<typeof scopeSchema>;
export type IssueLeaseInput = z.input<typeof issueSchema>;

/** A new lease and its credentials (secret values: never log them). */
export interface IssuedLease {
  readonly lease: Lease;
  readonly data: Readonly<Record<string, string>>;
}

/** Lease operations. */
export interface DynamicSecretLeasesApi {
  issue(input: IssueLeaseInput, options?: CallOptions): Promise<IssuedLease>;
  get(leaseId: string, at: LeaseScope, options?: CallOptions): Promise<Lease>;
  renew(leaseId: string, input: LeaseScope & { ttl?: string }, options?: CallOptions): Promise<Lease>;
  revoke(leaseId: string, input: LeaseScope & { isForced?: boolean }, options?: CallOptions): Promise<Lease>;
  /** The leases of the dynamic secret `name` in the folder of `at`. */
  list(name: string, at: LeaseScope, options?: CallOptions): Promise<Lease[]>;
}

const BASE = '/api/v1/dynamic-secrets';
const issued = z.object({
  lease: leaseSchema,
  data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String)),
});
const one = envelope('lease', leaseSchema);

/** The lease operations over `http`. */
export function dynamicSecretLeasesApi(http: HttpClient): DynamicSecretLeasesApi {
  const leasePath = (id: string, op: string) => `${BASE}/leases/${seg(id, 'leaseId', op)}`;
  return {
    issue: async (input, options) => {
      const op = 'dynamicSecretLeases.issue';
      const body = validateRequest(issueSchema, input, op) as object;
      return http.call({ operation: op, method: 'POST', path: `${BASE}/leases`, body }, issued, options);
    },
    get: async (leaseId, at, options) => {
      const op = 'dynamicSecretLeases.get';
      const query = validateRequest(scopeSchema, at, op) as Record<string, string>;
      return http.call({ operation: op, method: 'GET', path: leasePath(leaseId, op), query }, one, options);
    },
    renew: async (leaseId, input, options) => {
      const op = 'dynamicSecretLeases.renew';
      const body = validateRequest(renewSchema, input, op) as object;
      const spec = { operation: op, method: 'POST', path: `${leasePath(leaseId, op)}/renew`, body } as const;
      return http.call(spec, one, options);
    },
    revoke: async (leaseId, input, options) => {
      const op = 'dynamicSecretLeases.revoke';
      const body = validateRequest(revokeSchema, input, op) as object;
      const spec = { operation: op, method: 'DELETE', path: leasePath(leaseId, op), body, idempotent: true } as const; // prettier-ignore
      return http.call(spec, one, options);
    },
    list: async (name, at, options) => {
      const op = 'dynamicSecretLeases.list';
      const query = validateRequest(scopeSchema, at, op) as Record<string, string>;
      const path = `${BASE}/${seg(name, 'name', op)}/leases`;
      return http.call({ operation: op, method: 'GET', path, query }, envelope('leases', z.array(leaseSchema)), options); // prettier-ignore
    },
  };
}
