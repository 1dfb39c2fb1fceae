import { describe, expect, it } from 'vitest';
import { ns, setupManaged as setup, type ManagedHarness } from '../../test/support/managed-harness.ts';
import { fakeServiceError, widget } from '../../test/support/test-kind.ts';
import {
  ANNOTATION_CREATE_PENDING,
  ANNOTATION_EXTERNAL_ID,
  ANNOTATION_MANAGE_PROTECTED,
  FINALIZER,
} from '../runtime/object-meta.ts';
import { recoveryMatch } from './ownership.ts';

const mark = '2026-01-01T00:00:00Z';
const skewMs = 120_000;
/** A resource with the operator's mark: the annotation and status agree. */
const markedWith = (time: string) => ({
  metadata: { annotations: { [ANNOTATION_CREATE_PENDING]: time } },
  status: { createPending: time },
});
const marked = markedWith(mark);

describe('recoveryMatch (after an interrupted create)', () => {
  it.each([
    { case: 'no match', matches: [], adopted: undefined },
    {
      case: 'one match created after the mark',
      matches: [{ id: 'a', createdAt: '2026-01-01T00:00:05Z' }],
      adopted: 'a',
    },
    {
      case: 'one match created within the clock-skew allowance before the mark',
      matches: [{ id: 'a', createdAt: '2025-12-31T23:59:00Z' }],
      adopted: 'a',
    },
    {
      case: 'a match older than the mark (someone else’s) beside a new one',
      matches: [
        { id: 'old', createdAt: '2025-06-01T00:00:00Z' },
        { id: 'new', createdAt: '2026-01-01T00:00:01Z' },
      ],
      adopted: 'new',
    },
    {
      case: 'only a match older than the mark',
      matches: [{ id: 'old', createdAt: '2025-06-01T00:00:00Z' }],
      adopted: undefined,
    },
  ])('$case', ({ matches, adopted }) => {
    expect(recoveryMatch(marked, matches, skewMs)).toBe(adopted);
  });

  it.each([
    {
      case: 'two matches created after the mark',
      matches: [
        { id: 'a', createdAt: '2026-01-01T00:00:01Z' },
        { id: 'b', createdAt: '2026-01-01T00:00:02Z' },
      ],
      text: '2 external objects created since may be the one it made (a, b)',
    },
    {
      case: 'a match the service does not date',
      matches: [{ id: 'a' }],
      text: 'does not report when the matching object a',
    },
  ])('stops with CreateIncomplete for $case', ({ matches, text }) => {
    expect(() => recoveryMatch(marked, matches, skewMs)).toThrow(
      expect.objectContaining({
        reason: 'CreateIncomplete',
        message: expect.stringContaining(text) as string,
      }),
    );
  });

  it('stops with CreateIncomplete when the mark holds no valid time', () => {
    const broken = markedWith('yesterday');
    expect(() => recoveryMatch(broken, [{ id: 'a', createdAt: mark }], skewMs)).toThrow(
      expect.objectContaining({ reason: 'CreateIncomplete' }),
    );
  });
});

describe('managed reconciler: no implicit adoption', () => {
  it('stops with AlreadyExists for an object it did not create, and touches nothing', async () => {
    const t = setup();
    const foreign = t.service.insert({ name: 'alpha', size: 7 });
    t.create('a', { name: 'alpha', size: 3 });
    const { error } = await t.reconcile('a');
    expect(error).toMatchObject({ errorClass: 'terminal', reason: 'AlreadyExists' });
    const message = t.condition('a', 'Synced')?.message ?? '';
    expect(message).toContain(`id ${foreign}`);
    expect(message).toContain(`${ANNOTATION_EXTERNAL_ID}: "${foreign}"`);
    expect(t.service.writes()).toEqual([]);
    expect(t.service.widgets.get(foreign)?.size).toBe(7);
    const obj = t.get('a')!;
    expect(obj.metadata.annotations?.[ANNOTATION_EXTERNAL_ID]).toBeUndefined();
    expect(obj.metadata.finalizers ?? []).not.toContain(FINALIZER);
    expect(t.events.list().map((e) => e.reason)).not.toContain('AdoptedExternal');

    // Deleting the resource leaves the foreign object alone.
    t.store.delete({ namespace: ns, name: 'a' });
    await t.reconcile('a');
    expect(t.get('a')).toBeUndefined();
    expect(t.service.widgets.has(foreign)).toBe(true);
  });

  it('refuses for ObserveOnly too: observing needs the id', async () => {
    const t = setup();
    t.service.insert({ name: 'alpha', size: 7 });
    t.create('a', { name: 'alpha', managementPolicy: 'ObserveOnly' });
    expect((await t.reconcile('a')).error).toMatchObject({ reason: 'AlreadyExists' });
  });

  it('does not report AlreadyExists from a stale read: the guarded check conflicts instead', async () => {
    const t = setup();
    t.create('a', { name: 'alpha' });
    await t.reconcile('a');
    // The cache still serves the resource as it was before the create recorded its id.
    t.store.serveOldVersion(
      { namespace: ns, name: 'a' },
      (o) => !o.metadata.annotations?.[ANNOTATION_EXTERNAL_ID],
    );
    const { error } = await t.reconcile('a');
    expect(error).toMatchObject({ errorClass: 'conflict' });
    expect(t.condition('a', 'Synced')?.status).toBe('True');
  });

  it('adopts explicitly: the annotation names the object', async () => {
    const t = setup();
    const id = t.service.insert({ name: 'alpha', size: 7 });
    t.create('a', { name: 'alpha', size: 3 }, { [ANNOTATION_EXTERNAL_ID]: id });
    await t.reconcile('a');
    expect(t.service.writes()).toEqual([`update ${id}`]);
    expect(t.events.list().map((e) => e.reason)).toEqual(['AdoptedExternal', 'UpdatedExternal']);
  });

  it('after an interrupted create, adopts only a match created after the mark', async () => {
    const t = setup();
    const old = t.service.insert({ name: 'alpha', size: 7, createdAt: '2025-06-01T00:00:00Z' });
    t.createInterrupted('a', { name: 'alpha' }, mark);
    const { error } = await t.reconcile('a');
    expect(error).toMatchObject({ reason: 'AlreadyExists' });
    expect(t.condition('a', 'Synced')?.message).toContain(`id ${old}`);
    expect(t.service.writes()).toEqual([]);

    const t2 = setup();
    t2.service.insert({ name: 'alpha', size: 7, createdAt: '2025-06-01T00:00:00Z' });
    const mine = t2.service.insert({ name: 'alpha', size: 1, createdAt: '2026-01-01T00:00:03Z' });
    t2.createInterrupted('a', { name: 'alpha' }, mark);
    await t2.reconcile('a');
    expect(t2.get('a')?.metadata.annotations).toEqual({ [ANNOTATION_EXTERNAL_ID]: mine });
    expect(t2.condition('a', 'Ready')?.status).toBe('True');
  });
});

describe('managed reconciler: protected objects', () => {
  const why = 'widget w-1 is the identity Connection ns/admin authenticates as';

  function withProtected(annotations: Record<string, string>, spec: Record<string, unknown> = {}) {
    const t = setup();
    const id = t.service.insert({ name: 'alpha', size: 7, protectedBy: why });
    t.create('a', { name: 'alpha', size: 3, ...spec }, { [ANNOTATION_EXTERNAL_ID]: id, ...annotations });
    return { t, id };
  }

  it('never changes a protected object named by id without the opt-in', async () => {
    const { t, id } = withProtected({});
    const { error } = await t.reconcile('a');
    expect(error).toMatchObject({ errorClass: 'terminal', reason: 'ProtectedObject' });
    const message = t.condition('a', 'Synced')?.message ?? '';
    expect(message).toContain(why);
    expect(message).toContain(ANNOTATION_MANAGE_PROTECTED);
    expect(t.service.writes()).toEqual([]);
    expect(t.service.widgets.get(id)?.size).toBe(7);
  });

  it('leaves it in place when such a resource is deleted', async () => {
    const { t, id } = withProtected({});
    await t.reconcile('a');
    t.store.edit({ namespace: ns, name: 'a' }, (o) => {
      o.metadata.finalizers = [FINALIZER];
    });
    t.store.delete({ namespace: ns, name: 'a' });
    await t.reconcile('a');
    expect(t.get('a')).toBeUndefined();
    expect(t.service.widgets.has(id)).toBe(true);
    expect(t.service.writes()).toEqual([]);
    expect(t.events.list().at(-1)).toMatchObject({
      reason: 'OrphanedExternal',
      message: expect.stringContaining(why) as string,
    });
  });

  it('observes it with ObserveOnly', async () => {
    const { t } = withProtected({}, { managementPolicy: 'ObserveOnly' });
    await t.reconcile('a');
    expect(t.condition('a', 'Ready')?.status).toBe('True');
    expect(t.service.writes()).toEqual([]);
  });

  it('does not refuse while nothing is to be written, and refuses once an update is due', async () => {
    const { t, id } = withProtected({}, { size: 7 });
    expect((await t.reconcile('a')).error).toBeUndefined();
    expect(t.condition('a', 'Synced')?.status).toBe('True');
    expect(t.get('a')?.status?.id).toBe(id);
    expect(t.get('a')?.status?.createdId).toBeUndefined();
    t.store.edit({ namespace: ns, name: 'a' }, (o) => {
      (o.spec as { size: number }).size = 3;
    });
    expect((await t.reconcile('a')).error).toMatchObject({ reason: 'ProtectedObject' });
    expect(t.service.writes()).toEqual([]);
  });

  it('lets the resource that created the object manage and delete it after it became protected', async () => {
    const t = setup();
    t.create('a', { name: 'alpha', size: 3 });
    await t.reconcile('a');
    const id = t.get('a')?.status?.id ?? '';
    // The mark (annotation, then status), the id, and createdId with the status that ends the
    // reconcile.
    expect(t.store.writes.slice(0, 4)).toEqual(['jsonPatch', 'status', 'mergePatch', 'status']);
    expect(t.get('a')?.status?.createdId).toBe(id);
    t.service.widgets.get(id)!.protectedBy = why;
    t.store.edit({ namespace: ns, name: 'a' }, (o) => {
      (o.spec as { size: number }).size = 4;
    });
    expect((await t.reconcile('a')).error).toBeUndefined();
    expect(t.condition('a', 'Synced')?.status).toBe('True');
    expect(t.service.widgets.get(id)?.size).toBe(4);
    t.store.delete({ namespace: ns, name: 'a' });
    await t.reconcile('a');
    expect(t.service.widgets.has(id)).toBe(false);
  });

  it('protects another object the annotation names later, although the resource created one', async () => {
    const t = setup();
    t.create('a', { name: 'alpha', size: 3 });
    await t.reconcile('a');
    const other = t.service.insert({ name: 'alpha', size: 7, protectedBy: why });
    t.store.edit({ namespace: ns, name: 'a' }, (o) => {
      o.metadata.annotations = { ...o.metadata.annotations, [ANNOTATION_EXTERNAL_ID]: other };
    });
    expect((await t.reconcile('a')).error).toMatchObject({ reason: 'ProtectedObject' });
    expect(t.service.widgets.get(other)?.size).toBe(7);
  });

  it('does not count an object recovered after an interrupted create as created', async () => {
    const t = setup();
    const recovered = t.service.insert({
      name: 'alpha',
      size: 1,
      createdAt: '2026-01-01T00:00:03Z',
      protectedBy: why,
    });
    t.createInterrupted('a', { name: 'alpha', size: 3 }, mark);
    expect((await t.reconcile('a')).error).toMatchObject({ reason: 'ProtectedObject' });
    expect(t.get('a')?.metadata.annotations?.[ANNOTATION_EXTERNAL_ID]).toBe(recovered);
    expect(t.get('a')?.status?.createdId).toBeUndefined();
    expect(t.service.writes()).toEqual([]);
  });

  it('manages it with the opt-in annotation', async () => {
    const { t, id } = withProtected({ [ANNOTATION_MANAGE_PROTECTED]: 'true' });
    await t.reconcile('a');
    expect(t.service.writes()).toEqual([`update ${id}`]);
    t.store.delete({ namespace: ns, name: 'a' });
    await t.reconcile('a');
    expect(t.service.widgets.has(id)).toBe(false);
  });
});

describe('managed reconciler: only the operator’s create-pending mark recovers a create', () => {
  const forged = '2000-01-01T00:00:00Z';
  const notOurs = `the ${ANNOTATION_CREATE_PENDING} annotation does not make it this resource's`;

  it.each([
    {
      reason: 'an annotation alone, with an old time (a hostile manifest)',
      arrange: (t: ManagedHarness) =>
        t.create('a', { name: 'alpha', size: 3 }, { [ANNOTATION_CREATE_PENDING]: forged }),
    },
    {
      reason: 'an annotation moved back from the operator’s mark in status',
      arrange: (t: ManagedHarness) => {
        t.createInterrupted('a', { name: 'alpha', size: 3 }, mark);
        t.store.edit({ namespace: ns, name: 'a' }, (o) => {
          o.metadata.annotations = { ...o.metadata.annotations, [ANNOTATION_CREATE_PENDING]: forged };
        });
      },
    },
  ])('$reason: AlreadyExists for a foreign match, nothing looked up or written', async ({ arrange }) => {
    const t = setup();
    const foreign = t.service.insert({ name: 'alpha', size: 7, createdAt: '2025-06-01T00:00:00Z' });
    arrange(t);
    const { error } = await t.reconcile('a');
    expect(error).toMatchObject({ errorClass: 'terminal', reason: 'AlreadyExists' });
    const message = t.condition('a', 'Synced')?.message ?? '';
    expect(message).toContain(`id ${foreign}`);
    expect(message).toContain(notOurs);
    expect(message).toContain(`${ANNOTATION_EXTERNAL_ID}: "${foreign}"`);
    expect(t.service.calls.filter((c) => c.startsWith('find'))).toEqual([]);
    expect(t.service.writes()).toEqual([]);
    expect(t.service.widgets.get(foreign)?.size).toBe(7);
    expect(t.get('a')?.metadata.annotations?.[ANNOTATION_EXTERNAL_ID]).toBeUndefined();
    expect(t.events.list().map((e) => e.reason)).not.toContain('AdoptedExternal');
  });

  it('a forged annotation with the finalizer set by the manifest: deletion leaves the foreign object', async () => {
    const t = setup();
    const foreign = t.service.insert({ name: 'alpha', size: 7 });
    const manifest = widget(ns, 'a', { name: 'alpha' }, { [ANNOTATION_CREATE_PENDING]: forged });
    t.store.create({ ...manifest, metadata: { ...manifest.metadata, finalizers: [FINALIZER] } });
    t.store.delete({ namespace: ns, name: 'a' });
    await t.reconcile('a');
    expect(t.get('a')).toBeUndefined();
    expect(t.service.widgets.get(foreign)?.size).toBe(7);
    expect(t.service.calls.filter((c) => !c.startsWith('observe'))).toEqual([]);
  });

  it('an annotation alone with nothing to find (left by an operator that wrote only the annotation): creates', async () => {
    const t = setup();
    t.create('a', { name: 'alpha' }, { [ANNOTATION_CREATE_PENDING]: forged });
    await t.reconcile('a');
    expect(t.service.writes()).toEqual(['create alpha']);
    expect(t.get('a')?.metadata.annotations).toEqual({ [ANNOTATION_EXTERNAL_ID]: 'w-1' });
    expect(t.get('a')?.status?.createPending).toBeUndefined();
  });

  it('writes both halves before the create and clears them once the id is recorded', async () => {
    const t = setup();
    t.create('a', { name: 'alpha' });
    const seen: unknown[] = [];
    const insert = t.service.insert.bind(t.service);
    t.service.insert = (w) => {
      const obj = t.get('a');
      seen.push([obj?.metadata.annotations?.[ANNOTATION_CREATE_PENDING], obj?.status?.createPending]);
      return insert(w);
    };
    await t.reconcile('a');
    expect(seen).toEqual([[mark, mark]]);
    expect(t.get('a')?.metadata.annotations).toEqual({ [ANNOTATION_EXTERNAL_ID]: 'w-1' });
    expect(t.get('a')?.status?.createPending).toBeUndefined();
  });

  it.each([
    { reason: 'a create the service refused clears both halves', status: 400, kept: undefined },
    { reason: 'a create whose answer was lost keeps both halves', status: 0, kept: mark },
  ])('$reason', async ({ status, kept }) => {
    const t = setup();
    t.create('a', { name: 'alpha' });
    t.service.failNext('create', fakeServiceError(status, 'the service says no'));
    await t.reconcile('a');
    expect(t.get('a')?.metadata.annotations?.[ANNOTATION_CREATE_PENDING]).toBe(kept);
    expect(t.get('a')?.status?.createPending).toBe(kept);
  });

  it('a write between the two halves: conflict, nothing created; the next reconcile creates once', async () => {
    const t = setup();
    t.create('a', { name: 'alpha' });
    const jsonPatch = t.store.jsonPatch.bind(t.store);
    t.store.jsonPatch = async (ref, operations) => {
      const stored = await jsonPatch(ref, operations);
      t.store.jsonPatch = jsonPatch;
      // Someone labels the resource right after the annotation half was written.
      t.store.edit(ref, (o) => {
        o.metadata.labels = { touched: 'yes' };
      });
      return stored;
    };
    expect((await t.reconcile('a')).error).toMatchObject({ errorClass: 'conflict' });
    expect(t.service.writes()).toEqual([]);
    expect(t.get('a')?.status?.createPending).toBeUndefined();
    await t.reconcile('a');
    expect(t.service.writes()).toEqual(['create alpha']);
    expect(t.condition('a', 'Ready')?.status).toBe('True');
  });

  it('recovers its own interrupted create and clears both halves', async () => {
    const t = setup();
    t.service.insert({ name: 'alpha', size: 7, createdAt: '2025-06-01T00:00:00Z' });
    const mine = t.service.insert({ name: 'alpha', size: 1, createdAt: '2026-01-01T00:00:03Z' });
    t.createInterrupted('a', { name: 'alpha' }, mark);
    await t.reconcile('a');
    expect(t.get('a')?.metadata.annotations).toEqual({ [ANNOTATION_EXTERNAL_ID]: mine });
    expect(t.get('a')?.status).toMatchObject({ id: mine });
    expect(t.get('a')?.status?.createPending).toBeUndefined();
    expect(t.get('a')?.status?.createdId).toBeUndefined();
    expect(t.service.writes()).toEqual([]);
  });
});
