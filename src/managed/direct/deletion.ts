/**
 * Deletion of a direct kind held by its dependents (Connection, ClusterConnection; see
 * `kind.ts`). While managed resources referring to it still hold Coffer's finalizer, they
 * may need it to delete their objects in the service, so it keeps its `coffer.dev/dependents`
 * finalizer and reports whom it waits for:
 *
 * | situation                                   | result                                           |
 * |---------------------------------------------|--------------------------------------------------|
 * | no finalizer of ours                        | released (nothing to do)                         |
 * | no dependent holds Coffer's finalizer       | finalizer removed                                |
 * | `coffer.dev/abandon: "true"` on it          | finalizer removed, dependents left to fend alone |
 * | otherwise                                   | `Ready=False` `DeletionWaiting`, `waitingFor`    |
 *
 * The dependents re-enqueue it when they go or drop their finalizer (`direct-dependents.ts`).
 */
import type { ManagedObject } from '../external-client.ts';
import { removeFinalizer } from '../../runtime/finalizers.ts';
import {
  ANNOTATION_ABANDON,
  hasFinalizer,
  isAnnotationTrue,
  type ObjectPatcher,
} from '../../runtime/object-meta.ts';
import { DEPENDENTS_FINALIZER, type DirectOutcome } from './kind.ts';
import { managedReasons } from '../reasons.ts';

/** Condition reason while a connection being deleted waits for its dependents. */
export const DELETION_WAITING = managedReasons.names.DeletionWaiting;

/** How many dependents `status.waitingFor` lists (the CRD allows no more). */
export const MAX_LISTED_DEPENDENTS = 10;

/** `Kind/namespace/name` (`Kind/name` when cluster-scoped) of the dependents still holding on. */
export type DependentsLookup = (obj: ManagedObject<unknown>) => readonly string[];

/** What to do with a direct object being deleted. */
export type DirectDeletion =
  { readonly released: true } | { readonly released: false; readonly outcome: DirectOutcome };

function waitingMessage(dependents: readonly string[]): string {
  const listed = dependents.slice(0, MAX_LISTED_DEPENDENTS).join(', ');
  const more = dependents.length - MAX_LISTED_DEPENDENTS;
  const which = more > 0 ? `${listed} and ${more} more` : listed;
  const count = dependents.length === 1 ? '1 resource' : `${dependents.length} resources`;
  return (
    `being deleted: waiting for ${count} that may still need it to clean up in the service (${which}); ` +
    `it goes once they are gone, or at once with the annotation ${ANNOTATION_ABANDON}: "true"`
  );
}

/**
 * Releases `obj` (removes the finalizer) when nothing needs it any more, or says what it waits
 * for. A write conflict is thrown as `ConflictError` (silent requeue).
 */
export async function finalizeHeldObject(
  obj: ManagedObject<unknown>,
  patcher: ObjectPatcher<ManagedObject<unknown>>,
  dependents: DependentsLookup,
): Promise<DirectDeletion> {
  if (!hasFinalizer(obj, DEPENDENTS_FINALIZER)) return { released: true };
  const holding = isAnnotationTrue(obj, ANNOTATION_ABANDON) ? [] : dependents(obj);
  if (holding.length === 0) {
    await removeFinalizer(patcher, obj, DEPENDENTS_FINALIZER);
    return { released: true };
  }
  const state = { status: 'False', reason: DELETION_WAITING, message: waitingMessage(holding) } as const;
  // The kind's other status fields stay (the generic ones are filtered when status is composed).
  const status = { ...obj.status, waitingFor: holding.slice(0, MAX_LISTED_DEPENDENTS) };
  return { released: false, outcome: { ready: state, status } };
}
