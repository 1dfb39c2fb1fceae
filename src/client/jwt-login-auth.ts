// Logins that present a JWT: the service's Kubernetes auth (TokenReview), JWT auth and OIDC auth.
// The client knows nothing of Kubernetes: the caller supplies the JWT (for Coffer, a ServiceAccount
// token read from a projected file or requested from the TokenRequest API).
import type { JwtLoginMethod } from './auth-tokens.ts';
import { timing, type Authenticator } from './auth.ts';
import { UnauthorizedError } from './errors.ts';
import { LoginSession, type LoginMethod, type RenewTiming } from './login-session.ts';

/**
 * Supplies the JWT to present. `fresh: true` asks for a new one (re-read or re-requested) after
 * the service refused the previous one with 401; otherwise a cached JWT that is not near its expiry
 * may be returned. Its errors must not contain the JWT.
 */
export type JwtSupplier = (request?: { readonly fresh?: boolean }) => Promise<string>;

/** A JWT login of one machine identity. */
export interface JwtLoginOptions extends RenewTiming {
  readonly method: JwtLoginMethod;
  readonly identityId: string;
  readonly jwt: JwtSupplier;
}

const labels: Record<JwtLoginMethod, string> = {
  kubernetes: 'Kubernetes auth',
  jwt: 'JWT auth',
  oidc: 'OIDC auth',
};

/**
 * Logs in with `POST /api/v1/auth/{kubernetes,jwt,oidc}-auth/login`, with the session handling of
 * `LoginSession` (single flight, renewal, a new login on rejection). When the service answers 401
 * to a JWT, the login asks the supplier once for a fresh JWT and tries again (a rotated projected
 * token, a revoked TokenRequest token); a second refusal is the answer.
 */
export function jwtLogin(options: JwtLoginOptions): Authenticator {
  if (options.identityId.length === 0) {
    throw new TypeError(`cannot use ${labels[options.method]}: identityId is required`);
  }
  const method: LoginMethod = {
    label: labels[options.method],
    ...timing(options),
    login: async (ctx) => {
      const send = (jwt: string) =>
        ctx.tokens.loginWithJwt(options.method, { identityId: options.identityId, jwt });
      const first = await options.jwt();
      try {
        return await send(first);
      } catch (error) {
        if (!(error instanceof UnauthorizedError)) throw error;
        const fresh = await options.jwt({ fresh: true });
        if (fresh === first) throw error;
        ctx.logger.debug({ method: options.method }, 'login refused; trying once with a fresh JWT');
        return send(fresh);
      }
    },
  };
  return (ctx) => new LoginSession(method, ctx);
}
