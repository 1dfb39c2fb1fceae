// Universal-auth client secrets of an identity: create (the only time the plain secret is
// returned), list, get, revoke.
import { z } from 'zod';
import type { CallOptions, HttpClient } from './http.ts';
import { optString, timestamp, ttlSeconds } from './schemas.ts';
import { envelope, seg, validateRequest } from './validate.ts';

/** Metadata of a client secret (never the secret itself). */
export const clientSecretDataSchema = z.object({
  id: z.string().min(1),
  description: optString,
  clientSecretPrefix: optString,
  clientSecretNumUses: z.number().int().optional(),
  clientSecretNumUsesLimit: z.number().int().optional(),
  clientSecretTTL: z.number().int().optional(),
  isClientSecretRevoked: z.boolean().optional(),
  identityUAId: z.string().optional(),
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
});
export type ClientSecretData = z.output<typeof clientSecretDataSchema>;

const createResponse = z.object({
  clientSecret: z.string().min(1),
  clientSecretData: clientSecretDataSchema,
});
/** The created secret; `clientSecret` is returned only once and must go straight to a Secret. */
export type CreatedClientSecret = z.output<typeof createResponse>;

const createRequest = z.object({
  description: z.string().optional(),
  numUsesLimit: z.number().int().min(0).optional(),
  ttl: ttlSeconds.optional(),
});
export type CreateClientSecretInput = z.input<typeof createRequest>;

/** Client secrets at `/api/v1/auth/universal-auth/identities/{identityId}/client-secrets`. */
export interface UniversalAuthSecretsApi {
  create(
    identityId: string,
    input: CreateClientSecretInput,
    options?: CallOptions,
  ): Promise<CreatedClientSecret>;
  list(identityId: string, options?: CallOptions): Promise<ClientSecretData[]>;
  get(identityId: string, clientSecretId: string, options?: CallOptions): Promise<ClientSecretData>;
  /** `POST …/client-secrets/{clientSecretId}/revoke`. */
  revoke(identityId: string, clientSecretId: string, options?: CallOptions): Promise<ClientSecretData>;
}

export function universalAuthSecretsApi(http: HttpClient): UniversalAuthSecretsApi {
  const base = (identityId: string, op: string): string =>
    `/api/v1/auth/universal-auth/identities/${seg(identityId, 'identityId', op)}/client-secrets`;
  const one = (identityId: string, csId: string, op: string): string =>
    `${base(identityId, op)}/${seg(csId, 'clientSecretId', op)}`;
  const data = envelope('clientSecretData', clientSecretDataSchema);
  return {
    create: async (identityId, input, options) => {
      const op = 'universalAuthSecrets.create';
      const body = validateRequest(createRequest, input, op);
      return http.call(
        { operation: op, method: 'POST', path: base(identityId, op), body },
        createResponse,
        options,
      );
    },
    list: async (identityId, options) => {
      const op = 'universalAuthSecrets.list';
      const schema = envelope('clientSecretData', z.array(clientSecretDataSchema));
      return http.call({ operation: op, method: 'GET', path: base(identityId, op) }, schema, options);
    },
    get: async (identityId, clientSecretId, options) => {
      const op = 'universalAuthSecrets.get';
      return http.call(
        { operation: op, method: 'GET', path: one(identityId, clientSecretId, op) },
        data,
        options,
      );
    },
    revoke: async (identityId, clientSecretId, options) => {
      const op = 'universalAuthSecrets.revoke';
      const path = `${one(identityId, clientSecretId, op)}/revoke`;
      return http.call({ operation: op, method: 'POST', path }, data, options);
    },
  };
}
