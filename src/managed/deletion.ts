/**
 * Deletion of a managed resource: honour `spec.deletionPolicy` (`Delete` or `Orphan`), treat a
 * missing external object as deleted, then remove the finalizer. The service's deletion
 * protection is reported as `Synced=False` reason `DeletionBlocked`; an admin can always let go
 * with the `coffer.dev/abandon: "true"` annotation (the finalizer is dropped, nothing is deleted).
 * An object the resource may not manage (ownership.ts: protected, or an adoption its
 * ClusterConnection refuses) is left in place: only what Coffer created or was explicitly and
 * admissibly pointed at is ever deleted.
 */
import { Reasons } from '../runtime/conditions.ts';
import { TerminalError, WaitingError } from '../runtime/errors.ts';
import type { EventInput } from '../runtime/events.ts';
import { removeFinalizer } from '../runtime/finalizers.ts';
import {
  ANNOTATION_ABANDON,
  ANNOTATION_EXTERNAL_ID,
  getAnnotation,
  hasFinalizer,
  isAnnotationTrue,
} from '../runtime/object-meta.ts';
import { createMarkOf } from './create-mark.ts';
import type { AdapterStatus, ExternalClient, ExternalContext, ManagedSpecFields } from './external-client.ts';
import { assertMayWrite, isNotOurs, recoveryMatch } from './ownership.ts';
import { view, type Run } from './run.ts';
import { isDeletionBlocked, isNotFound } from '../client/index.ts';
import { describeError } from './service-errors.ts';
import { deletionPolicyOf, INVALID_SPEC, isObserveOnly } from './spec.ts';
import { connect } from './sync.ts';
import { managedReasons } from './reasons.ts';

/** Condition reason while the service refuses deletion (deletion protection). */
export const DELETION_BLOCKED = managedReasons.names.DeletionBlocked;

const abandonHint = `or set the annotation ${ANNOTATION_ABANDON}: "true" to leave the external object in place`;

async function release<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
  event?: EventInput,
): Promise<void> {
  run.step = 'finalize';
  await removeFinalizer(run.settings.patcher, run.obj);
  if (event) await run.settings.events.record(run.obj, event);
}

/** The id to delete when a create was interrupted; undefined when nothing was created. */
async function idAfterInterruptedCreate<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
  client: ExternalClient<Spec, Refs, Status>,
  context: ExternalContext<Refs>,
): Promise<string | undefined> {
  run.step = 'recover';
  const matches = await client.findByNaturalKey(view(run), context);
  try {
    return recoveryMatch(run.obj, matches, run.settings.createClockSkewMs);
  } catch (error) {
    if (!(error instanceof TerminalError)) throw error;
    throw new TerminalError(
      error.reason,
      `cannot delete: ${error.message}; or delete the right one in the service and set ${ANNOTATION_ABANDON}: "true"`,
      { cause: error },
    );
  }
}

/** Connects and checks that the resource may delete its object; undefined when it may not. */
async function connectToDelete<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
  id: string | undefined,
): Promise<{ client: ExternalClient<Spec, Refs, Status>; context: ExternalContext<Refs> } | undefined> {
  try {
    const connected = await connect(run, true);
    assertMayWrite(run, connected.client, connected.context);
    return connected;
  } catch (error) {
    if (!isNotOurs(error)) throw error;
    const which = id ? `external object ${id}` : 'the external object';
    await release(run, {
      type: 'Normal',
      reason: 'OrphanedExternal',
      message: `left ${which} in place: this resource may not delete it (${error.message})`,
    });
    return undefined;
  }
}

async function deleteById<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
  client: ExternalClient<Spec, Refs, Status>,
  context: ExternalContext<Refs>,
  id: string,
): Promise<void> {
  run.step = 'delete';
  try {
    await client.delete(view(run), { ...context, externalId: id });
  } catch (error) {
    if (isNotFound(error)) return;
    const blocked = client.isDeletionBlocked ? client.isDeletionBlocked(error) : isDeletionBlocked(error);
    if (!blocked) throw error;
    throw new WaitingError(
      DELETION_BLOCKED,
      `cannot delete external object ${id}: ${describeError(error)}; turn off its deletion protection ${abandonHint}`,
      run.pollIntervalMs,
      { cause: error },
    );
  }
}

/** Abandon, Orphan and ObserveOnly: drop the finalizer, leave the service alone. True when done. */
async function releaseWithoutDeleting<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
  id: string | undefined,
): Promise<boolean> {
  const which = id ? `external object ${id}` : 'the external object';
  if (isAnnotationTrue(run.obj, ANNOTATION_ABANDON)) {
    const message = `left ${which} in place: the ${ANNOTATION_ABANDON} annotation is set`;
    await release(run, { type: 'Normal', reason: 'AbandonedExternal', message });
    return true;
  }
  const spec = run.spec ?? run.obj.spec;
  const policy = deletionPolicyOf(spec, run.settings.defaultDeletionPolicy);
  if (policy !== 'Orphan' && !isObserveOnly(spec as ManagedSpecFields)) return false;
  const reason = policy === 'Orphan' ? 'deletionPolicy Orphan' : 'managementPolicy ObserveOnly';
  const message = `left ${which} in place (${reason})`;
  await release(run, id ? { type: 'Normal', reason: 'OrphanedExternal', message } : undefined);
  return true;
}

/**
 * Handles a resource with a deletionTimestamp. `specError` is the validation error when the spec
 * is invalid: deletion then proceeds only where it needs no adapter call.
 */
export async function deleteExternal<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
  specError: TerminalError | undefined,
): Promise<void> {
  if (!hasFinalizer(run.obj)) return;
  const id = getAnnotation(run.obj, ANNOTATION_EXTERNAL_ID);
  if (await releaseWithoutDeleting(run, id)) return;
  // Without an id, only the operator's own mark (create-mark.ts) says something may exist.
  if (!id && !createMarkOf(run.obj)) return release(run);
  if (specError)
    throw new TerminalError(INVALID_SPEC, `${specError.message}; to delete, fix the spec ${abandonHint}`);
  run.ready = {
    status: 'False',
    reason: Reasons.Deleting,
    message: `deleting ${id ? `external object ${id}` : 'the external object'}`,
  };
  const connected = await connectToDelete(run, id);
  if (!connected) return;
  const { client, context } = connected;
  const target = id ?? (await idAfterInterruptedCreate(run, client, context));
  if (target) await deleteById(run, client, context, target);
  return release(
    run,
    target
      ? { type: 'Normal', reason: 'DeletedExternal', message: `deleted external object ${target}` }
      : undefined,
  );
}
