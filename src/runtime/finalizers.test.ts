import { describe, expect, it } from 'vitest';
import { FakeObjectStore } from '../../test/support/fake-kube.ts';
import { ConflictError } from './errors.ts';
import { ensureFinalizer, removeFinalizer } from './finalizers.ts';
import {
  annotationPatch,
  FINALIZER,
  guardedByResourceVersion,
  patchGuarded,
  type KubeObject,
} from './object-meta.ts';

const ref = { namespace: 'ns', name: 'a' };

function setup(finalizers?: string[]) {
  const store = new FakeObjectStore<KubeObject>();
  const obj = store.create({
    apiVersion: 'v1',
    kind: 'Thing',
    metadata: { ...ref, ...(finalizers ? { finalizers } : {}) },
  });
  return { store, obj };
}

describe('ensureFinalizer', () => {
  it.each([
    { reason: 'adds the list when there is none', initial: undefined, expected: [FINALIZER] },
    {
      reason: "appends after other controllers' finalizers",
      initial: ['other.io/x'],
      expected: ['other.io/x', FINALIZER],
    },
  ])('$reason', async ({ initial, expected }) => {
    const { store, obj } = setup(initial);
    const stored = await ensureFinalizer(store, obj);
    expect(stored.metadata?.finalizers).toEqual(expected);
    expect(store.peek(ref)?.metadata?.finalizers).toEqual(expected);
  });

  it('does not write when the finalizer is present', async () => {
    const { store, obj } = setup([FINALIZER]);
    expect(await ensureFinalizer(store, obj)).toBe(obj);
    expect(store.writes).toEqual([]);
  });

  it('fails with ConflictError when the object changed since it was read', async () => {
    const { store, obj } = setup(['other.io/x']);
    store.edit(ref, (o) => {
      o.metadata!.labels = { touched: 'yes' };
    });
    await expect(ensureFinalizer(store, obj)).rejects.toBeInstanceOf(ConflictError);
    expect(store.peek(ref)?.metadata?.finalizers).toEqual(['other.io/x']);
  });
});

describe('removeFinalizer', () => {
  it("removes only Coffer's finalizer", async () => {
    const { store, obj } = setup(['other.io/x', FINALIZER]);
    const stored = await removeFinalizer(store, obj);
    expect(stored?.metadata?.finalizers).toEqual(['other.io/x']);
  });

  it('reports the object gone when the last finalizer of a deleted object is removed', async () => {
    const { store } = setup([FINALIZER]);
    store.delete(ref);
    const deleting = store.peek(ref)!;
    expect(await removeFinalizer(store, deleting)).toBeUndefined();
    expect(store.peek(ref)).toBeUndefined();
  });

  it('treats an object that already disappeared as done', async () => {
    const { store, obj } = setup([FINALIZER]);
    const stale = { ...obj };
    store.edit(ref, (o) => {
      o.metadata!.finalizers = [];
    });
    store.delete(ref);
    expect(await removeFinalizer(store, stale)).toBeUndefined();
  });
});

describe('annotations', () => {
  it('sets and removes annotations in one guarded patch', async () => {
    const { store, obj } = setup();
    const first = await patchGuarded(
      store,
      obj,
      annotationPatch(obj, { 'coffer.dev/a': '1', 'coffer.dev/b': '2' }),
      'annotate',
    );
    const second = await patchGuarded(
      store,
      first,
      annotationPatch(first, { 'coffer.dev/a': null }),
      'annotate',
    );
    expect(second.metadata?.annotations).toEqual({ 'coffer.dev/b': '2' });
  });

  it('puts the resourceVersion check first', () => {
    const ops = guardedByResourceVersion({ metadata: { resourceVersion: '7' } }, [
      { op: 'remove', path: '/x' },
    ]);
    expect(ops[0]).toEqual({ op: 'replace', path: '/metadata/resourceVersion', value: '7' });
    expect(() => guardedByResourceVersion({ metadata: {} }, [])).toThrow(/no resourceVersion/);
  });
});
