/**
 * Identity access tokens: issuing, per-request validation, renewal and revocation, with the
 * service's lifetime rules (facts §B3). A token is a record in the state plus an HS256 JWT
 * carrying `{identityId, identityAccessTokenId, authTokenType: "identityAccessToken"}`; the
 * JWT has no `exp` when the TTL (or period) is 0.
 */
import type { DevApp } from '../app.ts';
import { badRequest, forbidden, unauthorized } from '../domain/errors.ts';
import { ipAllowed } from '../domain/validation.ts';
import { tokenError } from '../http/errors.ts';
import type { AccessTokenRecord, AuthMethodRecord, TrustedIp } from '../state/types.ts';
import { signJwt, verifyJwt } from './jwt.ts';

export const IDENTITY_ACCESS_TOKEN = 'identityAccessToken';

/** The body every login and renewal answers with. */
export interface TokenResponse {
  accessToken: string;
  expiresIn: number;
  accessTokenMaxTTL: number;
  tokenType: 'Bearer';
}

/** Creates a token record for `method` and returns it with its signed JWT. */
export function issueAccessToken(
  app: DevApp,
  method: AuthMethodRecord,
  extra: { name?: string | null; clientSecretId?: string | null } = {},
): { record: AccessTokenRecord; jwt: string } {
  const now = app.iso();
  const record: AccessTokenRecord = {
    id: app.newId(),
    identityId: method.identityId,
    authMethod: method.method,
    name: extra.name ?? null,
    accessTokenTTL: method.accessTokenTTL,
    accessTokenMaxTTL: method.accessTokenMaxTTL,
    accessTokenNumUses: 0,
    accessTokenNumUsesLimit: method.accessTokenNumUsesLimit,
    accessTokenPeriod: method.accessTokenPeriod,
    accessTokenLastUsedAt: null,
    accessTokenLastRenewedAt: null,
    isAccessTokenRevoked: false,
    identityUAClientSecretId: extra.clientSecretId ?? null,
    createdAt: now,
    updatedAt: now,
  };
  app.state.accessTokens[record.id] = record;
  app.changed();
  return { record, jwt: signFor(app, record) };
}

/** The JWT for `record`, expiring after its period (periodic tokens) or TTL; never when 0. */
export function signFor(app: DevApp, record: AccessTokenRecord): string {
  const iat = Math.floor(app.now() / 1000);
  const lifetime = record.accessTokenPeriod > 0 ? record.accessTokenPeriod : record.accessTokenTTL;
  return signJwt(
    {
      identityId: record.identityId,
      identityAccessTokenId: record.id,
      authTokenType: IDENTITY_ACCESS_TOKEN,
      iat,
      ...(lifetime > 0 ? { exp: iat + lifetime } : {}),
    },
    app.state.instance.jwtSecret,
  );
}

/** `{accessToken, expiresIn, accessTokenMaxTTL, tokenType}` for a freshly signed token. */
export function tokenResponse(record: AccessTokenRecord, jwt: string): TokenResponse {
  return {
    accessToken: jwt,
    expiresIn: record.accessTokenTTL,
    accessTokenMaxTTL: record.accessTokenMaxTTL,
    tokenType: 'Bearer',
  };
}

function deleteToken(app: DevApp, id: string): void {
  delete app.state.accessTokens[id];
  app.changed();
}

/** Verifies the JWT and finds its record: the checks shared by use, renewal and revocation. */
export function resolveToken(app: DevApp, jwt: string, purpose: 'use' | 'renew'): AccessTokenRecord {
  const claims = verifyJwt(jwt, app.state.instance.jwtSecret, app.now());
  if (claims.authTokenType !== IDENTITY_ACCESS_TOKEN) {
    // The devserver has no user sessions: only identity access tokens exist.
    throw purpose === 'renew'
      ? badRequest('Only identity access tokens can be renewed')
      : tokenError('The provided access token is invalid. Please use a valid token or generate a new one.');
  }
  const record = app.state.accessTokens[String(claims.identityAccessTokenId)];
  if (!record) throw unauthorized('No identity access token found');
  if (record.isAccessTokenRevoked) {
    throw unauthorized('Failed to authorize revoked access token, access token is revoked');
  }
  return record;
}

/**
 * The per-use checks in the service's order after revocation: the uses limit, then the TTL
 * counted from the last renewal (or creation). A failure deletes the token and is a 401.
 */
export function checkUsesAndTtl(app: DevApp, record: AccessTokenRecord): void {
  if (record.accessTokenNumUsesLimit > 0 && record.accessTokenNumUses >= record.accessTokenNumUsesLimit) {
    deleteToken(app, record.id);
    throw unauthorized('Unable to renew because access token number of uses limit reached');
  }
  const lifetime = record.accessTokenPeriod > 0 ? record.accessTokenPeriod : record.accessTokenTTL;
  if (lifetime > 0) {
    const from = Date.parse(record.accessTokenLastRenewedAt ?? record.createdAt);
    if (app.now() > from + lifetime * 1000) {
      deleteToken(app, record.id);
      throw unauthorized('Failed to authorize expired access token');
    }
  }
}

/** The auth method a token was issued through, if it is still attached. */
export function methodOf(app: DevApp, record: AccessTokenRecord): AuthMethodRecord | undefined {
  return Object.values(app.state.authMethods).find(
    (m) => m.identityId === record.identityId && m.method === record.authMethod,
  );
}

/**
 * Validates a bearer JWT for one request from `clientIp` and counts the use. Returns the
 * token record; throws 403 `TokenError` for a bad JWT and 401 for a revoked, unknown, used-up
 * or expired token, 403 for a client outside the method's trusted IPs.
 */
export function useAccessToken(app: DevApp, jwt: string, clientIp: string): AccessTokenRecord {
  const record = resolveToken(app, jwt, 'use');
  checkUsesAndTtl(app, record);
  const method = methodOf(app, record);
  if (!method || !app.state.identities[record.identityId]) {
    deleteToken(app, record.id);
    throw unauthorized('No identity access token found');
  }
  if (!clientAllowed(clientIp, method.accessTokenTrustedIps)) {
    throw forbidden('You are not allowed to access this resource from the current IP address');
  }
  record.accessTokenNumUses++;
  record.accessTokenLastUsedAt = app.iso();
  if (record.accessTokenNumUsesLimit > 0) app.changed();
  return record;
}

// Trusted-IP decisions per stored list (lists are replaced, never mutated, on update), so the
// range set is not rebuilt on every request.
const ipDecisions = new WeakMap<readonly TrustedIp[], Map<string, boolean>>();

function clientAllowed(clientIp: string, trusted: readonly TrustedIp[]): boolean {
  let decisions = ipDecisions.get(trusted);
  if (!decisions) {
    decisions = new Map();
    ipDecisions.set(trusted, decisions);
  }
  let allowed = decisions.get(clientIp);
  if (allowed === undefined) {
    allowed = ipAllowed(clientIp, trusted);
    if (decisions.size < 1000) decisions.set(clientIp, allowed);
  }
  return allowed;
}

const MAX_TTL_MESSAGE = 'Failed to renew MI access token due to Max TTL expiration';

/**
 * Renews a token: the use checks, then (for non-periodic tokens with a max TTL) refuses to
 * renew past creation + max TTL, deleting the token. Returns a new JWT for the same record.
 */
export function renewAccessToken(app: DevApp, jwt: string): TokenResponse {
  const record = resolveToken(app, jwt, 'renew');
  checkUsesAndTtl(app, record);
  const now = app.now();
  if (record.accessTokenPeriod === 0 && record.accessTokenMaxTTL > 0) {
    const hardLimit = Date.parse(record.createdAt) + record.accessTokenMaxTTL * 1000;
    if (now > hardLimit || now + record.accessTokenTTL * 1000 > hardLimit) {
      deleteToken(app, record.id);
      throw unauthorized(MAX_TTL_MESSAGE);
    }
  }
  record.accessTokenLastRenewedAt = new Date(now).toISOString();
  record.updatedAt = record.accessTokenLastRenewedAt;
  app.changed();
  return tokenResponse(record, signFor(app, record));
}

/** Revokes (deletes) the token behind `jwt`. */
export function revokeAccessToken(app: DevApp, jwt: string): void {
  const record = resolveToken(app, jwt, 'renew');
  deleteToken(app, record.id);
}

/** Deletes every token of `identityId` issued through `method` (on method revocation). */
export function deleteTokensOfMethod(app: DevApp, identityId: string, method: string): void {
  for (const token of Object.values(app.state.accessTokens)) {
    if (token.identityId === identityId && token.authMethod === method)
      delete app.state.accessTokens[token.id];
  }
  app.changed();
}
