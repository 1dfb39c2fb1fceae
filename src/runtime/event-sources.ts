/**
 * Turning informer events into reconcile requests: which keys to enqueue when an object of a
 * watched kind changes, and which updates are worth a reconcile at all.
 */
import type { Informer, KubeObject } from './informer.ts';
import {
  ANNOTATION_CREATE_PENDING,
  ANNOTATION_EXTERNAL_ID,
  FINALIZER,
  type ObjectMeta,
} from './object-meta.ts';
import type { Request } from './reconcile.ts';

/** Maps a changed object to the requests to enqueue. */
export type RequestMapper<T> = (obj: T) => readonly Request[];

/** Decides whether an update (new, old) should enqueue; adds and deletes always do. */
export type UpdatePredicate<T> = (obj: T, old: T) => boolean;

/** The object itself (for the controller's own kind). */
export function requestForObject(obj: KubeObject): Request[] {
  const name = obj.metadata?.name;
  if (!name) return [];
  return [{ namespace: obj.metadata?.namespace, name }];
}

/** API group of an `apiVersion` (`''` for `v1`). */
function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * The controlling owner of the object, when it is of `kind` in `group` (e.g. a Secret written for
 * a Project). Owners live in the object's namespace (owner references cannot cross namespaces).
 */
export function requestsForOwner(owner: {
  readonly group: string;
  readonly kind: string;
}): RequestMapper<KubeObject> {
  return (obj) => {
    const refs = obj.metadata?.ownerReferences ?? [];
    return refs
      .filter(
        (ref) =>
          ref.controller === true && ref.kind === owner.kind && groupOf(ref.apiVersion) === owner.group,
      )
      .map((ref) => ({ namespace: obj.metadata?.namespace, name: ref.name }));
  };
}

/**
 * Objects of `primary` whose index `indexName` contains `valueOf(obj)` (default: the changed
 * object's `namespace/name`), e.g. every Connection referencing a changed Secret.
 */
export function requestsFromIndex<P extends KubeObject>(
  primary: Informer<P>,
  indexName: string,
  valueOf: (obj: KubeObject) => string = indexKey,
): RequestMapper<KubeObject> {
  return (obj) => primary.byIndex(indexName, valueOf(obj)).flatMap(requestForObject);
}

/** `namespace/name` of an object: the value reference indexes should emit. */
export function indexKey(obj: KubeObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

/**
 * Passes updates that may need action: spec changes (`generation`), and changes to labels,
 * annotations, finalizers or deletion. Status-only updates, including the ones the controller
 * writes itself, are dropped, so writing status does not trigger another service round-trip.
 * So is the update that only adds Coffer's own finalizer: the reconcile that added it carries
 * on with its work in the same pass (a removed finalizer still triggers, to be put back).
 * For kinds without `generation` (Secrets), any change to `data` or type counts too.
 */
export const ignoreStatusOnlyUpdates: UpdatePredicate<KubeObject> = (obj, old) => {
  const a = obj.metadata ?? {};
  const b = old.metadata ?? {};
  if (a.generation !== b.generation) return true;
  if (a.deletionTimestamp !== b.deletionTimestamp) return true;
  if (!sameJson(a.labels, b.labels)) return true;
  const bookkeeping = ownCreateRecorded(a, b)
    ? [...bookkeepingAnnotations, ANNOTATION_EXTERNAL_ID]
    : bookkeepingAnnotations;
  if (!sameJson(without(a.annotations, bookkeeping), without(b.annotations, bookkeeping))) return true;
  if (!sameJson(a.finalizers, withOwnFinalizer(b.finalizers, a.finalizers))) return true;
  if (a.generation === undefined) return !sameJson(payloadOf(obj), payloadOf(old));
  return false;
};

/**
 * `ignoreStatusOnlyUpdates` for a kind that also writes `annotations` on its objects for its own
 * bookkeeping (e.g. a mark written before an issuance, in the reconcile that goes on with it):
 * a change of those alone does not trigger another reconcile either.
 */
export function ignoreStatusAndBookkeeping(annotations: readonly string[]): UpdatePredicate<KubeObject> {
  if (annotations.length === 0) return ignoreStatusOnlyUpdates;
  const strip = (o: KubeObject): KubeObject => ({
    ...o,
    metadata: { ...o.metadata, annotations: without(o.metadata?.annotations, annotations) },
  });
  return (obj, old) => ignoreStatusOnlyUpdates(strip(obj), strip(old));
}

/**
 * Annotations the reconciler writes for its own bookkeeping. Setting and clearing the
 * create-pending mark around a create that the service refuses must not trigger another
 * reconcile: that would retry a terminal failure in a loop. (The external id is bookkeeping
 * too when it replaces the mark: see `ownCreateRecorded`.)
 */
const bookkeepingAnnotations: readonly string[] = [ANNOTATION_CREATE_PENDING];

function without(
  annotations: Record<string, string> | undefined,
  keys: readonly string[],
): Record<string, string> {
  const rest: Record<string, string> = { ...annotations };
  for (const key of keys) delete rest[key];
  return rest;
}

/**
 * Whether the update is the reconciler recording the id of the object it creates: the
 * create-pending mark went and an external id appeared in the same write (after the create), or
 * an external id appeared together with Coffer's finalizer (before the create, for adapters that
 * know the id beforehand). The reconcile that wrote it carries on; an id set by a user
 * (adoption) comes without either and still triggers.
 */
function ownCreateRecorded(current: ObjectMeta, old: ObjectMeta): boolean {
  const [now, before] = [current.annotations, old.annotations];
  if (before?.[ANNOTATION_EXTERNAL_ID] !== undefined || now?.[ANNOTATION_EXTERNAL_ID] === undefined)
    return false;
  const markCleared =
    before?.[ANNOTATION_CREATE_PENDING] !== undefined && now[ANNOTATION_CREATE_PENDING] === undefined;
  const finalizerAdded =
    !old.finalizers?.includes(FINALIZER) && (current.finalizers?.includes(FINALIZER) ?? false);
  return markCleared || finalizerAdded;
}

/** `old` plus Coffer's finalizer when `current` gained it (at the end, where a patch appends it). */
function withOwnFinalizer(old: readonly string[] | undefined, current: readonly string[] | undefined) {
  if (!current?.includes(FINALIZER) || old?.includes(FINALIZER)) return old;
  return [...(old ?? []), FINALIZER];
}

function payloadOf(obj: KubeObject): unknown {
  const { data, stringData, type } = obj as { data?: unknown; stringData?: unknown; type?: unknown };
  return { data, stringData, type };
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}
