/**
 * Crash-safe creation of the external object (after crossplane-runtime's critical annotations).
 *
 * 1. Mark the create pending (create-mark.ts): the `coffer.dev/create-pending` annotation (and
 *    the finalizer, if missing, in the same write), then the same time in `status.createPending`,
 *    each write guarded by the resourceVersion of the one before: if our cache is stale (an id may
 *    already be recorded), this fails with 409 and nothing is created.
 * 2. Call `create`.
 * 3. Record the returned id and clear the annotation in one merge patch, retried a few times.
 *    The status at the end of the reconcile, the next Kubernetes write, records the id in
 *    `status.id`, `status.createdId` (this resource created it: ownership.ts, rule 4; an object
 *    recovered as below is not marked as created) and clears the status half of the mark
 *    (`urgentStatus` says when part of that is written at once instead).
 *
 * These are the fewest writes that keep the guarantees below: the finalizer must be stored
 * before anything exists in the service (or a deletion in between leaks the object); the mark
 * must be in status too (the one place a manifest cannot forge); and the id is only known after
 * the create, and is recorded in the annotation that also names an adopted object. So a create
 * costs two metadata writes (steps 1 and 3) and two status writes (step 1 and the end).
 *
 * Adapters whose id is known before the create and whose create is idempotent
 * (`idBeforeCreate`) record the id in step 1 instead of the mark, and skip step 3.
 *
 * If the process dies between 2 and 3, the next reconcile finds the mark (both halves) without an
 * id and looks the object up by its natural key (`recoverInterruptedCreate`): a single match
 * created after the mark is adopted, none is created again, anything undecidable stops with
 * `CreateIncomplete` for a human to decide (`recoveryMatch` in ownership.ts). No duplicate, and
 * no foreign object taken: an annotation without its status half (a manifest can set the
 * annotation, never status) is no mark.
 */
import { rfc3339 } from '../runtime/conditions.ts';
import { TransientError } from '../runtime/errors.ts';
import { finalizerPatch } from '../runtime/finalizers.ts';
import {
  ANNOTATION_CREATE_PENDING,
  ANNOTATION_EXTERNAL_ID,
  annotationPatch,
  patchGuarded,
  refOf,
} from '../runtime/object-meta.ts';
import { findKind } from '../api/v1alpha1/index.ts';
import { connectionKindOf } from './connections/kinds.ts';
import { markInStatus, STATUS_CREATE_PENDING } from './create-mark.ts';
import type {
  AdapterStatus,
  ExternalClient,
  ExternalContext,
  ManagedSpecFields,
  ManagedStatus,
  SecretOutputs,
} from './external-client.ts';
import { recoveryMatch } from './ownership.ts';
import { view, type Run } from './run.ts';
import { definitelyNotPerformed, describeError } from './service-errors.ts';
import { commonReasons } from '../runtime/common-reasons.ts';

/** What the reconciler knows about the external object after observe/create/update. */
export interface ExternalState<Status extends AdapterStatus> {
  readonly id: string;
  readonly status?: Status;
  readonly secretData?: SecretOutputs;
  /** True when this reconcile created the object (recorded as `status.createdId`). */
  readonly created?: boolean;
}

type AnyRun<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus> = Run<Spec, Refs, Status>;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Generic status fields written at once beside the id (see `urgentStatus`). */
type UrgentStatus = Pick<ManagedStatus, 'id' | 'createdId'>;

/**
 * The generic status fields to write right after recording `id` rather than with the rest of the
 * status at the end of the reconcile; undefined when nothing is urgent:
 * - `status.id` through a cluster-scoped connection (until it is there, the resource counts as
 *   adopting, which such a connection may refuse);
 * - `status.createdId` after this resource's own create of an object that can be protected
 *   (an object it created stays its to manage, ownership.ts rule 4), when output Secrets are to be
 *   written before the end of the reconcile. Otherwise the status at the end of the reconcile is
 *   the next Kubernetes write and carries it (and a failed reconcile's status carries it too,
 *   `Run.created`): a write of its own would only move the point where a crash leaves the id
 *   recorded without `status.createdId`, and such a crash is safe either way: the object then
 *   counts as adopted (protected once something relies on it, the opt-in lifts it), never as
 *   created by this resource when it was not.
 * (With an id known before the create, `status.createdId` comes with the rest of the status.)
 */
function urgentStatus<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: AnyRun<Spec, Refs, Status>,
  id: string,
  created: { client: ExternalClient<Spec, Refs, Status>; outputs: boolean } | undefined,
): UrgentStatus | undefined {
  const ref = run.spec?.connectionRef;
  const clusterScoped = ref !== undefined && findKind(connectionKindOf(ref))?.scope === 'Cluster';
  const withCreatedId = created?.client.protection !== undefined && (clusterScoped || created.outputs);
  if (withCreatedId) return { id, createdId: id };
  return clusterScoped ? { id } : undefined;
}

/**
 * Records `id` in `coffer.dev/external-id` and clears `coffer.dev/create-pending` with one
 * unguarded merge patch (it must not lose a conflict race: the id is the only link to the
 * object just created), retried after each of `persistRetryDelaysMs`; then `urgent` in status.
 */
async function persistExternalId<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: AnyRun<Spec, Refs, Status>,
  id: string,
  urgent: UrgentStatus | undefined,
): Promise<void> {
  const patch = {
    metadata: { annotations: { [ANNOTATION_EXTERNAL_ID]: id, [ANNOTATION_CREATE_PENDING]: null } },
  };
  const delays = [0, ...run.settings.persistRetryDelaysMs];
  let lastError: unknown;
  for (const delay of delays) {
    if (delay > 0) await sleep(delay, run.context.signal);
    try {
      run.obj = await run.settings.patcher.mergePatch(refOf(run.obj), patch);
      if (urgent) await recordInStatus(run, urgent);
      return;
    } catch (error) {
      lastError = error;
      run.context.log.warn({ err: error, externalId: id }, 'cannot record external id yet; retrying');
    }
  }
  throw new TransientError(
    commonReasons.names.ReconcileError,
    `cannot record external id ${id}: ${describeError(lastError)}`,
    {
      cause: lastError,
    },
  );
}

/**
 * Writes `fields` into status and clears the status half of the mark, best effort: the end of
 * the reconcile writes them again.
 */
async function recordInStatus<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: AnyRun<Spec, Refs, Status>,
  fields: UrgentStatus,
): Promise<void> {
  try {
    const status = { ...fields, [STATUS_CREATE_PENDING]: null };
    run.obj = await run.settings.patcher.mergePatchStatus(refOf(run.obj), { status });
  } catch (error) {
    run.context.log.warn({ err: error, externalId: fields.id }, 'cannot record external id in status yet');
  }
}

/**
 * Clears the annotation after a create the service certainly did not perform; the status half
 * then no longer counts and goes with the status at the end of the reconcile.
 */
async function clearPendingMark<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: AnyRun<Spec, Refs, Status>,
): Promise<void> {
  try {
    const patch = { metadata: { annotations: { [ANNOTATION_CREATE_PENDING]: null } } };
    run.obj = await run.settings.patcher.mergePatch(refOf(run.obj), patch);
  } catch (error) {
    // Harmless if it stays: the next reconcile looks up by natural key, finds nothing, creates.
    run.context.log.warn({ err: error }, 'cannot clear create-pending mark');
  }
}

/**
 * Step 1: the finalizer with the mark (or with the id known beforehand), before anything can
 * exist in the service; then the mark's status half.
 */
async function markCreatePending<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: AnyRun<Spec, Refs, Status>,
  knownId: string | undefined,
): Promise<void> {
  const markedAt = knownId ? undefined : rfc3339(run.now);
  const mark = [
    ...finalizerPatch(run.obj),
    ...annotationPatch(run.obj, {
      [ANNOTATION_CREATE_PENDING]: markedAt ?? null,
      [ANNOTATION_EXTERNAL_ID]: knownId ?? null,
    }),
  ];
  const what = knownId ? 'record external id' : 'mark create pending';
  run.obj = await patchGuarded(run.settings.patcher, run.obj, mark, what);
  if (markedAt) run.obj = await markInStatus(run.settings.patcher, run.obj, markedAt);
}

/** Steps 1-3 above. `previousId` is an id whose object was found missing (re-creation). */
export async function createExternal<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: AnyRun<Spec, Refs, Status>,
  client: ExternalClient<Spec, Refs, Status>,
  context: ExternalContext<Refs>,
  previousId: string | undefined,
): Promise<ExternalState<Status>> {
  run.step = 'create';
  const knownId = client.idBeforeCreate?.(view(run), context);
  await markCreatePending(run, knownId);
  let creation;
  try {
    creation = await client.create(view(run), { ...context, externalId: knownId });
  } catch (error) {
    if (!knownId && definitelyNotPerformed(error)) await clearPendingMark(run);
    throw error;
  }
  if (creation.externalId !== knownId) {
    const outputs = (creation.secretData?.length ?? 0) > 0;
    const urgent = urgentStatus(run, creation.externalId, { client, outputs });
    await persistExternalId(run, creation.externalId, urgent);
  }
  run.created = creation.externalId;
  const replaced = previousId ? ` (the previous object ${previousId} was not found)` : '';
  run.events.push({
    type: 'Normal',
    reason: 'CreatedExternal',
    message: `created external object ${creation.externalId}${replaced}`,
  });
  run.events.push(...(creation.events ?? []));
  return {
    id: creation.externalId,
    status: creation.status,
    secretData: creation.secretData,
    created: true,
  };
}

/**
 * A create was interrupted (the operator's mark set, no id). Returns the adopted id, or
 * undefined when no match was created after the mark (the caller observes, then creates or
 * refuses a foreign object). Undecidable cases throw `TerminalError` (`CreateIncomplete`).
 */
export async function recoverInterruptedCreate<
  Spec extends ManagedSpecFields,
  Refs,
  Status extends AdapterStatus,
>(
  run: AnyRun<Spec, Refs, Status>,
  client: ExternalClient<Spec, Refs, Status>,
  context: ExternalContext<Refs>,
): Promise<string | undefined> {
  run.step = 'recover';
  // A lagging cache shows the mark of a create that already finished: a no-op patch guarded by
  // resourceVersion fails with 409 in that case, before the service is asked anything.
  run.obj = await patchGuarded(
    run.settings.patcher,
    run.obj,
    annotationPatch(run.obj, {}),
    'check create mark',
  );
  const matches = await client.findByNaturalKey(view(run), context);
  const only = recoveryMatch(run.obj, matches, run.settings.createClockSkewMs);
  if (only === undefined) return undefined;
  await persistExternalId(run, only, urgentStatus(run, only, undefined));
  run.events.push({
    type: 'Normal',
    reason: 'AdoptedExternal',
    message: `adopted external object ${only}, created by this resource before an interruption`,
  });
  return only;
}
