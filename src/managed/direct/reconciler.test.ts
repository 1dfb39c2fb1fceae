import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FakeEvents, FakeObjectStore } from '../../../test/support/fake-kube.ts';
import { ServerError } from '../../client/index.ts';
import type { ManagedObject } from '../external-client.ts';
import { createEventRecorder } from '../../runtime/events.ts';
import { createLogger } from '../../runtime/logger.ts';
import { ANNOTATION_ABANDON, ANNOTATION_PAUSED, FINALIZER } from '../../runtime/object-meta.ts';
import type { DependentsLookup } from './deletion.ts';
import { DEPENDENTS_FINALIZER, type DirectOutcome, type DirectSync } from './kind.ts';
import { createDirectReconciler } from './reconciler.ts';
import { commonReasons } from '../../runtime/common-reasons.ts';
import { testReason } from '../../runtime/reasons.ts';

const schema = z.object({ url: z.string().min(1) });
type Spec = z.output<typeof schema>;
const log = createLogger({ level: 'silent' });
const context = { signal: new AbortController().signal, log };
const request = { namespace: 'ns', name: 'c' };

function setup(
  sync: DirectSync<Spec>['sync'],
  spec: unknown = { url: 'http://x' },
  annotations?: Record<string, string>,
  dependents?: DependentsLookup,
) {
  const store = new FakeObjectStore<ManagedObject<unknown>>();
  store.create({
    apiVersion: 'coffer.dev/v1alpha1',
    kind: 'Connection',
    metadata: { name: 'c', namespace: 'ns', ...(annotations ? { annotations } : {}) },
    spec,
  });
  const events = new FakeEvents();
  const forgotten: string[] = [];
  const reconcile = createDirectReconciler<Spec, Record<string, unknown>>({
    schema,
    sync: { sync, forget: (r) => forgotten.push(r.name) },
    reader: store,
    patcher: store,
    events: createEventRecorder({ api: events, component: 'test' }),
    pollIntervalMs: 60_000,
    ...(dependents ? { dependents } : {}),
    now: () => new Date('2030-01-01T00:00:00Z'),
  });
  return { store, events, forgotten, reconcile };
}

const ready: DirectOutcome = {
  ready: { status: 'True', reason: commonReasons.names.Available, message: 'fine' },
  id: 'ident-1',
  status: { organizationId: 'org-1' },
  events: [{ type: 'Normal', reason: 'Connected', message: 'connected' }],
};

const conditions = (obj: ManagedObject<unknown> | undefined) =>
  Object.fromEntries(
    (obj?.status?.conditions ?? []).map((c) => [c.type, `${c.status}/${c.reason}/${c.observedGeneration}`]),
  );

describe('createDirectReconciler', () => {
  it('writes Ready, Synced, id and the kind fields, records events, and requeues at the poll interval', async () => {
    const { store, events, reconcile } = setup(() => Promise.resolve(ready));
    const result = await reconcile(request, context);
    const obj = store.peek(request);
    expect(conditions(obj)).toEqual({ Ready: 'True/Available/1', Synced: 'True/ReconcileSuccess/1' });
    expect(obj?.status).toMatchObject({ id: 'ident-1', organizationId: 'org-1', observedGeneration: 1 });
    expect(events.list().map((e) => e.reason)).toEqual(['Connected']);
    expect(result.requeueAfterMs).toBeGreaterThanOrEqual(60_000);
    expect(result.requeueAfterMs).toBeLessThanOrEqual(66_000);
  });

  it('does not write status again when nothing changed', async () => {
    const { store, reconcile } = setup(() => Promise.resolve({ ...ready, events: [] }));
    await reconcile(request, context);
    const writes = store.writes.length;
    await reconcile(request, context);
    expect(store.writes.length).toBe(writes);
  });

  it('passes the requeue and its deadline on to the work queue', async () => {
    const { reconcile } = setup(() =>
      Promise.resolve({ ...ready, requeueAfterMs: 40_000, requeueBeforeMs: 60_000 }),
    );
    expect(await reconcile(request, context)).toEqual({ requeueAfterMs: 40_000, requeueBeforeMs: 60_000 });
  });

  it('honours requeueAfterMs: null (no retry loop)', async () => {
    const stopped: DirectOutcome = {
      ready: { status: 'False', reason: testReason('AlreadyBootstrapped'), message: 'm' },
      synced: { status: 'False', reason: testReason('AlreadyBootstrapped'), message: 'm' },
      requeueAfterMs: null,
    };
    const { store, reconcile } = setup(() => Promise.resolve(stopped));
    expect(await reconcile(request, context)).toEqual({});
    expect(conditions(store.peek(request))).toEqual({
      Ready: 'False/AlreadyBootstrapped/1',
      // A reason no table declares (testReason) reads as work under way for kstatus.
      Reconciling: 'True/AlreadyBootstrapped/1',
      Synced: 'False/AlreadyBootstrapped/1',
    });
  });

  it('reports an invalid spec as InvalidSpec without calling sync', async () => {
    let calls = 0;
    const { store, reconcile } = setup(
      () => {
        calls++;
        return Promise.resolve(ready);
      },
      { url: '' },
    );
    await expect(reconcile(request, context)).rejects.toMatchObject({
      errorClass: 'terminal',
      reason: 'InvalidSpec',
    });
    expect(calls).toBe(0);
    expect(conditions(store.peek(request)).Synced).toBe('False/InvalidSpec/1');
  });

  it('keeps Ready and reports Synced=False on a service failure, once as a Warning', async () => {
    let fail = false;
    const { store, events, reconcile } = setup(() =>
      fail
        ? Promise.reject(new ServerError({ operation: 'identities.get', status: 503, message: 'down' }))
        : Promise.resolve({ ...ready, events: [] }),
    );
    await reconcile(request, context);
    fail = true;
    await expect(reconcile(request, context)).rejects.toMatchObject({ errorClass: 'transient' });
    await expect(reconcile(request, context)).rejects.toMatchObject({ errorClass: 'transient' });
    expect(conditions(store.peek(request))).toEqual({
      Ready: 'True/Available/1',
      // kstatus: the failure is retried, the spec is not applied yet.
      Reconciling: 'True/ServiceUnavailable/1',
      Synced: 'False/ServiceUnavailable/1',
    });
    expect(events.list()).toEqual([expect.objectContaining({ type: 'Warning', count: 1 })]);
  });

  it('stops at the paused annotation and forgets deleted objects', async () => {
    const paused = setup(() => Promise.reject(new Error('must not sync')), undefined, {
      [ANNOTATION_PAUSED]: 'true',
    });
    expect(await paused.reconcile(request, context)).toEqual({});
    expect(conditions(paused.store.peek(request)).Synced).toBe('False/Paused/1');
    const gone = setup(() => Promise.resolve(ready));
    expect(await gone.reconcile({ namespace: 'ns', name: 'other' }, context)).toEqual({});
    expect(gone.forgotten).toEqual(['other']);
  });

  describe('held by dependents', () => {
    /** A held object, reconciled once (finalizer added), then deleted with `holding` dependents. */
    async function deletedWhileHeld(holding: string[], annotations?: Record<string, string>) {
      const t = setup(
        () => Promise.resolve(ready),
        undefined,
        annotations,
        () => holding,
      );
      await t.reconcile(request, context);
      expect(t.store.peek(request)?.metadata.finalizers).toEqual([DEPENDENTS_FINALIZER]);
      t.store.delete(request);
      return t;
    }

    it('stays while dependents hold on, says whom it waits for, and keeps its client', async () => {
      const holding = Array.from({ length: 12 }, (_, i) => `Project/ns/p${String(i).padStart(2, '0')}`);
      const t = await deletedWhileHeld(holding);
      const result = await t.reconcile(request, context);
      const obj = t.store.peek(request);
      expect(obj?.metadata.finalizers).toEqual([DEPENDENTS_FINALIZER]);
      expect(obj?.status).toMatchObject({ organizationId: 'org-1', waitingFor: holding.slice(0, 10) });
      const ready = obj?.status?.conditions?.find((c) => c.type === 'Ready');
      expect(ready).toMatchObject({ status: 'False', reason: 'DeletionWaiting' });
      expect(ready?.message).toContain('waiting for 12 resources');
      expect(ready?.message).toContain('Project/ns/p09 and 2 more');
      expect(result.requeueAfterMs).toBeGreaterThanOrEqual(60_000);
      expect(t.forgotten).toEqual([]);
    });

    it('lets go once no dependent holds on, and forgets the client', async () => {
      const holding = ['Project/ns/p'];
      const t = await deletedWhileHeld(holding);
      await t.reconcile(request, context);
      holding.pop();
      expect(await t.reconcile(request, context)).toEqual({});
      expect(t.store.peek(request)).toBeUndefined();
      expect(t.forgotten).toEqual(['c']);
    });

    it('lets go at once with the abandon annotation', async () => {
      const t = await deletedWhileHeld(['Project/ns/p'], { [ANNOTATION_ABANDON]: 'true' });
      await t.reconcile(request, context);
      expect(t.store.peek(request)).toBeUndefined();
    });
  });

  describe('with a release', () => {
    /** A kind that holds something while `spec.url` says `hold`; releases are counted. */
    function holding(spec: Spec, annotations?: Record<string, string>) {
      const t = setup(() => Promise.resolve(ready), spec, annotations);
      const released: string[] = [];
      const reconcile = createDirectReconciler<Spec, Record<string, unknown>>({
        schema,
        sync: {
          sync: () => Promise.resolve(ready),
          forget: (r) => t.forgotten.push(r.name),
          release: {
            holds: (obj) => obj.spec.url === 'hold',
            release: (obj) => {
              released.push(obj.metadata.name);
              return Promise.resolve();
            },
          },
        },
        reader: t.store,
        patcher: t.store,
        events: createEventRecorder({ api: t.events, component: 'test' }),
        pollIntervalMs: 60_000,
      });
      return { ...t, reconcile, released };
    }

    it('adds the finalizer only when the kind holds something, and releases before letting go', async () => {
      const free = holding({ url: 'http://x' });
      await free.reconcile(request, context);
      expect(free.store.peek(request)?.metadata.finalizers).toBeUndefined();
      const t = holding({ url: 'hold' });
      await t.reconcile(request, context);
      expect(t.store.peek(request)?.metadata.finalizers).toEqual([FINALIZER]);
      t.store.delete(request);
      expect(t.store.peek(request)).toBeDefined();
      expect(await t.reconcile(request, context)).toEqual({});
      expect(t.released).toEqual(['c']);
      expect(t.store.peek(request)).toBeUndefined();
      expect(t.forgotten).toEqual(['c']);
    });

    it('lets go without releasing with the abandon annotation', async () => {
      const t = holding({ url: 'hold' }, { [ANNOTATION_ABANDON]: 'true' });
      await t.reconcile(request, context);
      t.store.delete(request);
      await t.reconcile(request, context);
      expect(t.released).toEqual([]);
      expect(t.store.peek(request)).toBeUndefined();
    });
  });
});
