import { describe, expect, it } from 'vitest';
import { identityAuthSpec } from '../../api/v1alpha1/index.ts';
import type { AwsAuth, JwtAuth, UniversalAuth } from '../../client/index.ts';
import { jwtKeysHash } from './binding.ts';
import {
  awsBody,
  awsDrift,
  commonDrift,
  jwtBody,
  jwtDrift,
  oidcBody,
  tlsCertBody,
  universalDrift,
} from './method-fields.ts';

const spec = (extra: Record<string, unknown>) =>
  identityAuthSpec.parse({ connectionRef: { name: 'c' }, identityRef: { name: 'app' }, ...extra });

const common = {
  id: 'cfg',
  identityId: 'i1',
  accessTokenTTL: 2592000,
  accessTokenMaxTTL: 2592000,
  accessTokenNumUsesLimit: 0,
  accessTokenTrustedIps: [
    { ipAddress: '0.0.0.0', type: 'ipv4', prefix: 0 },
    { ipAddress: '::', type: 'ipv6', prefix: 0 },
  ],
};

describe('bodies', () => {
  it('TLS-cert auth sends null, not an empty string the service refuses, for no common names', () => {
    const caCertificate = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
    expect(tlsCertBody(spec({ method: 'tlsCert', tlsCert: { caCertificate } }))).toMatchObject({
      allowedCommonNames: null,
    });
    const named = tlsCertBody(
      spec({
        method: 'tlsCert',
        tlsCert: { caCertificate, allowedCommonNames: ['a.example.com', 'b.example.com'] },
      }),
    );
    expect(named.allowedCommonNames?.split(',').map((n) => n.trim())).toEqual([
      'a.example.com',
      'b.example.com',
    ]);
  });

  it('AWS always sends both list fields (an omitted one may be reset by the service)', () => {
    const body = awsBody(spec({ method: 'aws' }));
    expect(body).toMatchObject({
      stsEndpoint: 'https://sts.amazonaws.com/',
      allowedPrincipalArns: '',
      allowedAccountIds: '',
      accessTokenTrustedIps: [{ ipAddress: '0.0.0.0/0' }, { ipAddress: '::/0' }],
    });
    const listed = awsBody(
      spec({ method: 'aws', aws: { allowedAccountIds: ['123456789012', '210987654321'] } }),
    );
    expect(listed.allowedAccountIds).toBe('123456789012, 210987654321');
  });

  it('JWT sends the fields of its configuration type', () => {
    const jwks = jwtBody(
      spec({ method: 'jwt', jwt: { configurationType: 'jwks', jwksUrl: 'https://idp/jwks' } }),
    );
    expect(jwks).toMatchObject({
      configurationType: 'jwks',
      jwksUrl: 'https://idp/jwks',
      jwksCaCert: '',
      boundClaims: {},
    });
    expect(jwks).not.toHaveProperty('publicKeys');
    const stat = jwtBody(spec({ method: 'jwt', jwt: { configurationType: 'static', publicKeys: ['PEM'] } }));
    expect(stat).toMatchObject({ configurationType: 'static', publicKeys: ['PEM'] });
    expect(stat).not.toHaveProperty('jwksUrl');
  });

  it('OIDC joins audiences and defaults optional strings to empty', () => {
    const body = oidcBody(
      spec({
        method: 'oidc',
        oidc: { oidcDiscoveryUrl: 'https://idp', boundIssuer: 'https://idp', boundAudiences: ['a', 'b'] },
      }),
    );
    expect(body).toMatchObject({ boundAudiences: 'a, b', boundSubject: '', caCert: '', boundClaims: {} });
  });
});

describe('drift', () => {
  it.each([
    { reason: 'defaults as the service stores them', spec: {}, config: {}, drift: [] },
    {
      reason: 'TTL changed in the service',
      spec: {},
      config: { accessTokenTTL: 60 },
      drift: ['accessTokenTTL'],
    },
    {
      reason: 'trusted IPs narrowed in the service',
      spec: {},
      config: { accessTokenTrustedIps: [{ ipAddress: '10.0.0.0', prefix: 8 }] },
      drift: ['accessTokenTrustedIps'],
    },
    {
      reason: 'uses limit',
      spec: { accessTokenNumUsesLimit: 5 },
      config: {},
      drift: ['accessTokenNumUsesLimit'],
    },
  ])('common: $reason', ({ spec: s, config, drift }) => {
    expect(commonDrift(spec({ method: 'token', ...s }), { ...common, ...config })).toEqual(drift);
  });

  it('AWS compares the comma lists as sets', () => {
    const s = spec({ method: 'aws', aws: { allowedAccountIds: ['123456789012', '210987654321'] } });
    const config: AwsAuth = {
      ...common,
      stsEndpoint: 'https://sts.amazonaws.com/',
      allowedPrincipalArns: '',
      allowedAccountIds: '210987654321, 123456789012',
      accessTokenPeriod: 0,
    };
    expect(awsDrift(s, config)).toEqual([]);
    expect(awsDrift(s, { ...config, allowedAccountIds: '' })).toEqual(['allowedAccountIds']);
  });

  it('universal auth ignores lockout fields the service does not report', () => {
    const config: UniversalAuth = {
      ...common,
      clientId: 'cid',
      clientSecretTrustedIps: common.accessTokenTrustedIps,
      accessTokenPeriod: 0,
    };
    expect(universalDrift(spec({ method: 'universal' }), config)).toEqual([]);
    expect(universalDrift(spec({ method: 'universal' }), { ...config, lockoutThreshold: 9 })).toEqual([
      'lockoutThreshold',
    ]);
  });

  it('JWT compares claims semantically; key material is tracked by hash', () => {
    const s = spec({
      method: 'jwt',
      jwt: { configurationType: 'static', publicKeys: ['PEM'], boundClaims: { groups: 'a,b' } },
    });
    const config: JwtAuth = {
      ...common,
      configurationType: 'static',
      jwksUrl: '',
      boundIssuer: '',
      boundAudiences: '',
      boundClaims: { groups: 'b, a' },
      boundSubject: '',
      accessTokenPeriod: 0,
    };
    expect(jwtDrift(s, {}, config)).toEqual([]);
    expect(jwtDrift(s, {}, { ...config, configurationType: 'jwks' })).toEqual(['configurationType']);
    const other = spec({ method: 'jwt', jwt: { configurationType: 'static', publicKeys: ['OTHER'] } });
    expect(jwtKeysHash(s)).toMatch(/^[0-9a-f]{64}$/);
    expect(jwtKeysHash(other)).not.toBe(jwtKeysHash(s));
    expect(jwtKeysHash(spec({ method: 'token' }))).toBeUndefined();
  });
});
