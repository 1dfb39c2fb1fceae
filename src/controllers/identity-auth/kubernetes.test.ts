import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { identityAuthSpec } from '../../api/v1alpha1/index.ts';
import type { KubernetesAuth } from '../../client/index.ts';
import { jwksToPem, type ClusterIdentity } from '../../runtime/cluster-identity.ts';
import { fakeServices, type FakeWorld } from '../testing.ts';
import { jwtKeysHash } from './binding.ts';
import { resolveClusterMaterial, reviewerJwtHash } from './cluster-material.ts';
import { kubernetesAttachBody, kubernetesDrift, kubernetesUpdateBody } from './kubernetes-fields.ts';
import { jwtBody, jwtDrift } from './method-fields.ts';

const base = { connectionRef: { name: 'c' }, identityRef: { name: 'app' } };
const spec = (extra: Record<string, unknown>) => identityAuthSpec.parse({ ...base, ...extra });
const check = (extra: Record<string, unknown>) => identityAuthSpec.safeParse({ ...base, ...extra });
const kubernetes = { allowedNamespaces: ['team-a'], allowedNames: ['app'], allowedAudience: 'coffer' };
const signal = new AbortController().signal;

function cluster(keys: string[] = ['KEY-1']): ClusterIdentity {
  return {
    apiServer: () => ({ url: 'https://10.96.0.1:443', caCert: 'CLUSTER-CA\n' }),
    serviceAccountIssuer: () =>
      Promise.resolve({ issuer: 'https://kubernetes.default.svc', publicKeys: keys }),
  };
}

function world(extra: Partial<FakeWorld> = {}): FakeWorld {
  return { objects: {}, secrets: {}, now: new Date(0), cluster: cluster(), ...extra };
}

const material = (w: FakeWorld, s: ReturnType<typeof spec>) =>
  resolveClusterMaterial(fakeServices({} as never, w), 'team-a', s, signal);

describe('IdentityAuth kubernetes schema', () => {
  it('requires the block, the allowed namespaces and names', () => {
    expect(check({ method: 'kubernetes' }).success).toBe(false);
    expect(check({ method: 'kubernetes', kubernetes: { allowedNames: ['app'] } }).success).toBe(false);
    expect(check({ method: 'kubernetes', kubernetes: { allowedNamespaces: ['a'] } }).success).toBe(false);
    expect(check({ method: 'kubernetes', kubernetes }).success).toBe(true);
    expect(check({ method: 'token', kubernetes }).success).toBe(false);
  });

  it('refuses two CA sources, a host the service would refuse and an invalid glob', () => {
    const both = { ...kubernetes, caCert: 'PEM', caCertConfigMapRef: { name: 'kube-root-ca.crt' } };
    expect(check({ method: 'kubernetes', kubernetes: both }).error?.issues[0]?.message).toBe(
      'kubernetes: set at most one of caCert and caCertConfigMapRef',
    );
    const host = { ...kubernetes, kubernetesHost: 'https://api_server:6443' };
    expect(check({ method: 'kubernetes', kubernetes: host }).success).toBe(false);
    const glob = { ...kubernetes, allowedNamespaces: ['Team A'] };
    expect(check({ method: 'kubernetes', kubernetes: glob }).success).toBe(false);
  });

  it('defaults the ConfigMap and Secret keys', () => {
    const s = spec({
      method: 'kubernetes',
      kubernetes: {
        ...kubernetes,
        caCertConfigMapRef: { name: 'kube-root-ca.crt' },
        tokenReviewerJwtSecretRef: { name: 'reviewer' },
      },
    });
    expect(s.kubernetes?.caCertConfigMapRef?.key).toBe('ca.crt');
    expect(s.kubernetes?.tokenReviewerJwtSecretRef?.key).toBe('token');
  });

  it('jwt.clusterIssuer stands alone: static keys and issuer come from the cluster', () => {
    expect(spec({ method: 'jwt', jwt: { clusterIssuer: {} } }).jwt?.configurationType).toBe('static');
    expect(check({ method: 'jwt', jwt: { clusterIssuer: {}, publicKeys: ['PEM'] } }).success).toBe(false);
    expect(check({ method: 'jwt', jwt: { clusterIssuer: {}, boundIssuer: 'x' } }).success).toBe(false);
    expect(check({ method: 'jwt', jwt: { clusterIssuer: {}, configurationType: 'jwks' } }).success).toBe(
      false,
    );
    expect(check({ method: 'jwt', jwt: {} }).success).toBe(false);
  });
});

describe('IdentityAuth kubernetes material and mapping', () => {
  it('defaults the host and CA to the operator’s own API server, no reviewer token', async () => {
    const s = spec({ method: 'kubernetes', kubernetes });
    const m = await material(world(), s);
    expect(m.kubernetes).toEqual({ kubernetesHost: 'https://10.96.0.1:443', caCert: 'CLUSTER-CA' });
    expect(kubernetesAttachBody(s, m)).toMatchObject({
      kubernetesHost: 'https://10.96.0.1:443',
      caCert: 'CLUSTER-CA',
      allowedNamespaces: 'team-a',
      allowedNames: 'app',
      allowedAudience: 'coffer',
    });
    expect(kubernetesAttachBody(s, m)).not.toHaveProperty('tokenReviewerJwt');
    // A PATCH removes a reviewer token stored before.
    expect(kubernetesUpdateBody(s, m)).toMatchObject({ tokenReviewerJwt: null });
    expect(reviewerJwtHash(m)).toBeUndefined();
  });

  it('reads the CA from a ConfigMap and the reviewer token from a Secret of the namespace', async () => {
    const s = spec({
      method: 'kubernetes',
      kubernetes: {
        ...kubernetes,
        kubernetesHost: 'https://api.example:6443',
        caCertConfigMapRef: { name: 'kube-root-ca.crt' },
        tokenReviewerJwtSecretRef: { name: 'reviewer' },
      },
    });
    const w = world({
      configMaps: { 'team-a/kube-root-ca.crt': { 'ca.crt': 'MAP-CA' } },
      secrets: { 'team-a/reviewer': { token: 'REVIEWER' } },
    });
    const m = await material(w, s);
    expect(m.kubernetes).toEqual({
      kubernetesHost: 'https://api.example:6443',
      caCert: 'MAP-CA',
      tokenReviewerJwt: 'REVIEWER',
    });
    expect(kubernetesUpdateBody(s, m)).toMatchObject({ tokenReviewerJwt: 'REVIEWER' });
    expect(reviewerJwtHash(m)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('waits with a precise reason for a missing Secret, key or ConfigMap', async () => {
    const withRefs = (extra: Record<string, unknown>) =>
      spec({ method: 'kubernetes', kubernetes: { ...kubernetes, ...extra } });
    const reviewer = withRefs({ tokenReviewerJwtSecretRef: { name: 'reviewer' } });
    await expect(material(world(), reviewer)).rejects.toMatchObject({ reason: 'SecretNotFound' });
    await expect(
      material(world({ secrets: { 'team-a/reviewer': { other: 'x' } } }), reviewer),
    ).rejects.toMatchObject({ reason: 'SecretKeyNotFound' });
    const ca = withRefs({ caCertConfigMapRef: { name: 'ca' } });
    await expect(material(world(), ca)).rejects.toMatchObject({ reason: 'ConfigMapNotFound' });
  });

  it('reports every field the service changed', async () => {
    const s = spec({ method: 'kubernetes', kubernetes });
    const m = await material(world(), s);
    const config = {
      id: 'cfg',
      identityId: 'i1',
      accessTokenTTL: 2592000,
      accessTokenMaxTTL: 2592000,
      accessTokenNumUsesLimit: 0,
      accessTokenTrustedIps: [],
      kubernetesHost: 'https://10.96.0.1:443/',
      caCert: 'CLUSTER-CA',
      allowedNamespaces: 'team-a',
      allowedNames: 'app',
      allowedAudience: 'coffer',
    } satisfies KubernetesAuth;
    expect(kubernetesDrift(s, m, config)).toEqual([]);
    const changed = {
      ...config,
      kubernetesHost: 'https://elsewhere:6443',
      caCert: '',
      allowedNamespaces: 'team-a, team-b',
      allowedNames: '',
      allowedAudience: '',
    };
    expect(kubernetesDrift(s, m, changed)).toEqual([
      'kubernetesHost',
      'caCert',
      'allowedNamespaces',
      'allowedNames',
      'allowedAudience',
    ]);
  });
});

describe('IdentityAuth jwt.clusterIssuer mapping', () => {
  it('sends the cluster’s keys and issuer; a rotated key changes the hash (drift)', async () => {
    const s = spec({ method: 'jwt', jwt: { clusterIssuer: {}, boundAudiences: ['coffer'] } });
    const before = await material(world(), s);
    expect(jwtBody(s, before)).toMatchObject({
      configurationType: 'static',
      publicKeys: ['KEY-1'],
      boundIssuer: 'https://kubernetes.default.svc',
      boundAudiences: 'coffer',
    });
    const rotated = await material(world({ cluster: cluster(['KEY-1', 'KEY-2']) }), s);
    expect(jwtKeysHash(s, rotated)).not.toBe(jwtKeysHash(s, before));
    const config = {
      id: 'cfg',
      identityId: 'i1',
      accessTokenTTL: 2592000,
      accessTokenMaxTTL: 2592000,
      accessTokenNumUsesLimit: 0,
      accessTokenTrustedIps: [],
      configurationType: 'static',
      boundIssuer: 'https://elsewhere',
      boundAudiences: 'coffer',
      boundClaims: {},
      boundSubject: '',
    };
    expect(jwtDrift(s, before, config)).toEqual(['boundIssuer']);
  });

  it('waits with ClusterUnreadable when the issuer cannot be read', async () => {
    const s = spec({ method: 'jwt', jwt: { clusterIssuer: {} } });
    const broken: ClusterIdentity = {
      ...cluster(),
      serviceAccountIssuer: () => Promise.reject(new Error('GET /openid/v1/jwks answered 403')),
    };
    await expect(material(world({ cluster: broken }), s)).rejects.toMatchObject({
      reason: 'ClusterUnreadable',
      message: expect.stringContaining('403') as unknown,
    });
  });

  it('turns a JWKS into sorted PEM keys and refuses one without usable keys', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const [pem] = jwksToPem({ keys: [jwk, { kty: 'unknown' }] });
    expect(pem).toBe(publicKey.export({ type: 'spki', format: 'pem' }).toString().trim());
    expect(() => jwksToPem({ keys: [{ kty: 'unknown' }] })).toThrow('no usable public key');
    expect(() => jwksToPem({})).toThrow('no keys list');
  });
});
