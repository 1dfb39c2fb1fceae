/**
 * JWT-auth and OIDC-auth logins (`POST /api/v1/auth/{jwt,oidc}-auth/login`, body `{identityId,
 * jwt}`): the token is verified with the configured keys (static PEM public keys, a JWKS URL, or
 * the JWKS named by the OIDC discovery document, fetched with the configured CA), then issuer,
 * subject, audiences and bound claims are checked in the service's order, with its messages and
 * statuses: 404 when the method is not attached, 401 for verification failures and audience or
 * claim mismatches, 403 for issuer and subject mismatches. Like the service, these methods have
 * no lockout; failures count only toward the route's rate limit.
 */
import { z } from 'zod';
import type { DevApp } from '../../app.ts';
import { issueAccessToken, tokenResponse } from '../access-tokens.ts';
import { claimAt, claimMatches } from '../claim-policy.ts';
import { forbidden, notFound, unauthorized } from '../../domain/errors.ts';
import type { RouteDef } from '../../http/types.ts';
import { configString } from './common-fields.ts';
import { verifyJwtAuth, verifyOidcAuth } from './jwt-verification.ts';
import type { AuthMethodRecord } from '../../state/types.ts';

const loginSchema = z.object({
  identityId: z.string().trim().min(1),
  jwt: z.string().trim().min(1),
  organizationSlug: z.string().optional(),
  subOrganizationName: z.string().optional(),
});

type Config = Record<string, unknown>;

/** The attached method of `identityId`, or the service's 404. */
function methodFor(app: DevApp, identityId: string, method: string, label: string): AuthMethodRecord {
  const record = Object.values(app.state.authMethods).find(
    (m) => m.identityId === identityId && m.method === method,
  );
  if (!record) {
    throw notFound(`${label} auth method not found for identity, did you configure ${label} auth?`);
  }
  if (!app.state.identities[record.identityId]) throw unauthorized('Identity not found');
  return record;
}

function checkBoundClaims(config: Config, claims: Config, mismatch: (key: string) => string): void {
  for (const [key, allowed] of Object.entries((config.boundClaims as Record<string, string>) ?? {})) {
    const value = claimAt(claims, key);
    if (!value) throw unauthorized(`Access denied: token has no ${key} field`);
    if (!allowed.split(', ').some((entry) => claimMatches(value, entry))) throw unauthorized(mismatch(key));
  }
}

function checkJwtClaims(config: Config, claims: Config): void {
  if (config.boundIssuer && claims.iss !== config.boundIssuer) {
    throw forbidden('Access denied: issuer mismatch');
  }
  if (config.boundSubject) {
    if (!claims.sub) throw unauthorized('Access denied: token has no subject field');
    if (!claimMatches(claims.sub, configString(config, 'boundSubject'))) {
      throw forbidden('Access denied: subject not allowed');
    }
  }
  if (config.boundAudiences) {
    if (!claims.aud) throw unauthorized('Access denied: token has no audience field');
    if (
      !configString(config, 'boundAudiences')
        .split(', ')
        .some((p) => claimMatches(claims.aud, p))
    ) {
      throw unauthorized('Access denied: token audience not allowed');
    }
  }
  checkBoundClaims(config, claims, (key) => `Access denied: claim mismatch for field ${key}`);
}

function checkOidcClaims(config: Config, claims: Config): void {
  if (config.boundSubject && !claimMatches(claims.sub, configString(config, 'boundSubject'))) {
    throw forbidden('Access denied: OIDC subject not allowed.');
  }
  if (config.boundAudiences) {
    if (
      !configString(config, 'boundAudiences')
        .split(', ')
        .some((p) => claimMatches(claims.aud, p))
    ) {
      throw unauthorized('Access denied: OIDC audience not allowed.');
    }
  }
  checkBoundClaims(config, claims, () => 'Access denied: OIDC claim not allowed.');
}

function issue(app: DevApp, record: AuthMethodRecord): unknown {
  const identity = app.state.identities[record.identityId];
  if (identity) {
    identity.lastLoginAuthMethod = record.method;
    identity.lastLoginTime = app.iso();
  }
  const { record: token, jwt } = issueAccessToken(app, record);
  return tokenResponse(token, jwt);
}

async function jwtLogin(app: DevApp, body: unknown): Promise<unknown> {
  const input = loginSchema.parse(body ?? {});
  const record = methodFor(app, input.identityId, 'jwt-auth', 'JWT');
  const claims = await verifyJwtAuth(app, record.config, input.jwt);
  checkJwtClaims(record.config, claims);
  return issue(app, record);
}

async function oidcLogin(app: DevApp, body: unknown): Promise<unknown> {
  const input = loginSchema.parse(body ?? {});
  const record = methodFor(app, input.identityId, 'oidc-auth', 'OIDC');
  const claims = await verifyOidcAuth(app, record.config, input.jwt);
  checkOidcClaims(record.config, claims);
  return issue(app, record);
}

/** The JWT-auth and OIDC-auth login routes. */
export function jwtLoginRoutes(app: DevApp): RouteDef[] {
  const login = (path: string, handler: (body: unknown) => Promise<unknown>): RouteDef => ({
    method: 'POST',
    path,
    bucket: 'write',
    auth: false,
    write: false,
    handler: (ctx) => handler(ctx.body),
  });
  return [
    login('/api/v1/auth/jwt-auth/login', (body) => jwtLogin(app, body)),
    login('/api/v1/auth/oidc-auth/login', (body) => oidcLogin(app, body)),
  ];
}
