// Access-token endpoints: universal-auth login, the logins that present a JWT (Kubernetes, JWT and
// OIDC auth), renew and revoke. None of them sends a bearer token; the credentials travel in the
// body, which never reaches logs or errors.
import { z } from 'zod';
import type { CallOptions, HttpClient } from './http.ts';
import { validateRequest } from './validate.ts';

/** An issued access token and its lifetime in seconds (0 = does not expire). */
export const accessTokenResponse = z.object({
  accessToken: z.string().min(1),
  expiresIn: z.number().int().min(0),
  accessTokenMaxTTL: z.number().int().min(0),
  tokenType: z.string().optional(),
});
export type AccessToken = z.output<typeof accessTokenResponse>;

const loginRequest = z.object({
  clientId: z.string().trim().min(1),
  clientSecret: z.string().min(1),
  subOrganizationName: z.string().min(1).optional(),
});
export type UniversalAuthLoginInput = z.input<typeof loginRequest>;

const tokenRequest = z.object({ accessToken: z.string().min(1) });

/** Login methods that present a JWT (for Coffer: a Kubernetes ServiceAccount token). */
export const jwtLoginMethods = ['kubernetes', 'jwt', 'oidc'] as const;
export type JwtLoginMethod = (typeof jwtLoginMethods)[number];

const jwtLoginRequest = z.object({
  identityId: z.string().trim().min(1),
  jwt: z.string().trim().min(1),
});
export type JwtLoginInput = z.input<typeof jwtLoginRequest>;

/** Login, renew and revoke of identity access tokens. */
export interface AuthTokensApi {
  /** `POST /api/v1/auth/universal-auth/login`. */
  loginUniversal(input: UniversalAuthLoginInput, options?: CallOptions): Promise<AccessToken>;
  /** `POST /api/v1/auth/{kubernetes,jwt,oidc}-auth/login` with the identity id and the JWT. */
  loginWithJwt(method: JwtLoginMethod, input: JwtLoginInput, options?: CallOptions): Promise<AccessToken>;
  /** `POST /api/v1/auth/token/renew`: a new JWT for the same token; cannot pass the max TTL. */
  renew(accessToken: string, options?: CallOptions): Promise<AccessToken>;
  /** `POST /api/v1/auth/token/revoke`. */
  revoke(accessToken: string, options?: CallOptions): Promise<{ message: string }>;
}

export function authTokensApi(http: HttpClient): AuthTokensApi {
  return {
    loginUniversal: (input, options) => {
      const body = validateRequest(loginRequest, input, 'auth.loginUniversal');
      // Logging in twice is harmless (two tokens), so network failures may be retried.
      const spec = {
        operation: 'auth.loginUniversal',
        method: 'POST',
        path: '/api/v1/auth/universal-auth/login',
      } as const;
      return http.call({ ...spec, body, auth: false, idempotent: true }, accessTokenResponse, options);
    },
    loginWithJwt: (method, input, options) => {
      const operation = `auth.${method}Login`;
      const body = validateRequest(jwtLoginRequest, input, operation);
      const path = `/api/v1/auth/${method}-auth/login`;
      const spec = { operation, method: 'POST', path } as const;
      return http.call({ ...spec, body, auth: false, idempotent: true }, accessTokenResponse, options);
    },
    renew: (accessToken, options) => {
      const body = validateRequest(tokenRequest, { accessToken }, 'auth.renew');
      const spec = { operation: 'auth.renew', method: 'POST', path: '/api/v1/auth/token/renew' } as const;
      return http.call({ ...spec, body, auth: false }, accessTokenResponse, options);
    },
    revoke: (accessToken, options) => {
      const body = validateRequest(tokenRequest, { accessToken }, 'auth.revoke');
      const spec = { operation: 'auth.revoke', method: 'POST', path: '/api/v1/auth/token/revoke' } as const;
      return http.call({ ...spec, body, auth: false }, z.object({ message: z.string() }), options);
    },
  };
}
