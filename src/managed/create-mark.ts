/**
 * The create-pending mark: when the operator is about to create a resource's service object, it
 * records the time twice, in the `coffer.dev/create-pending` annotation and in
 * `status.createPending`, and clears both once the object's id is recorded. A mark left behind
 * means a create may have happened whose id was never recorded (ownership.ts, rule 2).
 *
 * The mark counts only when both agree. The annotation alone proves nothing: whoever writes the
 * manifest writes annotations. Status is written through its own subresource, which the operator
 * holds and users are not granted, so a forged annotation (to make Coffer recover "its" create
 * by adopting someone else's object) is never trusted. The annotation half stays because it is
 * what marks the resource's own bookkeeping writes (`runtime/event-sources.ts`) and what a person
 * removes to say "nothing was created, do not recover".
 */
import { ConflictError, isKubernetesConflict } from '../runtime/errors.ts';
import {
  ANNOTATION_CREATE_PENDING,
  getAnnotation,
  refOf,
  type KubeObject,
  type ObjectPatcher,
} from '../runtime/object-meta.ts';
import { commonReasons } from '../runtime/common-reasons.ts';

/** The status field holding the operator's half of the mark. */
export const STATUS_CREATE_PENDING = 'createPending';

/** A resource as the mark is read from: annotations and status. */
export type Marked = KubeObject & { readonly status?: { readonly createPending?: unknown } };

/**
 * The create-pending mark the operator wrote (the annotation and `status.createPending` agree),
 * or undefined: no mark, or an annotation the operator did not confirm in status.
 */
export function createMarkOf(obj: Marked): string | undefined {
  const annotation = getAnnotation(obj, ANNOTATION_CREATE_PENDING);
  return annotation !== undefined && annotation === obj.status?.createPending ? annotation : undefined;
}

/** True when the annotation is set but not confirmed in status: not the operator's mark. */
export function hasUnconfirmedMark(obj: Marked): boolean {
  return getAnnotation(obj, ANNOTATION_CREATE_PENDING) !== undefined && createMarkOf(obj) === undefined;
}

/**
 * Writes the status half of the mark on `obj` and returns the object as stored. The write is
 * guarded by `obj`'s resourceVersion (it follows the annotation half at once): if anything
 * changed in between, 409 → `ConflictError`, and nothing is created.
 */
export async function markInStatus<T extends KubeObject>(
  patcher: ObjectPatcher<T>,
  obj: T,
  markedAt: string,
): Promise<T> {
  const resourceVersion = obj.metadata?.resourceVersion;
  if (!resourceVersion)
    throw new Error('cannot guard the create-pending mark: the object has no resourceVersion');
  const patch = {
    metadata: { resourceVersion },
    status: { [STATUS_CREATE_PENDING]: markedAt },
  };
  try {
    return await patcher.mergePatchStatus(refOf(obj), patch);
  } catch (error) {
    if (!isKubernetesConflict(error)) throw error;
    throw new ConflictError(
      commonReasons.names.Conflict,
      'cannot mark create pending: the object changed since it was read',
      { cause: error },
    );
  }
}
