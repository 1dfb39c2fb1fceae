import { describe, expect, it } from 'vitest';
import type { ServiceAccountTokenService } from '../kind-services.ts';
import {
  jwtLifetime,
  projectedRereadMs,
  refreshTime,
  ServiceAccountTokenError,
  serviceAccountTokenSupplier,
  type TokenSource,
} from './service-account-token.ts';

const T0 = 1_700_000_000_000;

const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** A JWT for audience coffer with the given claims and a dummy signature (the supplier never verifies). */
function jwt(claims: Record<string, unknown>, tag = ''): string {
  return `${part({ alg: 'RS256' })}.${part({ aud: ['coffer'], ...claims, tag })}.sig`;
}

/** A token valid for `seconds` from `issuedAtMs`. */
const tokenAt = (issuedAtMs: number, seconds: number, tag = '') =>
  jwt({ iat: issuedAtMs / 1000, exp: issuedAtMs / 1000 + seconds }, tag);

interface Fake extends ServiceAccountTokenService {
  requests: number;
  reads: number;
  reviews: string[];
}

/** TokenRequest hands out `next()`; the API server accepts the tokens in `apiServerAccepts`. */
function fakeTokens(next: () => string, apiServerAccepts = new Set<string>()): Fake {
  const fake: Fake = {
    requests: 0,
    reads: 0,
    reviews: [],
    request: () => {
      fake.requests += 1;
      return Promise.resolve(next());
    },
    readProjected: () => {
      fake.reads += 1;
      return Promise.resolve(`${next()}\n`);
    },
    acceptedByApiServer: (token) => {
      fake.reviews.push(token);
      return Promise.resolve(apiServerAccepts.has(token));
    },
  };
  return fake;
}

const requested: TokenSource = {
  kind: 'serviceAccount',
  namespace: 'team-a',
  name: 'app',
  audiences: ['coffer'],
  expirationSeconds: 600,
};
const projectedPath = '/var/run/secrets/coffer.dev/serviceaccount/token';
const projected: TokenSource = { kind: 'projected', path: projectedPath, audience: 'coffer' };

describe('jwtLifetime and refreshTime', () => {
  it('read iat and exp without verifying; refresh at 80% of the lifetime', () => {
    const token = tokenAt(T0, 600);
    expect(jwtLifetime(token)).toEqual({ issuedAt: T0, expiresAt: T0 + 600_000 });
    expect(refreshTime(token, T0 + 1_000)).toBe(T0 + 480_000);
  });

  it('keep a token already past 80% for 10 s at most (never past its exp), an exp-less one for a minute', () => {
    expect(refreshTime(tokenAt(T0, 600), T0 + 590_000)).toBe(T0 + 600_000);
    expect(refreshTime(tokenAt(T0, 600), T0 + 500_000)).toBe(T0 + 510_000);
    expect(refreshTime('not-a-jwt', T0)).toBe(T0 + 60_000);
    expect(jwtLifetime('a.%%%.c')).toEqual({});
  });
});

describe('serviceAccountTokenSupplier', () => {
  it('keeps a requested token until 80% of its lifetime, then requests a new one', async () => {
    let now = T0;
    let n = 0;
    const tokens = fakeTokens(() => tokenAt(now, 600, `t${++n}`));
    const supply = serviceAccountTokenSupplier(requested, tokens, () => now);
    const first = await supply();
    now = T0 + 479_000;
    expect(await supply()).toBe(first);
    expect(tokens.requests).toBe(1);
    now = T0 + 481_000;
    const second = await supply();
    expect(second).not.toBe(first);
    expect(tokens.requests).toBe(2);
  });

  it('fetches anew when asked for a fresh token (after a login 401), even before 80%', async () => {
    let n = 0;
    const tokens = fakeTokens(() => tokenAt(T0, 600, `t${++n}`));
    const supply = serviceAccountTokenSupplier(requested, tokens, () => T0);
    const first = await supply();
    const fresh = await supply({ fresh: true });
    expect(fresh).not.toBe(first);
    expect(tokens.requests).toBe(2);
    expect(await supply()).toBe(fresh);
  });

  it('single flight: concurrent callers share one TokenRequest and one review', async () => {
    const tokens = fakeTokens(() => tokenAt(T0, 600));
    const supply = serviceAccountTokenSupplier(requested, tokens, () => T0);
    const all = await Promise.all(Array.from({ length: 5 }, () => supply()));
    expect(new Set(all).size).toBe(1);
    expect(tokens.requests).toBe(1);
    expect(tokens.reviews).toHaveLength(1);
  });

  it('re-reads a projected file (trimmed) and reviews a token only when it changed', async () => {
    let now = T0;
    let current = tokenAt(T0, 600, 'a');
    const tokens = fakeTokens(() => current);
    const supply = serviceAccountTokenSupplier(projected, tokens, () => now);
    expect(await supply()).toBe(current);
    expect(await supply({ fresh: true })).toBe(current); // not rotated yet: no second review
    expect(tokens.reads).toBe(2);
    expect(tokens.reviews).toHaveLength(1);
    now = T0 + 100_000;
    current = tokenAt(now, 600, 'b');
    expect(await supply({ fresh: true })).toBe(current);
    expect(tokens.reviews).toHaveLength(2);
  });

  it('re-reads a projected file every 5 minutes even when its token lives much longer', async () => {
    let now = T0;
    const tokens = fakeTokens(() => tokenAt(T0, 365 * 86_400));
    const supply = serviceAccountTokenSupplier(projected, tokens, () => now);
    await supply();
    now = T0 + projectedRereadMs - 1;
    await supply();
    expect(tokens.reads).toBe(1);
    now = T0 + projectedRereadMs;
    await supply();
    expect(tokens.reads).toBe(2);
    expect(tokens.reviews).toHaveLength(1); // the same token: reviewed once
  });

  it('refuses a token the API server itself accepts (AudienceNotAllowed), without the token in the error', async () => {
    const token = tokenAt(T0, 600, 'deputy');
    const tokens = fakeTokens(() => token, new Set([token]));
    const supply = serviceAccountTokenSupplier(requested, tokens, () => T0);
    const error = await supply().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceAccountTokenError);
    expect(error).toMatchObject({ problem: 'AudienceNotAllowed' });
    expect((error as Error).message).toContain(
      'ServiceAccount team-a/app is accepted by the Kubernetes API server',
    );
    expect((error as Error).message).not.toContain(token);
    expect(JSON.stringify(error)).not.toContain(token);
  });

  it('refuses an expired token (a projected file the kubelet stopped rotating) and an empty file', async () => {
    const stale = serviceAccountTokenSupplier(
      projected,
      fakeTokens(() => tokenAt(T0 - 700_000, 600)),
      () => T0,
    );
    const error = await stale().catch((e: unknown) => e);
    expect(error).toMatchObject({ problem: 'ServiceAccountTokenUnavailable' });
    expect((error as Error).message).toMatch(/expired at .* \(is the kubelet still rotating it\?\)$/);
    const empty = serviceAccountTokenSupplier(
      projected,
      fakeTokens(() => '  '),
      () => T0,
    );
    await expect(empty()).rejects.toThrow(`projected token file ${projectedPath} is empty`);
  });

  it.each([
    ['not a JWT', 'CANARY=secret-value', 'it is not three base64url parts separated by dots'],
    ['a header without alg', `${part({ typ: 'JWT' })}.${part({ aud: 'coffer' })}.sig`, 'its header'],
    ['a header that is not JSON', `Q0FOQVJZ.${part({ aud: 'coffer' })}.sig`, 'its header'],
    ['a payload that is a list', `${part({ alg: 'RS256' })}.${part(['coffer'])}.sig`, 'its payload'],
    ['an aud of numbers', `${part({ alg: 'RS256' })}.${part({ aud: [1] })}.sig`, 'its payload'],
  ])(
    'refuses a projected file holding %s (InvalidTokenFile) before any review, naming no content',
    async (_what, content, rule) => {
      const tokens = fakeTokens(() => content);
      const error = await serviceAccountTokenSupplier(projected, tokens, () => T0)().catch((e: unknown) => e);
      expect(error).toMatchObject({ problem: 'InvalidTokenFile' });
      expect((error as Error).message).toContain(
        `projected token file ${projectedPath} does not hold a JWT (${rule}`,
      );
      expect((error as Error).message).not.toMatch(/CANARY|secret-value|Q0FOQVJZ/);
      expect(tokens.reviews).toEqual([]);
    },
  );

  it('refuses a projected JWT without the audience the connection asks for (TokenAudienceMismatch)', async () => {
    for (const aud of [['elsewhere'], 'elsewhere', undefined]) {
      const token = `${part({ alg: 'RS256' })}.${part({ aud, exp: T0 / 1000 + 600 })}.sig`;
      const tokens = fakeTokens(() => token);
      const error = await serviceAccountTokenSupplier(projected, tokens, () => T0)().catch((e: unknown) => e);
      expect(error).toMatchObject({ problem: 'TokenAudienceMismatch' });
      expect((error as Error).message).toMatch(
        /^the token of projected token file \S+ is not for audience coffer /,
      );
      expect((error as Error).message).not.toContain('elsewhere');
      expect(tokens.reviews).toEqual([]);
    }
  });

  it('accepts a projected JWT whose aud is a string or a list including the audience asked for', async () => {
    for (const aud of ['vault', ['coffer-x', 'vault']]) {
      const token = `${part({ alg: 'RS256' })}.${part({ aud, exp: T0 / 1000 + 600 })}.sig`;
      const supply = serviceAccountTokenSupplier(
        { ...projected, audience: 'vault' },
        fakeTokens(() => token),
        () => T0,
      );
      expect(await supply()).toBe(token);
    }
  });

  it('passes the service’s failure through and tries again on the next call', async () => {
    let fail = true;
    const tokens = fakeTokens(() => tokenAt(T0, 600));
    tokens.request = () =>
      fail
        ? Promise.reject(
            new ServiceAccountTokenError('ServiceAccountTokenUnavailable', 'no such ServiceAccount'),
          )
        : Promise.resolve(tokenAt(T0, 600));
    const supply = serviceAccountTokenSupplier(requested, tokens, () => T0);
    await expect(supply()).rejects.toThrow('no such ServiceAccount');
    fail = false;
    await expect(supply()).resolves.toMatch(/^eyJ/);
  });
});
