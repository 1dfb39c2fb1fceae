import { describe, expect, it } from 'vitest';
import { integrationSpec, type IntegrationSpec } from '../../api/v1alpha1/index.ts';
import { WaitingError } from '../../runtime/errors.ts';
import { managed } from '../project/testing.ts';
import { authRequest, credentialsHash, readCredentials, referencedSecrets } from './credentials.ts';

const spec = (auth: Record<string, unknown> = {}) =>
  integrationSpec.parse({
    connectionRef: { name: 'c' },
    projectRef: { name: 'p' },
    integration: 'aws-secret-manager',
    environment: 'prod',
    auth: {
      accessIdSecretRef: { name: 'aws', key: 'id' },
      accessTokenSecretRef: { name: 'aws', key: 'secret' },
      ...auth,
    },
  });

const obj = (s: IntegrationSpec, name = 'sync') => managed('Integration', name, s);
const source = (secrets: Record<string, Record<string, string>>) => ({
  read: (ns: string, name: string) => Promise.resolve(secrets[`${ns}/${name}`]),
});

describe('referencedSecrets', () => {
  it('lists each Secret once, in the resource namespace', () => {
    const s = spec({ refreshTokenSecretRef: { name: 'refresh', key: 'token' } });
    expect(referencedSecrets(obj(s))).toEqual([
      { name: 'aws', namespace: 'ns' },
      { name: 'refresh', namespace: 'ns' },
    ]);
  });
});

describe('readCredentials', () => {
  it('reads the keys, with the refresh token when referenced', async () => {
    const secrets = { 'ns/aws': { id: 'AKIA1', secret: 's3cr3t' }, 'ns/r': { t: 'refresh-value' } };
    expect(await readCredentials(source(secrets), obj(spec()))).toEqual({
      accessId: 'AKIA1',
      accessToken: 's3cr3t',
    });
    const withRefresh = spec({ refreshTokenSecretRef: { name: 'r', key: 't' } });
    expect((await readCredentials(source(secrets), obj(withRefresh))).refreshToken).toBe('refresh-value');
  });

  it('waits for a missing Secret or key without naming any value', async () => {
    const none: unknown = await readCredentials(source({}), obj(spec())).catch((e: unknown) => e);
    expect(none).toBeInstanceOf(WaitingError);
    expect(none).toMatchObject({ reason: 'SecretNotFound' });
    const partial = source({ 'ns/aws': { id: 'AKIA1', other: 'hidden-value' } });
    const missingKey: unknown = await readCredentials(partial, obj(spec())).catch((e: unknown) => e);
    expect(missingKey).toMatchObject({ reason: 'SecretKeyNotFound' });
    expect(String(missingKey)).toContain('key secret of Secret ns/aws');
    expect(String(missingKey)).not.toContain('hidden-value');
    expect(String(missingKey)).not.toContain('AKIA1');
  });
});

describe('authRequest', () => {
  it('sends the credentials and the optional auth settings that are set', () => {
    const s = spec({ url: 'https://vault.example.com', namespace: 'team' });
    expect(authRequest(s, 'p1', { accessId: 'a', accessToken: 'b', refreshToken: 'c' })).toEqual({
      workspaceId: 'p1',
      integration: 'aws-secret-manager',
      accessId: 'a',
      accessToken: 'b',
      refreshToken: 'c',
      url: 'https://vault.example.com',
      namespace: 'team',
    });
  });
});

describe('credentialsHash', () => {
  const credentials = { accessId: 'AKIA1', accessToken: 's3cr3t' };

  it('is stable, keyed per resource, and changes with any input', () => {
    const base = credentialsHash(obj(spec()), credentials);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(credentialsHash(obj(spec()), { ...credentials })).toBe(base);
    expect(credentialsHash(obj(spec(), 'other'), credentials)).not.toBe(base);
    expect(credentialsHash(obj(spec()), { ...credentials, accessToken: 's3cr3t2' })).not.toBe(base);
    expect(credentialsHash(obj(spec()), { ...credentials, refreshToken: '' })).not.toBe(base);
    expect(credentialsHash(obj(spec({ namespace: 'team' })), credentials)).not.toBe(base);
  });
});
