/**
 * Minimal HS256 JSON Web Tokens on node:crypto, enough for the service's identity access
 * tokens. Verification failures map to the service's 403 `TokenError` messages.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { tokenError } from '../http/errors.ts';

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/** Claims of an identity access token. `exp`/`iat` are seconds since the epoch. */
export interface AccessTokenClaims {
  identityId: string;
  identityAccessTokenId: string;
  authTokenType: string;
  iat: number;
  exp?: number;
}

function sign(input: string, secret: string): string {
  return createHmac('sha256', secret).update(input).digest('base64url');
}

/** Signs `claims` with `secret`; a claim set without `exp` never expires. */
export function signJwt(claims: AccessTokenClaims, secret: string): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const input = `${HEADER}.${payload}`;
  return `${input}.${sign(input, secret)}`;
}

const MALFORMED =
  'The provided access token is malformed. Please use a valid token or generate a new one and try again.';

function decodePart(part: string): Record<string, unknown> {
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Falls through to the malformed-token error below.
  }
  throw tokenError(MALFORMED);
}

/**
 * Verifies signature, algorithm and expiry at `nowMs`, and returns the claims.
 * Throws 403 `TokenError` with the service's messages on any failure.
 */
export function verifyJwt(token: string, secret: string, nowMs: number): Record<string, unknown> {
  const cached = verified.get(secret)?.get(token);
  if (cached) {
    checkExpiry(cached, nowMs);
    return cached;
  }
  const claims = verifyUncached(token, secret);
  checkExpiry(claims, nowMs);
  remember(secret, token, claims);
  return claims;
}

// Tokens whose signature was verified, per signing key: a hit skips decoding and the HMAC
// (expiry is still checked on every use). Bounded; cleared when full.
const verified = new Map<string, Map<string, Record<string, unknown>>>();
const CACHE_LIMIT = 10_000;

function remember(secret: string, token: string, claims: Record<string, unknown>): void {
  let bySecret = verified.get(secret);
  if (!bySecret) {
    if (verified.size >= 100) verified.clear();
    bySecret = new Map();
    verified.set(secret, bySecret);
  }
  if (bySecret.size >= CACHE_LIMIT) bySecret.clear();
  bySecret.set(token, claims);
}

function checkExpiry(claims: Record<string, unknown>, nowMs: number): void {
  if (typeof claims.exp === 'number' && claims.exp * 1000 <= nowMs) {
    throw tokenError('Your token has expired. Please re-authenticate.');
  }
}

function verifyUncached(token: string, secret: string): Record<string, unknown> {
  const parts = token.split('.');
  if (parts.length !== 3) throw tokenError(MALFORMED);
  const [headerPart = '', payloadPart = '', signature = ''] = parts;
  const header = decodePart(headerPart);
  const claims = decodePart(payloadPart);
  if (header.alg !== 'HS256') {
    throw tokenError(
      'The provided access token uses an unsupported signing algorithm. Please use a valid token.',
    );
  }
  const expected = Buffer.from(sign(`${headerPart}.${payloadPart}`, secret));
  const actual = Buffer.from(signature);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
    throw tokenError('The provided access token is invalid. Please use a valid token or generate a new one.');
  }
  return claims;
}
