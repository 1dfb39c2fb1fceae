import { describe, expect, it } from 'vitest';
import { clusterConnectionSpec, connectionSpec } from '../../api/v1alpha1/index.ts';
import type { ServiceAccountTokenService } from '../kind-services.ts';
import { serviceAccountCredentials, tokenSourceOf } from './service-account-credentials.ts';

const tokens: ServiceAccountTokenService = {
  request: () => Promise.resolve('requested'),
  readProjected: () => Promise.resolve('projected'),
  acceptedByApiServer: () => Promise.resolve(false),
};

const login = (serviceAccountToken: Record<string, unknown>) => ({ identityId: 'id-1', serviceAccountToken });

describe('tokenSourceOf', () => {
  it('a Connection’s serviceAccountRef is a ServiceAccount of its own namespace', () => {
    const spec = connectionSpec.parse({
      url: 'https://svc.test',
      auth: { kubernetes: login({ serviceAccountRef: { name: 'app', audiences: ['coffer'] } }) },
    });
    const auth = spec.auth.kubernetes;
    if (!auth) throw new Error('no kubernetes auth');
    expect(tokenSourceOf('kubernetes', auth, 'team-a', 'coffer-system')).toEqual({
      kind: 'serviceAccount',
      namespace: 'team-a',
      name: 'app',
      audiences: ['coffer'],
      expirationSeconds: 600,
    });
  });

  it('a ClusterConnection names the namespace', () => {
    const spec = clusterConnectionSpec.parse({
      url: 'https://svc.test',
      auth: {
        oidc: login({ serviceAccountRef: { name: 'app', namespace: 'team-b', audiences: ['a', 'b'] } }),
      },
      allowedNamespaces: { names: ['team-b'] },
    });
    const auth = spec.auth.oidc;
    if (!auth) throw new Error('no oidc auth');
    expect(tokenSourceOf('oidc', auth, undefined, undefined)).toMatchObject({
      namespace: 'team-b',
      name: 'app',
    });
  });

  it('the projected token: allowed on a ClusterConnection and in the operator’s namespace only', () => {
    const auth = {
      identityId: 'id-1',
      serviceAccountToken: { projected: { path: '/token', audience: 'vault' } },
    };
    const source = { kind: 'projected', path: '/token', audience: 'vault' };
    expect(tokenSourceOf('jwt', auth, undefined, undefined)).toEqual(source);
    expect(tokenSourceOf('jwt', auth, 'coffer-system', 'coffer-system')).toEqual(source);
    expect(() => tokenSourceOf('jwt', auth, 'team-a', 'coffer-system')).toThrow(
      'spec.auth.jwt.serviceAccountToken.projected is the operator’s own token: a Connection may use it only in ' +
        'the operator’s namespace (coffer-system), not in team-a',
    );
    // Operator namespace unknown: no Connection may use it.
    expect(() => tokenSourceOf('jwt', auth, 'coffer-system', undefined)).toThrow(/not in coffer-system/);
  });
});

describe('serviceAccountCredentials', () => {
  it('is undefined for token and universal auth; names the method and identity otherwise', () => {
    expect(
      serviceAccountCredentials({}, 'ns', {
        secrets: { read: () => Promise.resolve(undefined) },
        configMaps: { read: () => Promise.resolve(undefined) },
      }),
    ).toBeUndefined();
    const creds = serviceAccountCredentials(
      {
        oidc: login({
          serviceAccountRef: { name: 'app', audiences: ['coffer'], expirationSeconds: 600 },
        }),
      },
      'team-a',
      {
        secrets: { read: () => Promise.resolve(undefined) },
        configMaps: { read: () => Promise.resolve(undefined) },
        serviceAccountTokens: tokens,
      },
    );
    expect(creds).toMatchObject({ method: 'oidc', identityId: 'id-1' });
  });

  it('without a token service (no Kubernetes access), the login is refused as unavailable', () => {
    expect(() =>
      serviceAccountCredentials(
        {
          kubernetes: login({
            serviceAccountRef: { name: 'app', audiences: ['coffer'], expirationSeconds: 600 },
          }),
        },
        'team-a',
        {
          secrets: { read: () => Promise.resolve(undefined) },
          configMaps: { read: () => Promise.resolve(undefined) },
        },
      ),
    ).toThrow(expect.objectContaining({ problem: 'ServiceAccountTokenUnavailable' }));
  });
});

describe('schema', () => {
  const base = { url: 'https://svc.test' };

  it('Connection: exactly one auth method, exactly one token source, audiences 1..5, expiry 600..86400', () => {
    const parse = (auth: unknown) => connectionSpec.safeParse({ ...base, auth }).success;
    expect(parse({ jwt: login({ projected: {} }) })).toBe(true);
    expect(parse({ jwt: login({ projected: {} }), oidc: login({ projected: {} }) })).toBe(false);
    expect(parse({ jwt: login({}) })).toBe(false);
    expect(parse({ jwt: login({ projected: {}, serviceAccountRef: { name: 'a', audiences: ['x'] } }) })).toBe(
      false,
    );
    const ref = (extra: Record<string, unknown>) =>
      parse({ kubernetes: login({ serviceAccountRef: { name: 'a', ...extra } }) });
    expect(ref({ audiences: ['x'] })).toBe(true);
    expect(ref({})).toBe(false);
    expect(ref({ audiences: [] })).toBe(false);
    expect(ref({ audiences: ['1', '2', '3', '4', '5', '6'] })).toBe(false);
    expect(ref({ audiences: ['x', 'x'] })).toBe(false);
    expect(ref({ audiences: ['x'], expirationSeconds: 599 })).toBe(false);
    expect(ref({ audiences: ['x'], expirationSeconds: 86401 })).toBe(false);
    expect(ref({ audiences: ['x'], expirationSeconds: 86400 })).toBe(true);
  });

  it.each([
    ['relative', 'token', false],
    ['with a .. segment', '/var/run/secrets/coffer.dev/serviceaccount/../../../../proc/self/environ', false],
    ['ending in ..', '/var/run/secrets/coffer.dev/..', false],
    ['with a . segment', '/var/run/secrets/./token', false],
    ['with an empty segment', '/var/run//token', false],
    ['with a trailing slash', '/var/run/secrets/', false],
    [
      'the kubelet’s ..data link (a name starting with ..)',
      '/var/run/secrets/coffer.dev/serviceaccount/..data/token',
      true,
    ],
    ['absolute and normalized', '/proc/self/environ', true],
  ])('projected.path %s: accepted %s', (_what, path, ok) => {
    const parsed = connectionSpec.safeParse({ ...base, auth: { jwt: login({ projected: { path } }) } });
    expect(parsed.success).toBe(ok);
  });

  it('defaults: the projected path and audience coffer (the chart’s) and a 600 s expiry', () => {
    const spec = connectionSpec.parse({
      ...base,
      auth: { kubernetes: login({ projected: {} }) },
    });
    expect(spec.auth.kubernetes?.serviceAccountToken.projected).toEqual({
      path: '/var/run/secrets/coffer.dev/serviceaccount/token',
      audience: 'coffer',
    });
    const withRef = connectionSpec.parse({
      ...base,
      auth: { kubernetes: login({ serviceAccountRef: { name: 'a', audiences: ['x'] } }) },
    });
    expect(withRef.auth.kubernetes?.serviceAccountToken.serviceAccountRef?.expirationSeconds).toBe(600);
  });

  it('a Connection’s ref has no namespace (another namespace cannot be named); a ClusterConnection’s requires one', () => {
    const parsed = connectionSpec.parse({
      ...base,
      auth: { jwt: login({ serviceAccountRef: { name: 'a', namespace: 'other', audiences: ['x'] } }) },
    });
    expect(parsed.auth.jwt?.serviceAccountToken.serviceAccountRef).not.toHaveProperty('namespace');
    const cluster = (ref: Record<string, unknown>) =>
      clusterConnectionSpec.safeParse({
        ...base,
        auth: { jwt: login({ serviceAccountRef: ref }) },
        allowedNamespaces: { names: ['a'] },
      }).success;
    expect(cluster({ name: 'a', audiences: ['x'] })).toBe(false);
    expect(cluster({ name: 'a', namespace: 'team-a', audiences: ['x'] })).toBe(true);
  });
});
