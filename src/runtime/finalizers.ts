/**
 * Adding and removing Coffer's finalizer. Both are JSON patches guarded by the resourceVersion we
 * read, so a stale cache can never drop someone else's finalizer: a 409 becomes `ConflictError`
 * (silent immediate requeue) and the next attempt works from fresh state.
 */
import { kubernetesStatus } from './errors.ts';
import {
  FINALIZER,
  hasFinalizer,
  patchGuarded,
  type JsonPatchOperation,
  type KubeObject,
  type ObjectPatcher,
} from './object-meta.ts';

/** The JSON patch operations that add `finalizer` (none when it is present), to combine with others. */
export function finalizerPatch(obj: KubeObject, finalizer: string = FINALIZER): JsonPatchOperation[] {
  if (hasFinalizer(obj, finalizer)) return [];
  return [
    { op: 'add', path: '/metadata/finalizers', value: [...(obj.metadata?.finalizers ?? []), finalizer] },
  ];
}

/**
 * Ensures `finalizer` is present. Returns the object unchanged when it already is (no write),
 * otherwise the object as stored after the patch.
 */
export async function ensureFinalizer<T extends KubeObject>(
  patcher: ObjectPatcher<T>,
  obj: T,
  finalizer: string = FINALIZER,
): Promise<T> {
  if (hasFinalizer(obj, finalizer)) return obj;
  return patchGuarded(patcher, obj, finalizerPatch(obj, finalizer), 'add finalizer');
}

/**
 * Removes `finalizer`. Returns undefined when the object is gone afterwards (it was being deleted
 * and this was its last finalizer, or it had already disappeared), else the stored object.
 */
export async function removeFinalizer<T extends KubeObject>(
  patcher: ObjectPatcher<T>,
  obj: T,
  finalizer: string = FINALIZER,
): Promise<T | undefined> {
  if (!hasFinalizer(obj, finalizer)) return obj;
  const finalizers = (obj.metadata?.finalizers ?? []).filter((name) => name !== finalizer);
  try {
    const stored = await patchGuarded(
      patcher,
      obj,
      [{ op: 'add', path: '/metadata/finalizers', value: finalizers }],
      'remove finalizer',
    );
    // The API server answers with the last state when the removal completed a deletion.
    return finalizers.length === 0 && obj.metadata?.deletionTimestamp ? undefined : stored;
  } catch (error) {
    if (kubernetesStatus(error) === 404) return undefined;
    throw error;
  }
}
