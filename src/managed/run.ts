/**
 * The state of one reconcile of one managed resource, and how it ends: the status (conditions,
 * id, observedGeneration, adapter fields) written only when it changed, then the events.
 */
import {
  CONDITION_READY,
  CONDITION_SYNCED,
  getCondition,
  Reasons,
  sameCondition,
  setCondition,
  type ConditionInput,
  type ConditionStatus,
} from '../runtime/conditions.ts';
import type { EventInput } from '../runtime/events.ts';
import {
  ANNOTATION_PAUSED,
  ANNOTATION_RECONCILE_REQUESTED_AT,
  getAnnotation,
} from '../runtime/object-meta.ts';
import type { ReconcileContext } from '../runtime/reconcile.ts';
import { patchStatusIfChanged } from '../runtime/status.ts';
import { createMarkOf } from './create-mark.ts';
import type { AdapterStatus, ManagedObject, ManagedSpecFields, ManagedStatus } from './external-client.ts';
import type { Settings } from './reconciler-options.ts';
import type { Reason } from '../runtime/reasons.ts';
import { withKstatusConditions } from '../runtime/kstatus.ts';

/** The step a reconcile is in; names the action in error messages and the Warning event reason. */
export type Step =
  | 'validate'
  | 'finalize'
  | 'resolve'
  | 'connect'
  | 'recover'
  | 'observe'
  | 'create'
  | 'update'
  | 'delete'
  | 'publish';

/** `cannot <action>` for each step. */
export const stepAction: Readonly<Record<Step, string>> = {
  validate: 'validate spec',
  finalize: 'update finalizer',
  resolve: 'resolve references',
  connect: 'connect to the service',
  recover: 'look up external object by natural key',
  observe: 'observe external object',
  create: 'create external object',
  update: 'update external object',
  delete: 'delete external object',
  publish: 'publish output Secret',
};

/** Warning event reason when a step fails. */
export const stepFailureEvent: Readonly<Record<Step, string>> = {
  validate: 'InvalidSpec',
  finalize: 'CannotUpdateFinalizer',
  resolve: 'CannotResolveReferences',
  connect: 'CannotConnect',
  recover: 'CannotRecoverCreate',
  observe: 'CannotObserveExternal',
  create: 'CannotCreateExternal',
  update: 'CannotUpdateExternal',
  delete: 'CannotDeleteExternal',
  publish: 'CannotPublishSecret',
};

/** A condition without type and generation (filled in when status is written). */
export interface ConditionState {
  readonly status: ConditionStatus;
  readonly reason: Reason;
  readonly message: string;
}

/** Synced while `coffer.dev/paused` is "true" (nothing else is done). */
export const pausedCondition: ConditionState = {
  status: 'False',
  reason: Reasons.Paused,
  message: `reconciliation is paused by the ${ANNOTATION_PAUSED} annotation`,
};

/** One reconcile in progress. Mutable: steps update `obj` after each write and push events. */
export interface Run<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus> {
  readonly settings: Settings<Spec, Refs, Status>;
  readonly context: ReconcileContext;
  readonly now: Date;
  /** The resource as last read or written (raw spec). */
  obj: ManagedObject<unknown>;
  /** The parsed spec, once validated. */
  spec?: Spec;
  step: Step;
  pollIntervalMs: number;
  /** A requeue sooner than the poll interval asked for by the adapter. */
  requeueHintMs?: number;
  /**
   * The id of the object this reconcile created, once recorded in the annotation: whatever status
   * the reconcile ends with records it as `status.id` and `status.createdId`.
   */
  created?: string;
  /** The Ready condition to write; undefined keeps the stored one. */
  ready?: ConditionState;
  /** Normal events to record once status is written. */
  readonly events: EventInput[];
}

/** The resource with its parsed spec, as adapters see it. */
export function view<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
): ManagedObject<Spec> {
  if (run.spec === undefined)
    throw new Error('cannot hand the resource to the adapter: its spec was not validated');
  return { ...run.obj, spec: run.spec };
}

const genericStatusKeys = new Set([
  'id',
  'createdId',
  'createPending',
  'observedGeneration',
  'conditions',
  'lastHandledReconcileAt',
]);

/** What a finished reconcile knows besides conditions. */
export interface StatusParts {
  readonly id?: string;
  /** The id of an object this reconcile created (kept from the previous status otherwise). */
  readonly createdId?: string;
  /** Replaces the previous adapter fields when given; otherwise they are kept. */
  readonly adapterStatus?: AdapterStatus;
}

/** The whole desired status: adapter fields, then the generic ones (which win on a clash). */
export function composeStatus(
  previous: ManagedStatus,
  parts: StatusParts & { generation?: number; conditions: ManagedStatus['conditions']; handledAt?: string },
): ManagedStatus {
  const adapterFields = parts.adapterStatus ?? previous;
  const status: ManagedStatus = {};
  for (const [key, value] of Object.entries(adapterFields)) {
    if (!genericStatusKeys.has(key) && value !== undefined) status[key] = value;
  }
  const id = parts.id ?? previous.id;
  if (id !== undefined) status.id = id;
  const createdId = parts.createdId ?? previous.createdId;
  if (createdId !== undefined) status.createdId = createdId;
  if (parts.generation !== undefined) status.observedGeneration = parts.generation;
  status.conditions = parts.conditions;
  const handledAt = parts.handledAt ?? previous.lastHandledReconcileAt;
  if (handledAt !== undefined) status.lastHandledReconcileAt = handledAt;
  return status;
}

/** The conditions a reconcile ends with. */
export interface EndConditions {
  /** Ready to write; undefined keeps the stored one, or writes `notReady` when there is none. */
  readonly ready?: ConditionState;
  readonly synced: ConditionState;
  readonly notReady: ConditionState;
}

/**
 * The whole status `obj` should have after a reconcile at `now` (conditions with
 * observedGeneration, id, adapter fields, the handled reconcile request, the create-pending mark
 * while it is still the operator's and no id came), and whether the
 * Synced condition changed. Shared by the managed and the direct reconciler.
 */
export function desiredStatus(
  obj: ManagedObject<unknown>,
  end: EndConditions,
  parts: StatusParts,
  now: Date,
): { status: ManagedStatus; syncedChanged: boolean } {
  const previous = obj.status ?? {};
  const generation = obj.metadata.generation;
  const condition = (type: string, state: ConditionState): ConditionInput => ({
    type,
    ...state,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  });
  const storedReady = getCondition(previous.conditions, CONDITION_READY);
  let conditions = previous.conditions;
  if (end.ready || !storedReady)
    conditions = setCondition(conditions, condition(CONDITION_READY, end.ready ?? end.notReady), now);
  const syncedCondition = condition(CONDITION_SYNCED, end.synced);
  const syncedChanged = !sameCondition(getCondition(previous.conditions, CONDITION_SYNCED), syncedCondition);
  conditions = withKstatusConditions(setCondition(conditions, syncedCondition, now), now, generation);
  const handledAt = getAnnotation(obj, ANNOTATION_RECONCILE_REQUESTED_AT);
  // The mark of a create whose id is not recorded stays for the next reconcile to recover; a
  // recorded id, or an annotation removed or changed, ends it.
  const createPending = parts.id === undefined ? createMarkOf(obj) : undefined;
  const status = composeStatus(previous, {
    ...parts,
    generation,
    conditions,
    ...(handledAt ? { handledAt } : {}),
  });
  return { status: createPending ? { ...status, createPending } : status, syncedChanged };
}

const notYetReady: ConditionState = {
  status: 'False',
  reason: Reasons.Unavailable,
  message: 'the external object is not available: see the Synced condition',
};

/**
 * Writes status with `synced` (and `run.ready`, or the stored Ready, or "not available yet")
 * when anything changed, then records `run.events` plus `warning` (only when Synced changed, so
 * a repeated failure is reported once). Returns whether the Synced condition changed.
 */
export async function finish<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
  synced: ConditionState,
  parts: StatusParts = {},
  warning?: EventInput,
): Promise<boolean> {
  const end = { ready: run.ready, synced, notReady: notYetReady };
  const { status: desired, syncedChanged } = desiredStatus(run.obj, end, parts, run.now);
  const { object } = await patchStatusIfChanged(run.settings.patcher, run.obj, desired);
  run.obj = object;
  const events = syncedChanged && warning ? [...run.events, warning] : run.events;
  for (const event of events) {
    if (event.type === 'Normal') run.context.log.info({ event: event.reason }, event.message);
    await run.settings.events.record(run.obj, event);
  }
  return syncedChanged;
}
