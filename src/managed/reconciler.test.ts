import { describe, expect, it } from 'vitest';
import { ns, poll, setupManaged as setup, type ManagedHarness } from '../../test/support/managed-harness.ts';
import { fakeServiceError } from '../../test/support/test-kind.ts';
import { ANNOTATION_CREATE_PENDING, ANNOTATION_EXTERNAL_ID, FINALIZER } from '../runtime/object-meta.ts';

/** `expect.stringMatching`, typed for object literals. */
const matching = (pattern: RegExp): string => expect.stringMatching(pattern) as string;
const containing = (text: string): string => expect.stringContaining(text) as string;

describe('managed reconciler: create and observe', () => {
  it('creates the external object, records its id and reports Ready', async () => {
    const t = setup();
    t.create('a', { name: 'alpha', size: 3 });
    const { result } = await t.reconcile('a');
    expect(result).toEqual({ requeueAfterMs: poll });
    expect(t.service.writes()).toEqual(['create alpha']);
    const obj = t.get('a')!;
    expect(obj.metadata.finalizers).toEqual([FINALIZER]);
    expect(obj.metadata.annotations).toEqual({ [ANNOTATION_EXTERNAL_ID]: 'w-1' });
    expect(obj.status).toMatchObject({ id: 'w-1', observedGeneration: 1, size: 3 });
    expect(t.condition('a', 'Ready')).toMatchObject({
      status: 'True',
      reason: 'Available',
      observedGeneration: 1,
    });
    expect(t.condition('a', 'Synced')).toMatchObject({ status: 'True', reason: 'ReconcileSuccess' });
    expect(t.events.list()).toEqual([
      { type: 'Normal', reason: 'CreatedExternal', message: 'created external object w-1', count: 1 },
    ]);
  });

  it('writes nothing when a later reconcile finds everything in order', async () => {
    const t = setup();
    t.create('a', { name: 'alpha' });
    await t.reconcile('a');
    const kubeWrites = t.store.writes.length;
    const { result } = await t.reconcile('a');
    expect(result).toEqual({ requeueAfterMs: poll });
    expect(t.store.writes).toHaveLength(kubeWrites);
    expect(t.service.writes()).toEqual(['create alpha']);
    expect(t.events.list()).toHaveLength(1);
  });

  it('adopts the object named by the external-id annotation instead of creating one', async () => {
    const t = setup();
    const id = t.service.insert({ name: 'alpha', size: 1 });
    t.create('a', { name: 'alpha' }, { [ANNOTATION_EXTERNAL_ID]: id });
    await t.reconcile('a');
    expect(t.service.writes()).toEqual([]);
    expect(t.get('a')?.status?.id).toBe(id);
    expect(t.events.list().map((e) => e.message)).toEqual([`adopted external object ${id}`]);
  });

  it.each([
    {
      reason: 'drift made in the service is corrected',
      change: (t: ManagedHarness) => {
        t.service.widgets.get('w-1')!.size = 9;
      },
      size: 5,
      generation: 1,
    },
    {
      reason: 'a spec change is applied and observedGeneration follows',
      change: (t: ManagedHarness) => {
        t.store.edit({ namespace: ns, name: 'a' }, (o) => {
          (o.spec as { size: number }).size = 8;
        });
      },
      size: 8,
      generation: 2,
    },
  ])('$reason', async ({ change, size, generation }) => {
    const t = setup();
    t.create('a', { name: 'alpha', size: 5 });
    await t.reconcile('a');
    change(t);
    await t.reconcile('a');
    expect(t.service.writes()).toEqual(['create alpha', 'update w-1']);
    expect(t.service.widgets.get('w-1')?.size).toBe(size);
    expect(t.get('a')?.status).toMatchObject({ size, observedGeneration: generation });
    expect(t.condition('a', 'Synced')?.observedGeneration).toBe(generation);
    expect(t.events.list().at(-1)).toMatchObject({
      reason: 'UpdatedExternal',
      message: containing(`-> ${size}`),
    });
  });

  it.each([
    { reason: 'spec.pollInterval replaces the default', spec: { pollInterval: '45s' }, requeue: 45_000 },
    { reason: 'an adapter may ask to look again sooner', spec: { checkAfterMs: 5_000 }, requeue: 5_000 },
    {
      reason: 'but not later than the poll interval',
      spec: { pollInterval: '45s', checkAfterMs: 90_000 },
      requeue: 45_000,
    },
  ])('requeue: $reason', async ({ spec, requeue }) => {
    const t = setup();
    t.create('a', { name: 'alpha', ...spec });
    expect((await t.reconcile('a')).result).toEqual({ requeueAfterMs: requeue });
  });

  it('reports a not-Ready reason from the adapter while staying Synced', async () => {
    const t = setup();
    t.create('a', { name: 'alpha', expired: true });
    await t.reconcile('a');
    expect(t.condition('a', 'Ready')).toMatchObject({
      status: 'False',
      reason: 'Expired',
      message: 'the widget has expired',
    });
    expect(t.condition('a', 'Synced')?.status).toBe('True');
  });
});

describe('managed reconciler: ObserveOnly', () => {
  it('never creates a missing object and says so', async () => {
    const t = setup();
    t.create('a', { name: 'alpha', managementPolicy: 'ObserveOnly' });
    const { error } = await t.reconcile('a');
    expect(error).toMatchObject({ errorClass: 'waiting', reason: 'NotFound', requeueAfterMs: poll });
    expect(t.service.writes()).toEqual([]);
    expect(t.get('a')?.metadata.finalizers).toBeUndefined();
    expect(t.condition('a', 'Synced')).toMatchObject({ status: 'False', reason: 'NotFound' });
    expect(t.condition('a', 'Ready')).toMatchObject({ status: 'False', reason: 'Unavailable' });
  });

  it('reports drift without correcting it', async () => {
    const t = setup();
    const id = t.service.insert({ name: 'alpha', size: 7 });
    t.create(
      'a',
      { name: 'alpha', size: 1, managementPolicy: 'ObserveOnly' },
      { [ANNOTATION_EXTERNAL_ID]: id },
    );
    await t.reconcile('a');
    expect(t.service.writes()).toEqual([]);
    expect(t.get('a')?.status).toMatchObject({ id, size: 7 });
    expect(t.condition('a', 'Synced')).toMatchObject({ status: 'True', reason: 'ReconcileSuccess' });
  });
});

describe('managed reconciler: invalid spec', () => {
  it.each([
    { reason: 'a schema violation', spec: { name: 'alpha', size: 1000 }, message: /spec\.size: Too big/ },
    { reason: 'a missing field', spec: { size: 1 }, message: /spec\.name: Invalid input/ },
    {
      reason: 'an unparsable poll interval',
      spec: { name: 'alpha', pollInterval: 'soon' },
      message: /spec\.pollInterval: cannot parse duration "soon"/,
    },
  ])('reports $reason once, terminally, without calling the service', async ({ spec, message }) => {
    const t = setup();
    t.create('a', spec);
    const first = await t.reconcile('a');
    const second = await t.reconcile('a');
    for (const { error } of [first, second])
      expect(error).toMatchObject({ errorClass: 'terminal', reason: 'InvalidSpec' });
    expect(t.condition('a', 'Synced')).toMatchObject({
      status: 'False',
      reason: 'InvalidSpec',
      message: matching(message),
    });
    expect(t.get('a')?.status?.observedGeneration).toBe(1);
    expect(t.events.list()).toEqual([
      { type: 'Warning', reason: 'InvalidSpec', message: matching(message), count: 1 },
    ]);
    expect(t.service.calls).toEqual([]);
  });
});

describe('managed reconciler: references', () => {
  it('waits for a parent that is not Ready, then creates with its id', async () => {
    const t = setup();
    t.create('child', { name: 'kid', parentRef: { name: 'parent' } });
    const waiting = await t.reconcile('child');
    expect(waiting.error).toMatchObject({
      errorClass: 'waiting',
      reason: 'ReferenceNotReady',
      requeueAfterMs: 10_000,
    });
    expect(t.condition('child', 'Synced')).toMatchObject({
      status: 'False',
      reason: 'ReferenceNotReady',
      message: 'waiting for Widget parent: it does not exist',
    });
    expect(t.events.list()).toEqual([]);
    expect(t.service.writes()).toEqual([]);

    t.create('parent', { name: 'papa' });
    await t.reconcile('parent');
    await t.reconcile('child');
    expect(t.service.widgets.get('w-2')).toMatchObject({ name: 'kid', size: 1, parentId: 'w-1' });
    expect(t.condition('child', 'Synced')?.status).toBe('True');
  });
});

describe('managed reconciler: interrupted create', () => {
  it.each([
    { reason: 'one match is adopted', existing: 1, creates: 0, adopted: true },
    { reason: 'no match is created again', existing: 0, creates: 1, adopted: false },
  ])('$reason', async ({ existing, creates, adopted }) => {
    const t = setup();
    for (let i = 0; i < existing; i++) t.service.insert({ name: 'alpha', size: 1 });
    t.createInterrupted('a', { name: 'alpha' }, '2026-01-01T00:00:00Z');
    await t.reconcile('a');
    expect(t.service.writes()).toHaveLength(creates);
    expect(t.service.widgets.size).toBe(1);
    expect(t.get('a')?.metadata.annotations).toEqual({ [ANNOTATION_EXTERNAL_ID]: 'w-1' });
    expect(t.events.list().some((e) => e.reason === 'AdoptedExternal')).toBe(adopted);
    expect(t.condition('a', 'Ready')?.status).toBe('True');
  });

  it('stops with CreateIncomplete when several objects match', async () => {
    const t = setup();
    t.service.insert({ name: 'alpha', size: 1 });
    t.service.insert({ name: 'alpha', size: 1 });
    t.createInterrupted('a', { name: 'alpha' }, '2026-01-01T00:00:00Z');
    const { error } = await t.reconcile('a');
    expect(error).toMatchObject({ errorClass: 'terminal', reason: 'CreateIncomplete' });
    const message = t.condition('a', 'Synced')?.message ?? '';
    expect(message).toContain('2 external objects created since may be the one it made (w-1, w-2)');
    expect(message).toContain(ANNOTATION_EXTERNAL_ID);
    expect(t.service.writes()).toEqual([]);
  });

  it('keeps the mark when the create answer was lost, and adopts on the next reconcile', async () => {
    const t = setup();
    t.create('a', { name: 'alpha' });
    const lost = fakeServiceError(0, 'socket hang up');
    const original = t.service.insert.bind(t.service);
    t.service.insert = (w) => {
      original(w);
      t.service.insert = original;
      throw lost;
    };
    const first = await t.reconcile('a');
    expect(first.error).toMatchObject({ errorClass: 'transient', reason: 'ServiceUnreachable' });
    expect(t.get('a')?.metadata.annotations?.[ANNOTATION_CREATE_PENDING]).toBeDefined();
    await t.reconcile('a');
    expect(t.service.widgets.size).toBe(1);
    expect(t.get('a')?.metadata.annotations).toEqual({ [ANNOTATION_EXTERNAL_ID]: 'w-1' });
  });
});

describe('managed reconciler: ids known before the create (idBeforeCreate)', () => {
  it('records the id with the finalizer before creating: one metadata write, no mark', async () => {
    const t = setup({ naturalIds: true });
    t.create('a', { name: 'alpha' });
    const patched: unknown[] = [];
    const jsonPatch = t.store.jsonPatch.bind(t.store);
    t.store.jsonPatch = (ref, operations) => {
      patched.push(operations);
      return jsonPatch(ref, operations);
    };
    await t.reconcile('a');
    expect(t.service.writes()).toEqual(['create alpha']);
    expect(t.store.writes).toEqual(['jsonPatch', 'status']);
    expect(JSON.stringify(patched)).not.toContain(ANNOTATION_CREATE_PENDING);
    const obj = t.get('a')!;
    expect(obj.metadata.finalizers).toEqual([FINALIZER]);
    expect(obj.metadata.annotations).toEqual({ [ANNOTATION_EXTERNAL_ID]: 'n-alpha' });
    expect(obj.status?.id).toBe('n-alpha');
    expect(t.events.list().map((e) => e.reason)).toEqual(['CreatedExternal']);
  });

  it('finishes a create that failed after the id was recorded on the next reconcile', async () => {
    const t = setup({ naturalIds: true });
    t.create('a', { name: 'alpha' });
    t.service.failNext('create', fakeServiceError(0, 'socket hang up'));
    const first = await t.reconcile('a');
    expect(first.error).toMatchObject({ errorClass: 'transient', reason: 'ServiceUnreachable' });
    expect(t.get('a')?.metadata.annotations).toEqual({ [ANNOTATION_EXTERNAL_ID]: 'n-alpha' });
    expect(t.service.widgets.size).toBe(0);
    await t.reconcile('a');
    expect(t.service.writes()).toEqual(['create alpha', 'create alpha']);
    expect([...t.service.widgets.keys()]).toEqual(['n-alpha']);
    expect(t.condition('a', 'Ready')?.status).toBe('True');
  });
});

describe('managed reconciler: service errors', () => {
  it.each([
    {
      reason: '400 is terminal with the service message',
      status: 400,
      errorClass: 'terminal',
      conditionReason: 'Rejected',
      markCleared: true,
    },
    {
      reason: '422 is terminal',
      status: 422,
      errorClass: 'terminal',
      conditionReason: 'Rejected',
      markCleared: true,
    },
    {
      reason: '401 waits for new credentials',
      status: 401,
      errorClass: 'waiting',
      conditionReason: 'Unauthorized',
      markCleared: true,
    },
    {
      reason: '403 waits for a permission',
      status: 403,
      errorClass: 'waiting',
      conditionReason: 'Forbidden',
      markCleared: true,
    },
    {
      reason: '404 on a write is terminal',
      status: 404,
      errorClass: 'terminal',
      conditionReason: 'NotFound',
      markCleared: true,
    },
    {
      reason: '429 waits for Retry-After',
      status: 429,
      errorClass: 'rateLimited',
      conditionReason: 'RateLimited',
      markCleared: true,
    },
    {
      reason: '503 is transient and may have created',
      status: 503,
      errorClass: 'transient',
      conditionReason: 'ServiceUnavailable',
      markCleared: false,
    },
    {
      reason: 'no answer is transient and may have created',
      status: 0,
      errorClass: 'transient',
      conditionReason: 'ServiceUnreachable',
      markCleared: false,
    },
  ])('$reason', async ({ status, errorClass, conditionReason, markCleared }) => {
    const t = setup();
    t.create('a', { name: 'alpha' });
    t.service.failNext('create', fakeServiceError(status, 'the service says no', 7_000));
    const { error } = await t.reconcile('a');
    expect(error).toMatchObject({ errorClass, reason: conditionReason });
    if (errorClass === 'rateLimited') expect(error).toMatchObject({ retryAfterMs: 7_000 });
    if (errorClass === 'waiting') expect(error).toMatchObject({ requeueAfterMs: poll });
    const synced = t.condition('a', 'Synced');
    expect(synced).toMatchObject({ status: 'False', reason: conditionReason });
    expect(synced?.message).toMatch(/^cannot create external object: /);
    if (status > 0) expect(synced?.message).toContain(`service answered ${status}: the service says no`);
    expect(t.condition('a', 'Ready')).toMatchObject({ status: 'False', reason: 'Unavailable' });
    expect(t.events.list()).toEqual([
      expect.objectContaining({ type: 'Warning', reason: 'CannotCreateExternal', count: 1 }),
    ]);
    expect(t.get('a')?.metadata.annotations?.[ANNOTATION_CREATE_PENDING] === undefined).toBe(markCleared);
  });

  it('recovers after a transient failure and reports Synced again', async () => {
    const t = setup();
    t.create('a', { name: 'alpha' });
    await t.reconcile('a');
    t.service.failNext('observe', fakeServiceError(502, 'bad gateway'));
    expect((await t.reconcile('a')).error).toMatchObject({ reason: 'ServiceUnavailable' });
    expect(t.condition('a', 'Ready')?.status).toBe('True');
    await t.reconcile('a');
    expect(t.condition('a', 'Synced')).toMatchObject({ status: 'True', reason: 'ReconcileSuccess' });
  });

  it('requeues silently on a stale read instead of creating twice', async () => {
    const t = setup();
    t.create('a', { name: 'alpha' });
    await t.reconcile('a');
    const statusWrites = t.store.writes.filter((w) => w === 'status').length;
    t.store.serveStale(1);
    t.service.widgets.clear();
    const { error } = await t.reconcile('a');
    expect(error).toMatchObject({ errorClass: 'conflict' });
    expect(t.service.writes()).toEqual(['create alpha']);
    expect(t.store.writes.filter((w) => w === 'status')).toHaveLength(statusWrites);
  });
});

describe('managed reconciler: lagging cache', () => {
  it('does not treat the mark of a finished create as interrupted', async () => {
    const t = setup();
    t.create('a', { name: 'alpha' });
    await t.reconcile('a');
    // The cache still shows the state between "mark" and "record id".
    t.store.serveOldVersion(
      { namespace: ns, name: 'a' },
      (o) => !!o.metadata.annotations?.[ANNOTATION_CREATE_PENDING],
    );
    const { error } = await t.reconcile('a');
    expect(error).toMatchObject({ errorClass: 'conflict' });
    expect(t.service.calls.filter((c) => c.startsWith('find'))).toEqual([]);
    expect(t.events.list().map((e) => e.reason)).toEqual(['CreatedExternal']);
  });
});
