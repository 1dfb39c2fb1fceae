/**
 * Signature verification for the JWT-auth and OIDC-auth logins, as the service does it: static
 * PEM keys (every key tried), a JWKS URL (key by `kid`), or the JWKS named by the OIDC discovery
 * document (key by `kid`, or up to 10 keys tried when the token has none), fetched with the
 * configured CA. Failures are 401s with the service's "Access denied: …" messages.
 */
import type { KeyObject } from 'node:crypto';
import type { DevApp } from '../../app.ts';
import { decodeJws, JwsError, publicKeyFrom, verifyJws, type DecodedJws } from '../jws.ts';
import { describeFetchError, fetchJson } from '../outbound.ts';
import { unauthorized } from '../../domain/errors.ts';
import { configString } from './common-fields.ts';

type Config = Record<string, unknown>;

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

/** Verifies a JWT-auth login token with the static keys or the JWKS; returns its claims. */
export async function verifyJwtAuth(app: DevApp, config: Config, token: string): Promise<Config> {
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

/** Verifies an OIDC-auth login token through discovery and JWKS (issuer checked); returns its claims. */
export async function verifyOidcAuth(app: DevApp, config: Config, token: string): Promise<Config> {
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
