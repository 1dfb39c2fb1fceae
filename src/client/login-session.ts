// The session logic every login method shares (universal auth, and the Kubernetes, JWT and OIDC
// logins that present a ServiceAccount token): one login at a time for all callers of a client,
// renewal before the access token expires, a new login when renewal cannot help or a token was
// rejected. Only the login request itself differs between methods.
import type { AccessToken } from './auth-tokens.ts';
import type { AuthContext, AuthProvider } from './auth.ts';

/** When to renew: see `LoginSessionOptions`. */
export interface RenewTiming {
  /**
   * Renew when less than this part of the token's lifetime is left (default 0.2), and at
   * the latest `maxRenewMarginMs` (default 5 min) before it expires.
   */
  renewFraction?: number;
  maxRenewMarginMs?: number;
}

/** What a login method contributes: its name (for logs) and the login request. */
export interface LoginMethod extends RenewTiming {
  /** E.g. `universal auth`; appears in debug and warning logs. */
  readonly label: string;
  /** Logs in and returns the access token; never puts a credential in a thrown error. */
  login(ctx: AuthContext): Promise<AccessToken>;
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
 * An `AuthProvider` over a login method: concurrent callers wait for one login; the token is
 * renewed before it expires (`POST /api/v1/auth/token/renew`), and a failed renewal, a rejected
 * token or a token past its max TTL leads to a new login. While a login fails, a token that is
 * still valid keeps being served. Credentials and tokens are never logged.
 */
export class LoginSession implements AuthProvider {
  private readonly method: LoginMethod;
  private readonly ctx: AuthContext;
  private session: Session | undefined;
  private inflight: Promise<Session> | undefined;

  constructor(method: LoginMethod, ctx: AuthContext) {
    this.method = method;
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
    const login = await this.method.login(this.ctx);
    const maxTtlMs = login.accessTokenMaxTTL * 1000;
    this.ctx.logger.debug({ expiresInSeconds: login.expiresIn }, `logged in with ${this.method.label}`);
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
      ttlMs * (this.method.renewFraction ?? 0.2),
      this.method.maxRenewMarginMs ?? 300_000,
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
