import { describe, expect, it } from 'vitest';
import type { ConfigMapSource, SecretSource } from '../kind-services.ts';
import {
  configMapKeyRefs,
  MissingCredentialsError,
  readCredentials,
  secretKeyRefs,
  type ConnectionSettings,
} from './credentials.ts';

function source(objects: Record<string, Record<string, string>>): SecretSource & ConfigMapSource {
  return { read: (namespace, name) => Promise.resolve(objects[`${namespace}/${name}`]) };
}

const tokenSettings: ConnectionSettings = {
  url: 'https://svc.example',
  auth: { token: { secretRef: { name: 'creds', key: 'token' } } },
};

describe('readCredentials', () => {
  it('reads a token from the own namespace and trims it', async () => {
    const secrets = source({ 'team-a/creds': { token: ' tok-1\n' } });
    const creds = await readCredentials(tokenSettings, 'team-a', { secrets, configMaps: source({}) });
    expect(creds).toEqual({ auth: { method: 'token', token: 'tok-1' } });
  });

  it('reads universal auth and a CA from a ConfigMap in explicit namespaces', async () => {
    const settings: ConnectionSettings = {
      url: 'https://svc.example',
      tls: {
        caBundleConfigMapRef: { name: 'ca', key: 'ca.crt', namespace: 'infra' },
        insecureSkipVerify: false,
      },
      auth: {
        universalAuth: {
          clientIdSecretRef: { name: 'ua', key: 'id', namespace: 'infra' },
          clientSecretSecretRef: { name: 'ua', key: 'secret', namespace: 'infra' },
        },
      },
    };
    const secrets = source({ 'infra/ua': { id: 'client-id', secret: 'client-secret' } });
    const configMaps = source({ 'infra/ca': { 'ca.crt': 'PEM' } });
    const creds = await readCredentials(settings, undefined, { secrets, configMaps });
    expect(creds).toEqual({
      auth: { method: 'universalAuth', clientId: 'client-id', clientSecret: 'client-secret' },
      tls: { ca: 'PEM', rejectUnauthorized: true },
    });
    expect(secretKeyRefs(settings, undefined).map((r) => `${r.namespace}/${r.name}/${r.key}`)).toEqual([
      'infra/ua/id',
      'infra/ua/secret',
    ]);
    expect(configMapKeyRefs(settings, undefined)).toEqual([
      { name: 'ca', key: 'ca.crt', namespace: 'infra' },
    ]);
  });

  it('turns insecureSkipVerify into rejectUnauthorized: false', async () => {
    const settings = { ...tokenSettings, tls: { insecureSkipVerify: true } };
    const secrets = source({ 'ns/creds': { token: 't' } });
    const creds = await readCredentials(settings, 'ns', { secrets, configMaps: source({}) });
    expect(creds.tls).toEqual({ rejectUnauthorized: false });
  });

  it.each([
    ['a missing Secret', {}, 'Secret ns/creds does not exist'],
    ['a missing key', { 'ns/creds': { other: 'x' } }, 'Secret ns/creds has no key token'],
    ['an empty value', { 'ns/creds': { token: '  ' } }, 'Secret ns/creds has no key token'],
  ])('reports %s without any value', async (_reason, objects, message) => {
    const error = await readCredentials(tokenSettings, 'ns', {
      secrets: source(objects),
      configMaps: source({}),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingCredentialsError);
    expect((error as Error).message).toBe(message);
  });
});
