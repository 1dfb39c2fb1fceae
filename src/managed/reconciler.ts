/**
 * The generic reconciler for "a custom resource that mirrors a service object" (after
 * crossplane-runtime's managed reconciler). One flow for every kind:
 *
 * 1. read the resource; `coffer.dev/paused: "true"` → `Synced=False` reason `Paused`, stop;
 * 2. validate the spec (zod); invalid → `Synced=False` reason `InvalidSpec`, a Warning event
 *    once, `TerminalError` (no retry until the resource changes);
 * 3. being deleted → `deletion.ts` (policy, abandon, protection, finalizer);
 * 4. otherwise `sync.ts`: finalizer, references (waiting → `ReferenceNotReady`), observe, the
 *    crash-safe create or an update, output Secrets;
 * 5. `Ready`/`Synced` with observedGeneration, status written only when changed, events only for
 *    what happened; requeue after the poll interval with jitter.
 *
 * Failures are classified (`service-errors.ts`), reported in `Synced=False` with a stable
 * message, and rethrown as the runtime's error classes so the controller retries each class its
 * own way; Kubernetes write conflicts are rethrown silently.
 */
import { Reasons } from '../runtime/conditions.ts';
import { jitter } from '../runtime/duration.ts';
import { TerminalError, type ReconcileError } from '../runtime/errors.ts';
import type { EventInput } from '../runtime/events.ts';
import { ANNOTATION_PAUSED, isAnnotationTrue, isBeingDeleted } from '../runtime/object-meta.ts';
import type { Reconciler, Result } from '../runtime/reconcile.ts';
import { deleteExternal } from './deletion.ts';
import type { AdapterStatus, ManagedSpecFields } from './external-client.ts';
import { REFERENCE_NOT_READY } from './references.ts';
import { withDefaults, type ManagedReconcilerOptions } from './reconciler-options.ts';
import {
  finish,
  pausedCondition,
  stepAction,
  stepFailureEvent,
  type ConditionState,
  type Run,
} from './run.ts';
import { classifyServiceError } from './service-errors.ts';
import { parseSpec, pollIntervalOf } from './spec.ts';
import { syncExternal } from './sync.ts';

const synced: ConditionState = {
  status: 'True',
  reason: Reasons.ReconcileSuccess,
  message: 'the external object is in sync with the spec',
};

const observed: ConditionState = {
  status: 'True',
  reason: Reasons.ReconcileSuccess,
  message: 'the external object was observed (managementPolicy ObserveOnly: no changes are made)',
};

/** Failures that are expected states, not incidents: no Warning event. */
const quietReasons = new Set<string>([REFERENCE_NOT_READY]);

function validate<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
): TerminalError | undefined {
  try {
    run.spec = parseSpec(run.settings.schema, run.obj.spec);
    run.pollIntervalMs = pollIntervalOf(run.spec, run.settings.defaultPollIntervalMs);
    return undefined;
  } catch (error) {
    if (error instanceof TerminalError) return error;
    throw error;
  }
}

async function reconcileRun<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
): Promise<Result> {
  const specError = validate(run);
  if (isBeingDeleted(run.obj)) {
    await deleteExternal(run, specError);
    return {};
  }
  if (specError) throw specError;
  const state = await syncExternal(run);
  const observeOnly = run.spec?.managementPolicy === 'ObserveOnly';
  await finish(run, observeOnly ? observed : synced, {
    id: state.id,
    ...(state.created ? { createdId: state.id } : {}),
    adapterStatus: state.status,
  });
  const poll = jitter(run.pollIntervalMs, run.settings.jitterFactor, run.settings.random);
  const hint = run.requeueHintMs;
  return { requeueAfterMs: hint !== undefined && hint >= 0 && hint < poll ? Math.max(hint, 1) : poll };
}

/** Reports a failure in status and events; returns the error for the controller. */
async function fail<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
  error: unknown,
): Promise<ReconcileError> {
  const classified = classifyServiceError(error, stepAction[run.step], run.pollIntervalMs);
  if (classified.errorClass === 'conflict') return classified;
  const condition: ConditionState = {
    status: 'False',
    reason: classified.reason,
    message: classified.message,
  };
  const warning: EventInput | undefined = quietReasons.has(classified.reason)
    ? undefined
    : { type: 'Warning', reason: stepFailureEvent[run.step], message: classified.message };
  try {
    const created = run.created ? { id: run.created, createdId: run.created } : {};
    await finish(run, condition, created, warning);
  } catch (statusError) {
    run.context.log.warn({ err: statusError }, 'cannot write status after a failed reconcile');
  }
  return classified;
}

/**
 * Creates the reconciler for one managed kind. The returned function reads the resource through
 * `options.reader`, writes through `options.patcher`, and resolves with a poll requeue or throws
 * a classified `ReconcileError` (see the module comment).
 */
export function createManagedReconciler<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  options: ManagedReconcilerOptions<Spec, Refs, Status>,
): Reconciler {
  const settings = withDefaults(options);
  return async (request, context) => {
    const obj = await settings.reader.get(request);
    if (!obj) return {};
    const run: Run<Spec, Refs, Status> = {
      settings,
      context,
      now: settings.now(),
      obj,
      step: 'validate',
      pollIntervalMs: settings.defaultPollIntervalMs,
      events: [],
    };
    if (isAnnotationTrue(obj, ANNOTATION_PAUSED)) {
      await finish(run, pausedCondition);
      return {};
    }
    try {
      return await reconcileRun(run);
    } catch (error) {
      throw await fail(run, error);
    }
  };
}
