import { describe, expect, it } from 'vitest';
import {
  ignoreStatusAndBookkeeping,
  ignoreStatusOnlyUpdates,
  indexKey,
  requestForObject,
  requestsForOwner,
} from './event-sources.ts';
import type { KubeObject } from './list-watch.ts';

const base: KubeObject = {
  metadata: {
    namespace: 'ns',
    name: 'p',
    generation: 1,
    labels: { a: '1' },
    annotations: { b: '2' },
    finalizers: ['f'],
  },
};
const withMeta = (meta: Partial<NonNullable<KubeObject['metadata']>>, extra: object = {}): KubeObject => ({
  ...base,
  ...extra,
  metadata: { ...base.metadata, ...meta },
});

describe('ignoreStatusOnlyUpdates', () => {
  it.each([
    { reason: 'status only', next: withMeta({}, { status: { ready: true } }), want: false },
    { reason: 'resourceVersion only', next: withMeta({ resourceVersion: '9' }), want: false },
    { reason: 'spec change bumps generation', next: withMeta({ generation: 2 }), want: true },
    { reason: 'annotation change', next: withMeta({ annotations: { b: '3' } }), want: true },
    {
      reason: 'create-pending mark set (bookkeeping)',
      next: withMeta({ annotations: { b: '2', 'coffer.dev/create-pending': '2026-01-01T00:00:00Z' } }),
      want: false,
    },
    {
      reason: 'external id recorded',
      next: withMeta({ annotations: { b: '2', 'coffer.dev/external-id': 'x' } }),
      want: true,
    },
    {
      reason: 'external id set by a user while a create was pending (mark kept)',
      old: withMeta({ annotations: { b: '2', 'coffer.dev/create-pending': 't' } }),
      next: withMeta({
        annotations: { b: '2', 'coffer.dev/create-pending': 't', 'coffer.dev/external-id': 'x' },
      }),
      want: true,
    },
    {
      reason: 'own create recorded (mark replaced by the id in one write)',
      old: withMeta({ annotations: { b: '2', 'coffer.dev/create-pending': 't' } }),
      next: withMeta({ annotations: { b: '2', 'coffer.dev/external-id': 'x' } }),
      want: false,
    },
    {
      reason: 'own create recorded together with a user change',
      old: withMeta({ annotations: { b: '2', 'coffer.dev/create-pending': 't' } }),
      next: withMeta({ annotations: { b: '3', 'coffer.dev/external-id': 'x' } }),
      want: true,
    },
    {
      reason: 'own id recorded with the finalizer before a create (idBeforeCreate)',
      next: withMeta({
        annotations: { b: '2', 'coffer.dev/external-id': 'x' },
        finalizers: ['f', 'coffer.dev/finalizer'],
      }),
      want: false,
    },
    {
      reason: 'external id set by a user on an object that already has the finalizer',
      old: withMeta({ finalizers: ['f', 'coffer.dev/finalizer'] }),
      next: withMeta({
        annotations: { b: '2', 'coffer.dev/external-id': 'x' },
        finalizers: ['f', 'coffer.dev/finalizer'],
      }),
      want: true,
    },
    { reason: 'label change', next: withMeta({ labels: {} }), want: true },
    { reason: 'finalizer removed', next: withMeta({ finalizers: [] }), want: true },
    {
      reason: "Coffer's finalizer added (the reconcile that added it carries on)",
      next: withMeta({ finalizers: ['f', 'coffer.dev/finalizer'] }),
      want: false,
    },
    { reason: 'another finalizer added', next: withMeta({ finalizers: ['f', 'g'] }), want: true },
    {
      reason: 'deletion requested',
      next: withMeta({ deletionTimestamp: '2026-01-01T00:00:00Z' }),
      want: true,
    },
  ])('$reason → $want', ({ next, want, ...rest }) => {
    const old = ('old' in rest ? rest.old : undefined) ?? base;
    expect(ignoreStatusOnlyUpdates(next, old)).toBe(want);
  });

  it.each([
    { reason: 'data changed', next: { data: { k: 'bmV3' } }, want: true },
    { reason: 'nothing relevant changed', next: { data: { k: 'b2xk' } }, want: false },
  ])('objects without generation (Secrets): $reason', ({ next, want }) => {
    const old = { metadata: { namespace: 'ns', name: 's' }, data: { k: 'b2xk' } };
    expect(ignoreStatusOnlyUpdates({ ...old, ...next }, old)).toBe(want);
  });
});

describe('ignoreStatusAndBookkeeping', () => {
  const predicate = ignoreStatusAndBookkeeping(['example.dev/mark']);
  it.each([
    {
      reason: "the kind's mark set",
      next: withMeta({ annotations: { b: '2', 'example.dev/mark': 't' } }),
      want: false,
    },
    {
      reason: 'another annotation changed too',
      next: withMeta({ annotations: { b: '3', 'example.dev/mark': 't' } }),
      want: true,
    },
    {
      reason: 'a spec change beside the mark',
      next: withMeta({ generation: 2, annotations: { b: '2', 'example.dev/mark': 't' } }),
      want: true,
    },
    {
      reason: 'the create-pending mark (bookkeeping of every kind)',
      next: withMeta({ annotations: { b: '2', 'coffer.dev/create-pending': 't' } }),
      want: false,
    },
  ])('$reason → $want', ({ next, want }) => {
    expect(predicate(next, base)).toBe(want);
    // The mark cleared again: the same answer.
    expect(predicate(base, next)).toBe(want);
  });

  it('is ignoreStatusOnlyUpdates for a kind without bookkeeping annotations', () => {
    expect(ignoreStatusAndBookkeeping([])).toBe(ignoreStatusOnlyUpdates);
    expect(
      ignoreStatusOnlyUpdates(withMeta({ annotations: { b: '2', 'example.dev/mark': 't' } }), base),
    ).toBe(true);
  });
});

describe('request mappers', () => {
  it('maps an object to itself, namespaced or not', () => {
    expect(requestForObject(base)).toEqual([{ namespace: 'ns', name: 'p' }]);
    expect(requestForObject({ metadata: { name: 'c' } })).toEqual([{ namespace: undefined, name: 'c' }]);
    expect(requestForObject({})).toEqual([]);
    expect(indexKey(base)).toBe('ns/p');
  });

  it('maps an owned object to its controlling owner of the given kind and group', () => {
    const secret: KubeObject = {
      metadata: {
        namespace: 'ns',
        name: 's',
        ownerReferences: [
          { apiVersion: 'coffer.dev/v1alpha1', kind: 'Project', name: 'mine', uid: '1', controller: true },
          { apiVersion: 'coffer.dev/v1alpha1', kind: 'Project', name: 'not-controller', uid: '2' },
          { apiVersion: 'other.dev/v1', kind: 'Project', name: 'other-group', uid: '3', controller: true },
        ],
      },
    };
    expect(requestsForOwner({ group: 'coffer.dev', kind: 'Project' })(secret)).toEqual([
      { namespace: 'ns', name: 'mine' },
    ]);
    expect(requestsForOwner({ group: 'coffer.dev', kind: 'Identity' })(secret)).toEqual([]);
  });
});
