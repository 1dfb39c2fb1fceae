import { describe, expect, it } from 'vitest';
import type { KubeObject } from './list-watch.ts';
import { ObjectStore, objectKey } from './object-store.ts';

interface Ref extends KubeObject {
  spec?: { secretRefs?: string[] };
}

const obj = (ns: string | undefined, name: string, rv: string, refs: string[] = []): Ref => ({
  metadata: { namespace: ns, name, resourceVersion: rv },
  spec: { secretRefs: refs },
});

function storeWithIndex() {
  const store = new ObjectStore<Ref>();
  store.addIndex('secret', (o) => (o.spec?.secretRefs ?? []).map((s) => `${o.metadata?.namespace}/${s}`));
  return store;
}

describe('ObjectStore', () => {
  it.each([
    { reason: 'new object is added', first: undefined, next: obj('a', 'x', '1'), want: 'added' },
    {
      reason: 'new resourceVersion is an update',
      first: obj('a', 'x', '1'),
      next: obj('a', 'x', '2'),
      want: 'updated',
    },
    {
      reason: 'same resourceVersion is unchanged',
      first: obj('a', 'x', '1'),
      next: obj('a', 'x', '1'),
      want: 'unchanged',
    },
  ])('$reason', ({ first, next, want }) => {
    const store = new ObjectStore<Ref>();
    if (first) store.upsert(first);
    expect(store.upsert(next).kind).toBe(want);
    expect(store.size).toBe(1);
  });

  it('stores objects without copying them', () => {
    const store = new ObjectStore<Ref>();
    const o = obj('a', 'x', '1');
    store.upsert(o);
    expect(store.get('a', 'x')).toBe(o);
    expect(store.list('a')[0]).toBe(o);
  });

  it('separates namespaces and cluster-scoped objects', () => {
    const store = new ObjectStore<Ref>();
    store.upsert(obj('a', 'x', '1'));
    store.upsert(obj('b', 'x', '1'));
    store.upsert(obj(undefined, 'x', '1'));
    expect(store.list('a')).toHaveLength(1);
    expect(store.list()).toHaveLength(3);
    expect(store.get(undefined, 'x')?.metadata?.namespace).toBeUndefined();
    expect(objectKey(obj(undefined, 'x', '1'))).toBe('x');
    expect(objectKey(obj('a', 'x', '1'))).toBe('a/x');
  });

  it('maintains indexes through add, update and remove', () => {
    const store = storeWithIndex();
    store.upsert(obj('a', 'p1', '1', ['s1', 's2']));
    store.upsert(obj('a', 'p2', '1', ['s1']));
    expect(store.byIndex('secret', 'a/s1').map(objectKey).sort()).toEqual(['a/p1', 'a/p2']);
    store.upsert(obj('a', 'p1', '2', ['s2']));
    expect(store.byIndex('secret', 'a/s1').map(objectKey)).toEqual(['a/p2']);
    expect(store.byIndex('secret', 'a/s2').map(objectKey)).toEqual(['a/p1']);
    store.remove('a', 'p2');
    expect(store.byIndex('secret', 'a/s1')).toEqual([]);
    expect(store.byIndex('secret', 'b/s1')).toEqual([]);
  });

  it('keeps a lone key or value as a string, a Set or array only while there are several', () => {
    const store = storeWithIndex();
    for (let i = 0; i < 1000; i++) store.upsert(obj('a', `p${i}`, '1', [`s${i}`]));
    expect(store.indexContainers('secret')).toEqual({ sets: 0, arrays: 0 });
    store.upsert(obj('a', 'shared', '1', ['s1', 's2']));
    expect(store.indexContainers('secret')).toEqual({ sets: 2, arrays: 1 });
    expect(store.byIndex('secret', 'a/s1').map(objectKey).sort()).toEqual(['a/p1', 'a/shared']);
    store.upsert(obj('a', 'shared', '2', ['s2']));
    expect(store.indexContainers('secret')).toEqual({ sets: 1, arrays: 0 });
    expect(store.byIndex('secret', 'a/s1').map(objectKey)).toEqual(['a/p1']);
    store.remove('a', 'shared');
    expect(store.indexContainers('secret')).toEqual({ sets: 0, arrays: 0 });
    expect(store.byIndex('secret', 'a/s2').map(objectKey)).toEqual(['a/p2']);
    store.upsert(obj('a', 'p1', '2', ['s1']));
    expect(store.byIndex('secret', 'a/s1').map(objectKey)).toEqual(['a/p1']);
    store.remove('a', 'p1');
    expect(store.byIndex('secret', 'a/s1')).toEqual([]);
  });

  it('indexes objects already present when an index is added', () => {
    const store = new ObjectStore<Ref>();
    store.upsert(obj('a', 'p1', '1', ['s1']));
    store.addIndex('secret', (o) => o.spec?.secretRefs ?? []);
    expect(store.byIndex('secret', 's1')).toHaveLength(1);
  });

  it('rejects queries on an unknown index', () => {
    expect(() => new ObjectStore().byIndex('nope', 'x')).toThrow('cannot query index nope');
  });

  it('reports objects missing from a relist, scoped to a namespace', () => {
    const store = new ObjectStore<Ref>();
    store.upsert(obj('a', 'keep', '1'));
    store.upsert(obj('a', 'gone', '1'));
    store.upsert(obj('b', 'other', '1'));
    expect(store.missingFrom('a', new Set(['a/keep'])).map(objectKey)).toEqual(['a/gone']);
    expect(
      store
        .missingFrom(undefined, new Set(['a/keep']))
        .map(objectKey)
        .sort(),
    ).toEqual(['a/gone', 'b/other']);
  });
});
