/**
 * The reconciler of direct kinds (see `kind.ts`): read from the cache, honour
 * `coffer.dev/paused`, validate the spec, run the kind's `sync`, write `Ready`/`Synced` with
 * observedGeneration (only when status changed), record events, requeue.
 *
 * With `dependents` (kinds held by their dependents) it also adds `coffer.dev/dependents` before
 * the first sync, and on deletion keeps it until `deletion.ts` releases the object; the
 * kind's `forget` runs only once the object is released or gone. A kind with `sync.release`
 * gets `coffer.dev/finalizer` while `release.holds` says so, and on deletion its `release` runs
 * before the finalizer is removed (see `DirectRelease` in `kind.ts`).
 */
import type { z } from 'zod';
import type { AdapterStatus, ManagedObject } from '../external-client.ts';
import type { ObjectReader } from '../kube-objects.ts';
import { desiredStatus, pausedCondition, type ConditionState } from '../run.ts';
import { classifyServiceError } from '../service-errors.ts';
import { parseSpec } from '../spec.ts';
import { Reasons } from '../../runtime/conditions.ts';
import { jitter } from '../../runtime/duration.ts';
import type { EventInput, EventRecorder } from '../../runtime/events.ts';
import { ensureFinalizer, removeFinalizer } from '../../runtime/finalizers.ts';
import {
  ANNOTATION_ABANDON,
  ANNOTATION_PAUSED,
  hasFinalizer,
  isAnnotationTrue,
  isBeingDeleted,
  type ObjectPatcher,
} from '../../runtime/object-meta.ts';
import type { ReconcileContext, Reconciler, Request, Result } from '../../runtime/reconcile.ts';
import { patchStatusIfChanged } from '../../runtime/status.ts';
import { finalizeHeldObject, type DependentsLookup } from './deletion.ts';
import { DEPENDENTS_FINALIZER, type DirectOutcome, type DirectSync } from './kind.ts';

export interface DirectReconcilerOptions<Spec, Status extends AdapterStatus> {
  readonly schema: z.ZodType<Spec>;
  readonly sync: DirectSync<Spec, Status>;
  readonly reader: ObjectReader<ManagedObject<unknown>>;
  readonly patcher: ObjectPatcher<ManagedObject<unknown>>;
  readonly events: EventRecorder;
  readonly pollIntervalMs: number;
  /** For kinds held by their dependents: who still holds on (see the module comment). */
  readonly dependents?: DependentsLookup;
  readonly now?: () => Date;
}

const synced: ConditionState = {
  status: 'True',
  reason: Reasons.ReconcileSuccess,
  message: 'the last reconcile succeeded',
};

const notYetReady: ConditionState = {
  status: 'False',
  reason: Reasons.Unavailable,
  message: 'not ready: see the Synced condition',
};

interface Write {
  readonly ready?: ConditionState;
  readonly synced: ConditionState;
  readonly id?: string;
  readonly status?: AdapterStatus;
  readonly events: readonly EventInput[];
  /** Recorded only when Synced changed (a repeated failure is reported once). */
  readonly warning?: EventInput;
}

interface Settings {
  readonly patcher: ObjectPatcher<ManagedObject<unknown>>;
  readonly events: EventRecorder;
  readonly now: Date;
}

async function writeStatus(obj: ManagedObject<unknown>, write: Write, settings: Settings): Promise<void> {
  const end = { ready: write.ready, synced: write.synced, notReady: notYetReady };
  const parts = { id: write.id, adapterStatus: write.status };
  const { status: desired, syncedChanged } = desiredStatus(obj, end, parts, settings.now);
  const { object } = await patchStatusIfChanged(settings.patcher, obj, desired);
  const events = syncedChanged && write.warning ? [...write.events, write.warning] : write.events;
  for (const event of events) await settings.events.record(object, event);
}

function requeueOf(outcome: DirectOutcome, pollIntervalMs: number): number | undefined {
  if (outcome.requeueAfterMs === null) return undefined;
  return outcome.requeueAfterMs ?? jitter(pollIntervalMs, 0.1);
}

/** A held object being deleted: release it, or report whom it waits for and look again later. */
async function reconcileHeldDeletion<Spec, Status extends AdapterStatus>(
  obj: ManagedObject<unknown>,
  request: Request,
  options: DirectReconcilerOptions<Spec, Status> & { dependents: DependentsLookup },
  settings: Settings,
): Promise<Result> {
  const deletion = await finalizeHeldObject(obj, options.patcher, options.dependents);
  if (deletion.released) {
    options.sync.forget?.(request);
    return {};
  }
  await writeStatus(obj, { ...deletion.outcome, synced, events: [] }, settings);
  // The dependents' watch enqueues it when one lets go; this requeue is only a safety net.
  return { requeueAfterMs: jitter(options.pollIntervalMs, 0.1) };
}

/** Writes Synced=False for a failure (and a warning event when Synced changed); throws it classified. */
async function reportFailure<Spec, Status extends AdapterStatus>(
  obj: ManagedObject<unknown>,
  error: unknown,
  options: DirectReconcilerOptions<Spec, Status>,
  settings: Settings & { readonly context: ReconcileContext },
): Promise<never> {
  const classified = classifyServiceError(error, 'reconcile', options.pollIntervalMs);
  if (classified.errorClass === 'conflict') throw classified;
  const failure: ConditionState = {
    status: 'False',
    reason: classified.reason,
    message: classified.message,
  };
  const warning: EventInput = { type: 'Warning', reason: 'ReconcileFailed', message: classified.message };
  try {
    await writeStatus(obj, { synced: failure, events: [], warning }, settings);
  } catch (statusError) {
    settings.context.log.warn({ err: statusError }, 'cannot write status after a failed reconcile');
  }
  throw classified;
}

/** The finalizers, the kind's sync, status and events; failures classified. */
async function syncAndReport<Spec, Status extends AdapterStatus>(
  read: ManagedObject<unknown>,
  options: DirectReconcilerOptions<Spec, Status>,
  settings: Settings,
  context: ReconcileContext,
): Promise<Result> {
  let obj = read;
  try {
    if (options.dependents) obj = await ensureFinalizer(options.patcher, obj, DEPENDENTS_FINALIZER);
    const spec = parseSpec(options.schema, obj.spec);
    if (options.sync.release?.holds({ ...obj, spec })) obj = await ensureFinalizer(options.patcher, obj);
    const outcome = await options.sync.sync({ ...obj, spec }, { ...context, now: settings.now });
    const write = { ...outcome, synced: outcome.synced ?? synced, events: outcome.events ?? [] };
    await writeStatus(obj, write, settings);
    const after = requeueOf(outcome, options.pollIntervalMs);
    if (after === undefined) return {};
    const before = outcome.requeueBeforeMs;
    return { requeueAfterMs: after, ...(before !== undefined ? { requeueBeforeMs: before } : {}) };
  } catch (error) {
    return reportFailure(obj, error, options, { ...settings, context });
  }
}

/**
 * An object being deleted that still carries `coffer.dev/finalizer` for its kind's `release`:
 * let go (unless abandoned), then remove the finalizer.
 */
async function reconcileRelease<Spec, Status extends AdapterStatus>(
  obj: ManagedObject<unknown>,
  request: Request,
  options: DirectReconcilerOptions<Spec, Status>,
  settings: Settings & { readonly context: ReconcileContext },
): Promise<Result> {
  try {
    if (!isAnnotationTrue(obj, ANNOTATION_ABANDON))
      await options.sync.release?.release(obj, { ...settings.context, now: settings.now });
    await removeFinalizer(options.patcher, obj);
  } catch (error) {
    return reportFailure(obj, error, options, settings);
  }
  options.sync.forget?.(request);
  return {};
}

/** What a deletion of `obj` asks for: nothing to do, the held-kind path, or the release path. */
function deletionPath<Spec, Status extends AdapterStatus>(
  obj: ManagedObject<unknown>,
  options: DirectReconcilerOptions<Spec, Status>,
): 'none' | 'gone' | 'held' | 'release' {
  if (!isBeingDeleted(obj)) return 'none';
  if (options.dependents) return 'held';
  return options.sync.release && hasFinalizer(obj) ? 'release' : 'gone';
}

/** Creates the reconciler of one direct kind. */
export function createDirectReconciler<Spec, Status extends AdapterStatus>(
  options: DirectReconcilerOptions<Spec, Status>,
): Reconciler {
  const now = options.now ?? (() => new Date());
  return async (request, context: ReconcileContext) => {
    const obj = await options.reader.get(request);
    const deletion = obj ? deletionPath(obj, options) : 'gone';
    if (!obj || deletion === 'gone') {
      options.sync.forget?.(request);
      return {};
    }
    const settings = { patcher: options.patcher, events: options.events, now: now() };
    if (isAnnotationTrue(obj, ANNOTATION_PAUSED)) {
      await writeStatus(obj, { synced: pausedCondition, events: [] }, settings);
      return {};
    }
    if (deletion === 'held' && options.dependents)
      return reconcileHeldDeletion(obj, request, { ...options, dependents: options.dependents }, settings);
    if (deletion === 'release') return reconcileRelease(obj, request, options, { ...settings, context });
    return syncAndReport(obj, options, settings, context);
  };
}
