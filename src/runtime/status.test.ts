import { describe, expect, it } from 'vitest';
import { FakeObjectStore } from '../../test/support/fake-kube.ts';
import { deepEqual, mergePatchBetween, patchStatusIfChanged, type ObjectWithStatus } from './status.ts';

describe('deepEqual', () => {
  it.each([
    {
      reason: 'key order is ignored',
      a: { x: 1, y: { p: 1, q: 2 } },
      b: { y: { q: 2, p: 1 }, x: 1 },
      equal: true,
    },
    { reason: 'undefined properties count as absent', a: { x: 1, y: undefined }, b: { x: 1 }, equal: true },
    { reason: 'array order matters', a: { l: [1, 2] }, b: { l: [2, 1] }, equal: false },
    {
      reason: 'a nested difference is found',
      a: { c: [{ t: 'Ready', s: 'True' }] },
      b: { c: [{ t: 'Ready', s: 'False' }] },
      equal: false,
    },
    { reason: 'an extra key differs', a: { x: 1 }, b: { x: 1, y: 2 }, equal: false },
    {
      reason: 'dates compare by their wire form',
      a: { t: new Date('2026-01-01T00:00:00Z') },
      b: { t: '2026-01-01T00:00:00.000Z' },
      equal: true,
    },
  ])('$reason', ({ a, b, equal }) => {
    expect(deepEqual(a, b)).toBe(equal);
    expect(deepEqual(b, a)).toBe(equal);
  });
});

describe('mergePatchBetween', () => {
  it('sets changed keys, nulls removed ones and recurses into objects', () => {
    const from = { id: 'a', size: 1, nested: { keep: 1, drop: 2 }, list: [1] };
    const to = { id: 'a', size: 2, nested: { keep: 1 }, list: [1, 2], added: true };
    expect(mergePatchBetween(from, to)).toEqual({
      size: 2,
      nested: { drop: null },
      list: [1, 2],
      added: true,
    });
    expect(mergePatchBetween(to, to)).toEqual({});
  });
});

describe('patchStatusIfChanged', () => {
  it('writes only when the status differs, and removes stale keys', async () => {
    const store = new FakeObjectStore<ObjectWithStatus>();
    const created = store.create({
      apiVersion: 'v1',
      kind: 'Thing',
      metadata: { name: 'a', namespace: 'ns' },
    });
    const first = await patchStatusIfChanged(store, created, { id: 'x', old: 1 });
    expect(first.changed).toBe(true);
    expect(first.object.status).toEqual({ id: 'x', old: 1 });

    const same = await patchStatusIfChanged(store, first.object, { old: 1, id: 'x' });
    expect(same.changed).toBe(false);
    expect(store.writes).toEqual(['status']);

    const third = await patchStatusIfChanged(store, same.object, { id: 'y' });
    expect(third.changed).toBe(true);
    expect(store.peek({ namespace: 'ns', name: 'a' })?.status).toEqual({ id: 'y' });
  });
});
