/**
 * The `annotate` function of the adapter context (`ExternalContext.annotate`): annotation
 * writes on the resource, guarded by the resourceVersion the reconcile holds, so a reconcile on a
 * stale read writes nothing (409 → `ConflictError`) instead of acting twice.
 */
import { annotationPatch, patchGuarded } from '../runtime/object-meta.ts';
import type { AdapterStatus, ExternalContext, ManagedSpecFields } from './external-client.ts';
import type { Run } from './run.ts';

/** `annotate` for `run`; each successful write becomes the run's current object. */
export function guardedAnnotator<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
): ExternalContext<Refs>['annotate'] {
  return async (changes, what) => {
    run.obj = await patchGuarded(run.settings.patcher, run.obj, annotationPatch(run.obj, changes), what);
  };
}
