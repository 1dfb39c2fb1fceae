// Asymmetric JWT verification and claim matching: the pieces the JWT and OIDC logins rely on.
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { claimAt, claimMatches, globMatches } from './claim-policy.ts';
import { decodeJws, publicKeyFrom, verifyJws } from './jws.ts';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const nowSeconds = NOW / 1000;

function part(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function signed(alg: string, key: KeyObject, claims: object): string {
  const input = `${part({ alg, typ: 'JWT' })}.${part(claims)}`;
  const hash = alg === 'EdDSA' ? null : `sha${alg.slice(2)}`;
  const signature = alg.startsWith('ES')
    ? sign(hash, Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' })
    : sign(hash, Buffer.from(input), key);
  return `${input}.${signature.toString('base64url')}`;
}

const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ed = generateKeyPairSync('ed25519');

function verify(token: string, key: KeyObject, issuer?: string): Record<string, unknown> {
  const jws = decodeJws(token);
  if (!jws) throw new Error('undecodable');
  return verifyJws(jws, key, { nowMs: NOW, ...(issuer ? { issuer } : {}) });
}

describe('verifyJws', () => {
  it.each([
    ['ES256', ec],
    ['RS256', rsa],
    ['EdDSA', ed],
  ] as const)('accepts %s signed by the key (PEM and JWK forms)', (alg, pair) => {
    const token = signed(alg, pair.privateKey, { sub: 'a', exp: nowSeconds + 60 });
    const pem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(verify(token, publicKeyFrom(pem)).sub).toBe('a');
    expect(verify(token, publicKeyFrom(pair.publicKey.export({ format: 'jwk' }))).sub).toBe('a');
  });

  it('answers the JWT library messages for each failure', () => {
    const good = signed('ES256', ec.privateKey, { iss: 'https://i', exp: nowSeconds + 60 });
    expect(() => verify(good, rsa.publicKey)).toThrow('invalid algorithm');
    expect(() => verify(good, generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey)).toThrow(
      'invalid signature',
    );
    expect(() => verify(signed('ES256', ec.privateKey, { exp: nowSeconds }), ec.publicKey)).toThrow(
      'jwt expired',
    );
    expect(() => verify(signed('ES256', ec.privateKey, { nbf: nowSeconds + 5 }), ec.publicKey)).toThrow(
      'jwt not active',
    );
    expect(() => verify(good, ec.publicKey, 'https://other')).toThrow(
      'jwt issuer invalid. expected: https://other',
    );
    const unsigned = `${part({ alg: 'none' })}.${part({ sub: 'a' })}.`;
    expect(() => verify(unsigned, ec.publicKey)).toThrow('jwt signature is required');
    expect(decodeJws('a.b')).toBeUndefined();
  });
});

describe('claim matching', () => {
  it('matches strings exactly or by glob, booleans, numbers and any entry of an array', () => {
    expect(globMatches('system:serviceaccount:apps:web', 'system:serviceaccount:apps:*')).toBe(true);
    expect(globMatches('repo:org/app/main', 'repo:org/*')).toBe(false);
    expect(globMatches('repo:org/app/main', 'repo:org/**')).toBe(true);
    expect(globMatches('a.b', 'a?b')).toBe(true);
    expect(globMatches('prod', '{dev,prod}')).toBe(true);
    expect(claimMatches(['x', 'coffer'], 'coffer')).toBe(true);
    expect(claimMatches(true, 'true')).toBe(true);
    expect(claimMatches(42, '42')).toBe(true);
    expect(claimMatches({ a: 1 }, '*')).toBe(false);
    expect(claimAt({ a: { b: 'c' } }, 'a.b')).toBe('c');
    expect(claimAt({ a: 'x' }, 'a.b')).toBeUndefined();
  });
});
