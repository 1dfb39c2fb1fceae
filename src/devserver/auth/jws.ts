/**
 * Verification of asymmetrically signed JSON Web Tokens (RS*, PS*, ES*, EdDSA) on node:crypto,
 * for the JWT, OIDC logins. Failures throw {@link JwsError} whose messages are the ones the
 * service's JWT library produces ("jwt malformed", "invalid signature", "jwt expired", ...), so
 * login errors read as the service's `Access denied: <message>`. Messages never contain the token.
 */
import { constants, createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';

/** A verification failure; `message` is safe to return to the caller. */
export class JwsError extends Error {
  override readonly name = 'JwsError';
}

/** The decoded, not yet verified parts of a compact JWS. */
export interface DecodedJws {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  signingInput: string;
  signature: Buffer;
}

function decodeJson(part: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Splits and decodes `token`; undefined when it is not a compact JWS with JSON header and claims. */
export function decodeJws(token: string): DecodedJws | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [h = '', p = '', s = ''] = parts;
  const header = decodeJson(h);
  const claims = decodeJson(p);
  if (!header || !claims) return undefined;
  return { header, claims, signingInput: `${h}.${p}`, signature: Buffer.from(s, 'base64url') };
}

/** A public key from a PEM string or a JWK object. */
export function publicKeyFrom(key: string | JsonWebKey): KeyObject {
  return typeof key === 'string' ? createPublicKey(key) : createPublicKey({ key, format: 'jwk' });
}

const HASHES: Record<string, string> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' };

function signatureMatches(alg: string, key: KeyObject, jws: DecodedJws): boolean {
  const data = Buffer.from(jws.signingInput);
  const family = alg.slice(0, 2);
  const hash = HASHES[alg.slice(2)];
  if (alg === 'EdDSA')
    return key.asymmetricKeyType?.startsWith('ed') === true && verify(null, data, key, jws.signature);
  if (!hash) throw new JwsError('invalid algorithm');
  if (family === 'RS' && key.asymmetricKeyType === 'rsa') return verify(hash, data, key, jws.signature);
  if (family === 'PS' && (key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'rsa-pss')) {
    return verify(
      hash,
      data,
      { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
      jws.signature,
    );
  }
  if (family === 'ES' && key.asymmetricKeyType === 'ec') {
    return verify(hash, data, { key, dsaEncoding: 'ieee-p1363' }, jws.signature);
  }
  throw new JwsError('invalid algorithm');
}

/** Options of {@link verifyJws}. */
export interface VerifyOptions {
  /** The current time in ms. */
  nowMs: number;
  /** When set, the `iss` claim must equal it. */
  issuer?: string;
}

function checkTimes(claims: Record<string, unknown>, nowMs: number): void {
  const nowSeconds = Math.floor(nowMs / 1000);
  if (claims.exp !== undefined) {
    if (typeof claims.exp !== 'number') throw new JwsError('invalid exp value');
    if (nowSeconds >= claims.exp) throw new JwsError('jwt expired');
  }
  if (claims.nbf !== undefined) {
    if (typeof claims.nbf !== 'number') throw new JwsError('invalid nbf value');
    if (nowSeconds < claims.nbf) throw new JwsError('jwt not active');
  }
}

function checkSignature(jws: DecodedJws, key: KeyObject): void {
  const alg = typeof jws.header.alg === 'string' ? jws.header.alg : '';
  if (!alg || alg === 'none') throw new JwsError('jwt signature is required');
  if (alg.startsWith('HS')) throw new JwsError('invalid algorithm');
  let ok: boolean;
  try {
    ok = signatureMatches(alg, key, jws);
  } catch (error) {
    if (error instanceof JwsError) throw error;
    ok = false;
  }
  if (!ok) throw new JwsError('invalid signature');
}

/**
 * Verifies `jws` with `key`: algorithm matching the key type (`none` and HMAC refused), signature,
 * `exp`, `nbf`, and the issuer when asked. Returns the claims; throws {@link JwsError}.
 */
export function verifyJws(jws: DecodedJws, key: KeyObject, options: VerifyOptions): Record<string, unknown> {
  checkSignature(jws, key);
  checkTimes(jws.claims, options.nowMs);
  if (options.issuer !== undefined && jws.claims.iss !== options.issuer) {
    throw new JwsError(`jwt issuer invalid. expected: ${options.issuer}`);
  }
  return jws.claims;
}
