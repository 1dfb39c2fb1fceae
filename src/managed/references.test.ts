import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { FakeObjectStore } from '../../test/support/fake-kube.ts';
import type { ManagedObject } from './external-client.ts';
import { resolveReference } from './references.ts';

const ready = [
  {
    type: 'Ready',
    status: 'True' as const,
    reason: 'Available',
    message: '',
    lastTransitionTime: '2026-01-01T00:00:00Z',
  },
];
const notReady = [{ ...ready[0]!, status: 'False' as const }];
const from = { apiVersion: 'x/v1', kind: 'Child', metadata: { name: 'c', namespace: 'ns' } };
const context = (deleting = false) => ({
  deleting,
  waitRequeueMs: 5_000,
  signal: new AbortController().signal,
  log: pino({ level: 'silent' }),
});

function store(status?: ManagedObject['status'], deleting = false) {
  const objects = new FakeObjectStore<ManagedObject<unknown>>();
  if (status !== undefined) {
    const created = objects.create({
      apiVersion: 'x/v1',
      kind: 'Parent',
      metadata: { name: 'p', namespace: 'ns', finalizers: ['f'] },
      spec: {},
      status,
    });
    if (deleting) objects.delete({ namespace: 'ns', name: created.metadata.name });
  }
  return objects;
}

describe('resolveReference', () => {
  it('returns the id of a Ready dependency', async () => {
    const resolved = await resolveReference({
      reader: store({ id: 'p-1', conditions: ready }),
      kind: 'Parent',
      from,
      ref: { name: 'p' },
      context: context(),
    });
    expect(resolved.externalId).toBe('p-1');
  });

  it.each([
    { reason: 'missing', reader: store(), why: 'it does not exist' },
    { reason: 'not Ready', reader: store({ id: 'p-1', conditions: notReady }), why: 'it is not Ready' },
    { reason: 'Ready without an id', reader: store({ conditions: ready }), why: 'it is not Ready' },
    {
      reason: 'being deleted',
      reader: store({ id: 'p-1', conditions: ready }, true),
      why: 'it is being deleted',
    },
  ])('waits while the dependency is $reason', async ({ reader, why }) => {
    await expect(
      resolveReference({ reader, kind: 'Parent', from, ref: { name: 'p' }, context: context() }),
    ).rejects.toMatchObject({
      errorClass: 'waiting',
      reason: 'ReferenceNotReady',
      requeueAfterMs: 5_000,
      message: `waiting for Parent p: ${why}`,
    });
  });

  it.each([
    {
      reason: 'an id is enough while deleting',
      reader: store({ id: 'p-1', conditions: notReady }),
      fallbackId: undefined,
      expected: 'p-1',
    },
    {
      reason: 'the fallback id serves when the dependency is gone',
      reader: store(),
      fallbackId: 'p-old',
      expected: 'p-old',
    },
  ])('$reason', async ({ reader, fallbackId, expected }) => {
    const resolved = await resolveReference({
      reader,
      kind: 'Parent',
      from,
      ref: { name: 'p' },
      context: context(true),
      ...(fallbackId ? { fallbackId } : {}),
    });
    expect(resolved.externalId).toBe(expected);
  });

  it('refuses a cross-namespace reference unless the kind allows it', async () => {
    const reader = store({ id: 'p-1', conditions: ready });
    await expect(
      resolveReference({
        reader,
        kind: 'Parent',
        from,
        ref: { name: 'p', namespace: 'elsewhere' },
        context: context(),
      }),
    ).rejects.toMatchObject({
      errorClass: 'terminal',
      reason: 'CrossNamespaceReference',
    });
    await expect(
      resolveReference({
        reader,
        kind: 'Parent',
        from: { ...from, metadata: { name: 'c', namespace: 'other' } },
        ref: { name: 'p', namespace: 'ns' },
        allowCrossNamespace: true,
        context: context(),
      }),
    ).resolves.toMatchObject({ externalId: 'p-1' });
  });
});
