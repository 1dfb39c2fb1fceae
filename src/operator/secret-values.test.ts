import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../runtime/informer.ts';
import { apiSecretSource, type ObjectGet } from './secret-cache.ts';
import { LABEL_SOURCE, SecretValueCache } from './secret-values.ts';

const b64 = (text: string) => Buffer.from(text).toString('base64');

function secret(name: string, resourceVersion: string, labels?: Record<string, string>): KubeObject {
  return { metadata: { namespace: 'ns', name, resourceVersion, ...(labels ? { labels } : {}) } };
}

/** A cache whose holding kind references exactly the keys in `referenced`. */
function cacheReferencing(referenced: Set<string>): SecretValueCache {
  const cache = new SecretValueCache();
  cache.addReferencedCheck((key) => referenced.has(key));
  return cache;
}

describe('SecretValueCache', () => {
  it('holds the values of referenced and labelled Secrets only, at the version seen', () => {
    const cache = cacheReferencing(new Set(['ns/src']));
    cache.observe(secret('src', '5'), { A: '1' });
    cache.observe(secret('other', '6'), { B: '2' });
    cache.observe(secret('labelled', '7', { [LABEL_SOURCE]: 'true' }), { C: '3' });
    expect(cache.size).toBe(2);
    expect(cache.get('ns', 'src', '5')).toEqual({ A: '1' });
    expect(cache.get('ns', 'src', '4')).toBeUndefined();
    expect(cache.get('ns', 'src', undefined)).toBeUndefined();
    expect(cache.get('ns', 'other', '6')).toBeUndefined();
    expect(cache.get('ns', 'labelled', '7')).toEqual({ C: '3' });
  });

  it('drops values when a Secret stops being wanted, is deleted, or loses its last reference', () => {
    const referenced = new Set(['ns/src', 'ns/gone']);
    const cache = cacheReferencing(referenced);
    cache.observe(secret('src', '5'), { A: '1' });
    cache.observe(secret('gone', '5'), { A: '1' });
    cache.observe(secret('labelled', '7', { [LABEL_SOURCE]: 'true' }), { C: '3' });
    cache.forget('ns', 'gone');
    referenced.clear();
    cache.release(['ns/src', 'ns/labelled'], (key) =>
      key === 'ns/labelled' ? { [LABEL_SOURCE]: 'true' } : undefined,
    );
    expect(cache.size).toBe(1);
    cache.observe(secret('labelled', '8'), { C: '4' });
    expect(cache.size).toBe(0);
  });
});

describe('apiSecretSource with held values', () => {
  const calls: string[] = [];
  const get: ObjectGet = (path) => {
    calls.push(path);
    const name = path.split('/').pop() ?? '';
    return Promise.resolve({
      metadata: { namespace: 'ns', name, resourceVersion: '9' },
      data: { K: b64('v') },
    });
  };
  const version = (_ns: string, name: string) => (name === 'src' ? '9' : undefined);

  it('answers from the held values at the cached version, without a request', async () => {
    calls.length = 0;
    const cache = cacheReferencing(new Set(['ns/src']));
    cache.observe(secret('src', '9'), { K: 'held' });
    expect(await apiSecretSource(get, version, cache).read('ns', 'src')).toEqual({ K: 'held' });
    expect(calls).toEqual([]);
  });

  it('reads once by GET a referenced Secret whose values it does not hold, then holds them', async () => {
    calls.length = 0;
    const cache = cacheReferencing(new Set(['ns/src']));
    const source = apiSecretSource(get, version, cache);
    expect(await source.read('ns', 'src')).toEqual({ K: 'v' });
    expect(await source.read('ns', 'src')).toEqual({ K: 'v' });
    expect(calls).toEqual(['/api/v1/namespaces/ns/secrets/src']);
  });

  it('keeps nothing read for a Secret nobody references', async () => {
    calls.length = 0;
    const cache = cacheReferencing(new Set());
    const source = apiSecretSource(get, version, cache);
    await source.read('ns', 'src');
    await source.read('ns', 'src');
    expect(calls).toHaveLength(2);
    expect(cache.size).toBe(0);
  });
});
