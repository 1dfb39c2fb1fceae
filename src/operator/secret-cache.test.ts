import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../runtime/informer.ts';
import { ANNOTATION_DATA_HASH, LABEL_MANAGED_BY } from '../runtime/object-meta.ts';
import { dataHash, type SecretWriter } from '../runtime/secret-writer.ts';
import { cachedSecretWriter } from './cached-secret-writer.ts';
import {
  apiConfigMapSource,
  apiSecretSource,
  payloadChanged,
  slimConfigMap,
  slimSecret,
  type ObjectGet,
  type PayloadMeta,
} from './secret-cache.ts';

const b64 = (text: string) => Buffer.from(text).toString('base64');

function wireSecret(data: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'creds',
      namespace: 'ns',
      resourceVersion: '7',
      annotations: {
        'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ data }),
        keep: 'me',
      },
      managedFields: [{ manager: 'kubectl' }],
    },
    ...extra,
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  } as KubeObject;
}

describe('slimSecret', () => {
  it('keeps metadata, type and the hash of the decoded data, and no value anywhere', () => {
    const slim = slimSecret(wireSecret({ token: 'super-secret-value' }, { type: 'Opaque' }));
    expect(slim).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds', namespace: 'ns', resourceVersion: '7', annotations: { keep: 'me' } },
      type: 'Opaque',
      dataHash: dataHash({ token: 'super-secret-value' }),
    });
    expect(JSON.stringify(slim)).not.toContain('super-secret-value');
    expect(JSON.stringify(slim)).not.toContain(b64('super-secret-value'));
  });

  it('hashes ConfigMap data and binaryData apart', () => {
    const text = slimConfigMap({ metadata: { name: 'a' }, data: { k: 'v' } } as KubeObject);
    const binary = slimConfigMap({ metadata: { name: 'a' }, binaryData: { k: 'v' } } as KubeObject);
    expect(text.dataHash).not.toBe(binary.dataHash);
  });
});

describe('payloadChanged', () => {
  const base = slimSecret(wireSecret({ a: '1' }));
  it.each<[string, PayloadMeta, boolean]>([
    [
      'same content, new resourceVersion',
      { ...base, metadata: { ...base.metadata, resourceVersion: '8' } },
      false,
    ],
    ['data changed', slimSecret(wireSecret({ a: '2' })), true],
    ['labels changed', { ...base, metadata: { ...base.metadata, labels: { x: 'y' } } }, true],
    ['owner changed', { ...base, metadata: { ...base.metadata, ownerReferences: [] } }, true],
  ])('%s → %s', (_reason, updated, expected) => {
    expect(payloadChanged(updated, base)).toBe(expected);
  });
});

describe('cachedSecretWriter', () => {
  const owner = {
    apiVersion: 'coffer.dev/v1alpha1',
    kind: 'Project',
    metadata: { name: 'p', namespace: 'ns', uid: 'u1' },
  };
  const data = { id: '42' };
  const current: PayloadMeta = {
    metadata: {
      name: 'out',
      namespace: 'ns',
      labels: { [LABEL_MANAGED_BY]: 'coffer' },
      annotations: { [ANNOTATION_DATA_HASH]: dataHash(data) },
      ownerReferences: [
        { apiVersion: 'coffer.dev/v1alpha1', kind: 'Project', name: 'p', uid: 'u1', controller: true },
      ],
    },
    type: 'Opaque',
    dataHash: dataHash(data),
  };

  function writerWith(cached: PayloadMeta | undefined) {
    const calls: string[] = [];
    const inner: SecretWriter = {
      write: (_owner, output) => {
        calls.push(output.name);
        return Promise.resolve('updated');
      },
    };
    return { calls, writer: cachedSecretWriter(inner, { get: () => cached }) };
  }

  it('answers unchanged from the cache for an up-to-date owned Secret', async () => {
    const { calls, writer } = writerWith(current);
    expect(await writer.write(owner, { name: 'out', data })).toBe('unchanged');
    expect(calls).toEqual([]);
  });

  it.each<[string, PayloadMeta | undefined]>([
    ['missing from the cache', undefined],
    ['edited by hand (data hash differs)', { ...current, dataHash: dataHash({ id: 'tampered' }) }],
    ['owned by another object', { ...current, metadata: { ...current.metadata, ownerReferences: [] } }],
    ['of another type', { ...current, type: 'kubernetes.io/tls' }],
  ])('defers to the real writer when %s', async (_reason, cached) => {
    const { calls, writer } = writerWith(cached);
    expect(await writer.write(owner, { name: 'out', data })).toBe('updated');
    expect(calls).toEqual(['out']);
  });
});

describe('apiSecretSource / apiConfigMapSource', () => {
  const calls: [string, string | undefined][] = [];
  const objects = new Map<string, Record<string, unknown>>([
    ['/api/v1/namespaces/ns/secrets/creds', { data: { user: b64('alice'), pass: b64('pässwörd') } }],
    ['/api/v1/namespaces/ns/configmaps/ca', { data: { 'ca.crt': 'PEM' }, binaryData: { raw: b64('bytes') } }],
  ]);
  const get: ObjectGet = (path, resourceVersion) => {
    calls.push([path, resourceVersion]);
    return Promise.resolve(objects.get(path));
  };
  const versions = new Map([['ns/creds', '42']]);
  const cached = (ns: string, name: string) => versions.get(`${ns}/${name}`);

  it('reads a Secret not older than the cached version and decodes its values', async () => {
    calls.length = 0;
    expect(await apiSecretSource(get, cached).read('ns', 'creds')).toEqual({
      user: 'alice',
      pass: 'pässwörd',
    });
    expect(calls).toEqual([['/api/v1/namespaces/ns/secrets/creds', '42']]);
  });

  it('reads without a version (a quorum read) when the cache does not hold the object', async () => {
    calls.length = 0;
    expect(await apiSecretSource(get, cached).read('ns', 'other')).toBeUndefined();
    expect(calls).toEqual([['/api/v1/namespaces/ns/secrets/other', undefined]]);
  });

  it('escapes names in the path', async () => {
    calls.length = 0;
    await apiSecretSource(get, cached).read('ns', 'a/b');
    expect(calls[0]?.[0]).toBe('/api/v1/namespaces/ns/secrets/a%2Fb');
  });

  it('merges ConfigMap data and decoded binaryData', async () => {
    expect(await apiConfigMapSource(get, cached).read('ns', 'ca')).toEqual({ 'ca.crt': 'PEM', raw: 'bytes' });
  });
});
