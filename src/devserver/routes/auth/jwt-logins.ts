/**
 * JWT-auth and OIDC-auth logins (`POST /api/v1/auth/{jwt,oidc}-auth/login`, body `{identityId,
 * jwt}`): the token is verified with the configured keys (static PEM public keys, a JWKS URL, or
 * the JWKS named by the OIDC discovery document, fetched with the configured CA), then issuer,
 * subject, audiences and bound claims are checked in the service's order, with its messages and
 * statuses: 404 when the method is not attached, 401 for verification failures and audience or
 * claim mismatches, 403 for issuer and subject mismatches. Like the service, these methods have
 * no lockout; failures count only toward the route's rate limit.
 */
import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import type { DevApp } from '../../app.ts';
import { issueAccessToken, tokenResponse } from '../../auth/access-tokens.ts';
import { claimAt, claimMatches } from '../../auth/claim-policy.ts';
import { decodeJws, JwsError, publicKeyFrom, verifyJws, type DecodedJws } from '../../auth/jws.ts';
import { describeFetchError, fetchJson } from '../../auth/outbound.ts';
import { forbidden, notFound, unauthorized } from '../../domain/errors.ts';
import type { RouteDef } from '../../http/types.ts';
import { configString } from './common-fields.ts';
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

function verifyOrDeny(jws: DecodedJws, key: KeyObject, app: DevApp, issuer?: string): Config {
  try {
    return verifyJws(jws, key, { nowMs: app.now(), ...(issuer === undefined ? {} : { issuer }) });
  } catch (error) {
    if (error instanceof JwsError) throw unauthorized(`Access denied: ${error.message}`);
    throw error;
  }
}

async function fetchJwks(url: string, ca: string): Promise<Record<string, unknown>[]> {
  let result: { status: number; body: unknown };
  try {
    result = await fetchJson(url, { ca, verifyWithoutCa: false });
  } catch (error) {
    throw unauthorized(`Access denied: Failed to fetch JWKS from ${url}. ${describeFetchError(error)}`);
  }
  const keys = (result.body as { keys?: unknown } | undefined)?.keys;
  if (result.status !== 200 || !Array.isArray(keys)) {
    throw unauthorized(`Access denied: Failed to fetch JWKS from ${url}. Status ${result.status}`);
  }
  return keys as Record<string, unknown>[];
}

function keyWithKid(keys: Record<string, unknown>[], kid: unknown): KeyObject {
  const jwk = keys.find((k) => k.kid === kid && (k.use === undefined || k.use === 'sig'));
  if (!jwk)
    throw unauthorized(
      `Access denied: Unable to find a signing key that matches ${JSON.stringify(kid) ?? 'undefined'}`,
    );
  return jwkKey(jwk);
}

/** The key of a JWKS entry; an entry node:crypto cannot read is the provider's fault → 401. */
function jwkKey(jwk: Record<string, unknown>): KeyObject {
  try {
    return publicKeyFrom(jwk);
  } catch {
    throw unauthorized('Access denied: the signing key from the JWKS endpoint cannot be read');
  }
}

function decodeOrDeny(token: string): DecodedJws {
  const jws = decodeJws(token);
  if (!jws) throw unauthorized('Invalid JWT');
  return jws;
}

async function verifyJwtAuth(app: DevApp, config: Config, token: string): Promise<Config> {
  const jws = decodeOrDeny(token);
  if (config.configurationType === 'jwks') {
    const keys = await fetchJwks(configString(config, 'jwksUrl'), configString(config, 'jwksCaCert'));
    return verifyOrDeny(jws, keyWithKid(keys, jws.header.kid), app);
  }
  const errors: string[] = [];
  for (const pem of (config.publicKeys as string[] | undefined) ?? []) {
    try {
      return verifyJws(jws, publicKeyFrom(pem), { nowMs: app.now() });
    } catch (error) {
      errors.push(error instanceof JwsError ? error.message : 'invalid public key');
    }
  }
  throw unauthorized(`Access denied: JWT verification failed with all keys. Errors - ${errors.join('; ')}`);
}

async function discoverJwksUri(config: Config): Promise<string> {
  const base = configString(config, 'oidcDiscoveryUrl');
  let result: { status: number; body: unknown };
  try {
    result = await fetchJson(`${base}/.well-known/openid-configuration`, {
      ca: configString(config, 'caCert'),
      verifyWithoutCa: false,
    });
    if (result.status !== 200) throw new Error(`Request failed with status code ${result.status}`);
  } catch (error) {
    throw unauthorized(
      `Access denied: Failed to fetch OIDC discovery document from ${base}. ${describeFetchError(error)}`,
    );
  }
  const jwksUri = (result.body as { jwks_uri?: unknown } | undefined)?.jwks_uri;
  if (typeof jwksUri !== 'string' || !jwksUri) {
    throw unauthorized(
      'Access denied: OIDC discovery document does not contain a jwks_uri. The identity provider may be misconfigured.',
    );
  }
  return jwksUri;
}

async function verifyOidcAuth(app: DevApp, config: Config, token: string): Promise<Config> {
  const jwksUri = await discoverJwksUri(config);
  const jws = decodeOrDeny(token);
  const keys = await fetchJwks(jwksUri, configString(config, 'caCert'));
  const issuer = configString(config, 'boundIssuer');
  if (jws.header.kid !== undefined) {
    const jwk = keys.find((k) => k.kid === jws.header.kid);
    if (!jwk) {
      throw unauthorized(
        `Access denied: Unable to verify JWT signature. The signing key '${JSON.stringify(jws.header.kid)}' was not found in the OIDC provider's JWKS endpoint. This may indicate an invalid token or misconfigured OIDC provider.`,
      );
    }
    return verifyOrDeny(jws, jwkKey(jwk), app, issuer);
  }
  if (keys.length === 0) {
    throw unauthorized("Access denied: No signing keys available from OIDC provider's JWKS endpoint.");
  }
  let last = 'Invalid token';
  for (const jwk of keys.slice(0, 10)) {
    try {
      return verifyJws(jws, publicKeyFrom(jwk), { nowMs: app.now(), issuer });
    } catch (error) {
      last = error instanceof JwsError ? error.message : last;
    }
  }
  throw unauthorized(`Access denied: Unable to verify JWT signature with any available signing key. ${last}`);
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
