// Access tokens issued through token auth: create, list, get, rename, revoke.
import { z } from 'zod';
import type { CallOptions, HttpClient } from './http.ts';
import { optString, timestamp } from './schemas.ts';
import { envelope, seg, validateRequest } from './validate.ts';

/** Metadata of an issued access token (never the token). */
export const tokenDataSchema = z.object({
  id: z.string().min(1),
  name: optString,
  identityId: z.string().optional(),
  authMethod: z.string().optional(),
  accessTokenTTL: z.number().int(),
  accessTokenMaxTTL: z.number().int(),
  accessTokenNumUses: z.number().int().optional(),
  accessTokenNumUsesLimit: z.number().int().optional(),
  accessTokenPeriod: z.number().int().optional(),
  isAccessTokenRevoked: z.boolean().optional(),
  accessTokenLastUsedAt: timestamp.nullish(),
  accessTokenLastRenewedAt: timestamp.nullish(),
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
});
export type TokenData = z.output<typeof tokenDataSchema>;

const createResponse = z.object({
  accessToken: z.string().min(1),
  expiresIn: z.number().int(),
  accessTokenMaxTTL: z.number().int(),
  tokenType: z.string().optional(),
  tokenData: tokenDataSchema,
});
/** A new token: `accessToken` is returned only here and must go straight to a Secret. */
export type CreatedAccessToken = z.output<typeof createResponse>;

const createRequest = z.object({
  name: z.string().optional(),
  organizationSlug: z.string().min(1).optional(),
});
export type CreateAccessTokenInput = z.input<typeof createRequest>;

const listQuery = z.object({
  offset: z.number().int().min(0).max(100).optional(),
  limit: z.number().int().min(1).max(100).optional(),
});
export type ListAccessTokensQuery = z.input<typeof listQuery>;

/** Token-auth tokens of an identity. */
export interface TokenAuthTokensApi {
  /** `POST /api/v1/auth/token-auth/identities/{identityId}/tokens`. */
  create(
    identityId: string,
    input: CreateAccessTokenInput,
    options?: CallOptions,
  ): Promise<CreatedAccessToken>;
  /** `GET /api/v1/auth/token-auth/identities/{identityId}/tokens` (offset/limit paged). */
  list(identityId: string, query?: ListAccessTokensQuery, options?: CallOptions): Promise<TokenData[]>;
  /** `GET /api/v1/auth/token-auth/tokens/{tokenId}`. */
  get(tokenId: string, options?: CallOptions): Promise<TokenData>;
  /** `PATCH /api/v1/auth/token-auth/tokens/{tokenId}`. */
  update(tokenId: string, input: { name?: string }, options?: CallOptions): Promise<TokenData>;
  /** `POST /api/v1/auth/token-auth/tokens/{tokenId}/revoke`; an already revoked token is a 404. */
  revoke(tokenId: string, options?: CallOptions): Promise<{ message: string }>;
}

export function tokenAuthTokensApi(http: HttpClient): TokenAuthTokensApi {
  const byIdentity = (identityId: string, op: string): string =>
    `/api/v1/auth/token-auth/identities/${seg(identityId, 'identityId', op)}/tokens`;
  const byToken = (tokenId: string, op: string): string =>
    `/api/v1/auth/token-auth/tokens/${seg(tokenId, 'tokenId', op)}`;
  const token = envelope('token', tokenDataSchema);
  return {
    create: async (identityId, input, options) => {
      const op = 'tokenAuthTokens.create';
      const body = validateRequest(createRequest, input, op);
      return http.call(
        { operation: op, method: 'POST', path: byIdentity(identityId, op), body },
        createResponse,
        options,
      );
    },
    list: async (identityId, query, options) => {
      const op = 'tokenAuthTokens.list';
      const q = validateRequest(listQuery, query ?? {}, op);
      const spec = { operation: op, method: 'GET', path: byIdentity(identityId, op), query: q } as const;
      return http.call(spec, envelope('tokens', z.array(tokenDataSchema)), options);
    },
    get: async (tokenId, options) => {
      const op = 'tokenAuthTokens.get';
      return http.call({ operation: op, method: 'GET', path: byToken(tokenId, op) }, token, options);
    },
    update: async (tokenId, input, options) => {
      const op = 'tokenAuthTokens.update';
      const body = validateRequest(z.object({ name: z.string().optional() }), input, op);
      return http.call({ operation: op, method: 'PATCH', path: byToken(tokenId, op), body }, token, options);
    },
    revoke: async (tokenId, options) => {
      const op = 'tokenAuthTokens.revoke';
      const path = `${byToken(tokenId, op)}/revoke`;
      return http.call({ operation: op, method: 'POST', path }, z.object({ message: z.string() }), options);
    },
  };
}
