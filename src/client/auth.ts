// Authentication providers. A provider hands out the bearer token for each request and is
// told when the service rejected one (401, or 403 TokenError) so it can fetch a new one.
import type { AuthTokensApi } from './auth-tokens.ts';
import type { Clock } from '../runtime/clock.ts';
import type { ClientLogger } from './http.ts';
import { LoginSession, type LoginMethod, type RenewTiming } from './login-session.ts';

/** Supplies bearer tokens to the request pipeline of one client. */
export interface AuthProvider {
  /** The token for the next request (may log in or renew first). */
  getToken(signal?: AbortSignal): Promise<string>;
  /**
   * The service rejected `token`. Returns true when a fresh token may succeed; the pipeline
   * then sends the request once more.
   */
  tokenRejected(token: string): boolean;
}

/** What `createServiceClient` gives an authenticator when binding it to a connection. */
export interface AuthContext {
  tokens: AuthTokensApi;
  clock: Clock;
  logger: ClientLogger;
}

/** Creates the provider of one client; pass it as `auth` to `createServiceClient`. */
export type Authenticator = (ctx: AuthContext) => AuthProvider;

/** A fixed bearer token (e.g. the bootstrap identity's token); a rejection is final. */
export function staticToken(token: string): Authenticator {
  if (token.length === 0) throw new TypeError('cannot use static token: it is empty');
  return () => ({
    getToken: () => Promise.resolve(token),
    tokenRejected: () => false,
  });
}

/** Universal-auth credentials of a machine identity. */
export interface UniversalAuthOptions extends RenewTiming {
  clientId: string;
  clientSecret: string;
  /** Sub-organisation slug to log in to, if any. */
  subOrganizationName?: string;
}

/**
 * Universal-auth login (`POST /api/v1/auth/universal-auth/login`) shared by every caller of
 * the client, with the session handling of `LoginSession` (single flight, renewal before expiry,
 * a new login on rejection). Credentials and tokens are never logged.
 */
export function universalAuth(options: UniversalAuthOptions): Authenticator {
  if (options.clientId.length === 0 || options.clientSecret.length === 0) {
    throw new TypeError('cannot use universal auth: clientId and clientSecret are required');
  }
  const method: LoginMethod = {
    label: 'universal auth',
    ...timing(options),
    login: (ctx) =>
      ctx.tokens.loginUniversal({
        clientId: options.clientId,
        clientSecret: options.clientSecret,
        subOrganizationName: options.subOrganizationName,
      }),
  };
  return (ctx) => new LoginSession(method, ctx);
}

/** The renewal settings of `options` that are set. */
export function timing(options: RenewTiming): RenewTiming {
  return {
    ...(options.renewFraction === undefined ? {} : { renewFraction: options.renewFraction }),
    ...(options.maxRenewMarginMs === undefined ? {} : { maxRenewMarginMs: options.maxRenewMarginMs }),
  };
}
