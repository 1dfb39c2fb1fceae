// Authentication providers. A provider hands out the bearer token for each request and is
// told when the service rejected one (401, or 403 TokenError) so it can fetch a new one.
import type { AuthTokensApi, AccessToken } from './auth-tokens.ts';
import type { Clock } from '../runtime/clock.ts';
import type { ClientLogger } from './http.ts';

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
export interface UniversalAuthOptions {
  clientId: string;
  clientSecret: string;
  /** Sub-organisation slug to log in to, if any. */
  subOrganizationName?: string;
  /**
   * Renew when less than this part of the token's lifetime is left (default 0.2), and at
   * the latest `maxRenewMarginMs` (default 5 min) before it expires.
   */
  renewFraction?: number;
  maxRenewMarginMs?: number;
}

/** One login's token with its computed deadlines (ms since the epoch; Infinity = never). */
interface Session {
  token: string;
  ttlMs: number;
  expiresAt: number;
  refreshAt: number;
  /** Creation + max TTL: renewals cannot go past it. */
  maxExpiresAt: number;
}

/**
 * Universal-auth login (`POST /api/v1/auth/universal-auth/login`) shared by every caller of
 * the client: concurrent callers wait for one login; the token is renewed before it expires
 * (`POST /api/v1/auth/token/renew`), and a failed renewal or a rejected token leads to a new
 * login. Credentials and tokens are never logged.
 */
export function universalAuth(options: UniversalAuthOptions): Authenticator {
  if (options.clientId.length === 0 || options.clientSecret.length === 0) {
    throw new TypeError('cannot use universal auth: clientId and clientSecret are required');
  }
  return (ctx) => new UniversalAuthProvider(options, ctx);
}

class UniversalAuthProvider implements AuthProvider {
  private readonly options: UniversalAuthOptions;
  private readonly ctx: AuthContext;
  private session: Session | undefined;
  private inflight: Promise<Session> | undefined;

  constructor(options: UniversalAuthOptions, ctx: AuthContext) {
    this.options = options;
    this.ctx = ctx;
  }

  async getToken(signal?: AbortSignal): Promise<string> {
    const current = this.session;
    if (!this.inflight && current && this.ctx.clock.now() < current.refreshAt) return current.token;
    // Single flight: the refresh is not bound to any one caller's signal, so an aborting
    // caller does not cancel the login the others are waiting for.
    this.inflight ??= this.refresh(current).finally(() => {
      this.inflight = undefined;
    });
    const session = await abortable(this.inflight, signal);
    return session.token;
  }

  tokenRejected(token: string): boolean {
    if (this.session?.token === token) this.session = undefined;
    return true;
  }

  private async refresh(previous: Session | undefined): Promise<Session> {
    if (previous && this.canRenew(previous)) {
      try {
        const renewed = await this.ctx.tokens.renew(previous.token);
        this.session = this.toSession(renewed, previous.maxExpiresAt);
        this.ctx.logger.debug({ expiresInSeconds: renewed.expiresIn }, 'renewed access token');
        return this.session;
      } catch (err) {
        this.ctx.logger.warn({ error: describe(err) }, 'cannot renew access token; logging in again');
      }
    }
    try {
      this.session = await this.login();
      return this.session;
    } catch (err) {
      // Keep serving a token that is still valid; the next call tries again.
      if (!previous || this.ctx.clock.now() >= previous.expiresAt) throw err;
      this.ctx.logger.warn(
        { error: describe(err) },
        'cannot log in; using the current access token meanwhile',
      );
      return previous;
    }
  }

  private async login(): Promise<Session> {
    const login = await this.ctx.tokens.loginUniversal({
      clientId: this.options.clientId,
      clientSecret: this.options.clientSecret,
      subOrganizationName: this.options.subOrganizationName,
    });
    const maxTtlMs = login.accessTokenMaxTTL * 1000;
    this.ctx.logger.debug({ expiresInSeconds: login.expiresIn }, 'logged in with universal auth');
    return this.toSession(login, maxTtlMs > 0 ? this.ctx.clock.now() + maxTtlMs : Infinity);
  }

  /** Renewal helps only while the token is valid and a full TTL still fits under the max TTL. */
  private canRenew(s: Session): boolean {
    const now = this.ctx.clock.now();
    return s.ttlMs > 0 && now < s.expiresAt && now + s.ttlMs <= s.maxExpiresAt;
  }

  private toSession(token: AccessToken, maxExpiresAt: number): Session {
    const now = this.ctx.clock.now();
    const ttlMs = token.expiresIn * 1000;
    if (ttlMs === 0) {
      return { token: token.accessToken, ttlMs, expiresAt: Infinity, refreshAt: Infinity, maxExpiresAt };
    }
    const margin = Math.min(
      ttlMs * (this.options.renewFraction ?? 0.2),
      this.options.maxRenewMarginMs ?? 300_000,
    );
    const expiresAt = Math.min(now + ttlMs, maxExpiresAt);
    return { token: token.accessToken, ttlMs, expiresAt, refreshAt: expiresAt - margin, maxExpiresAt };
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Waits for `promise`, but rejects with the signal's reason as soon as it aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.finally(() => signal.removeEventListener('abort', onAbort)).then(resolve, reject);
  });
}
