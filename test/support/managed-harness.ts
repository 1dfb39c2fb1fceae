// The generic managed reconciler wired to in-memory Kubernetes fakes and the fake widget service,
// for table-driven unit tests of its decisions.
import { pino } from 'pino';
import { getCondition } from '../../src/runtime/conditions.ts';
import { ReconcileError } from '../../src/runtime/errors.ts';
import { createEventRecorder } from '../../src/runtime/events.ts';
import type { Result } from '../../src/runtime/reconcile.ts';
import { createSecretWriter } from '../../src/runtime/secret-writer.ts';
import type { ManagedObject } from '../../src/managed/external-client.ts';
import { ANNOTATION_CREATE_PENDING } from '../../src/runtime/object-meta.ts';
import { createManagedReconciler } from '../../src/managed/reconciler.ts';
import { FakeEvents, FakeObjectStore, FakeSecrets } from './fake-kube.ts';
import { FakeWidgetService, widget, widgetAdapter, widgetSpecSchema } from './test-kind.ts';

/** Namespace of every object in the unit harness. */
export const ns = 'ns';
/** The default poll interval (jitter is off: random() is 0). */
export const poll = 600_000;

/** What one reconcile produced. */
export interface Outcome {
  readonly result?: Result;
  readonly error?: ReconcileError;
}

/** A fresh reconciler with empty fakes. */
export function setupManaged(options: { naturalIds?: boolean } = {}) {
  const store = new FakeObjectStore<ManagedObject<unknown>>();
  const service = new FakeWidgetService(options.naturalIds);
  const secrets = new FakeSecrets();
  const events = new FakeEvents();
  const now = new Date('2026-01-01T00:00:00Z');
  const reconciler = createManagedReconciler({
    schema: widgetSpecSchema,
    adapter: widgetAdapter(service, store),
    reader: store,
    patcher: store,
    events: createEventRecorder({ api: events, component: 'coffer', now: () => now }),
    secrets: createSecretWriter({ api: secrets }),
    defaultDeletionPolicy: 'Delete',
    persistRetryDelaysMs: [1],
    random: () => 0,
    now: () => now,
  });
  const context = { signal: new AbortController().signal, log: pino({ level: 'silent' }) };
  async function reconcile(name: string): Promise<Outcome> {
    try {
      return { result: await reconciler({ namespace: ns, name }, context) };
    } catch (error) {
      if (error instanceof ReconcileError) return { error };
      throw error;
    }
  }
  const create = (name: string, spec: Record<string, unknown>, annotations?: Record<string, string>) =>
    store.create(widget(ns, name, spec, annotations));
  /**
   * Creates a resource as an interrupted create leaves it: the operator's create-pending mark
   * `markedAt` in the annotation and in status (plus `annotations`).
   */
  const createInterrupted = (
    name: string,
    spec: Record<string, unknown>,
    markedAt: string,
    annotations: Record<string, string> = {},
  ) =>
    store.create({
      ...widget(ns, name, spec, { ...annotations, [ANNOTATION_CREATE_PENDING]: markedAt }),
      status: { createPending: markedAt },
    });
  const get = (name: string) => store.peek({ namespace: ns, name });
  const condition = (name: string, type: string) => getCondition(get(name)?.status?.conditions, type);
  return { store, service, secrets, events, reconcile, create, createInterrupted, get, condition };
}

export type ManagedHarness = ReturnType<typeof setupManaged>;
