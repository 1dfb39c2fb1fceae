/**
 * Object metadata shared by every Coffer controller: the annotation, label and finalizer names,
 * structural types for "any Kubernetes object" and small pure helpers to read them.
 *
 * Names are part of the public contract (users set `coffer.dev/external-id` to adopt, admins set
 * `coffer.dev/abandon`), so they never change once released.
 */

import { ConflictError, isKubernetesConflict } from './errors.ts';
import { commonReasons } from './common-reasons.ts';

/** Finalizer that keeps a resource until its external object is deleted or orphaned. */
export const FINALIZER = 'coffer.dev/finalizer';

/**
 * The id of the external object this resource mirrors. Coffer records it after a create; users
 * set it to adopt an existing object (the only way an object Coffer did not create is managed).
 */
export const ANNOTATION_EXTERNAL_ID = 'coffer.dev/external-id';

/**
 * `"true"` lets a resource that names a protected object by id (one the operator itself relies on,
 * such as the identity it authenticates as) change or delete it. Without it such an object
 * is only observed, never written.
 */
export const ANNOTATION_MANAGE_PROTECTED = 'coffer.dev/manage-protected';

/** Set (to an RFC 3339 time) just before an external create, cleared once the id is saved. */
export const ANNOTATION_CREATE_PENDING = 'coffer.dev/create-pending';

/** `"true"` stops reconciliation (no service calls, no deletion) until removed. */
export const ANNOTATION_PAUSED = 'coffer.dev/paused';

/** Any new value forces a reconcile now; the handled value is echoed in status. */
export const ANNOTATION_RECONCILE_REQUESTED_AT = 'coffer.dev/reconcile-requested-at';

/** `"true"` on a resource being deleted drops the finalizer without touching the service. */
export const ANNOTATION_ABANDON = 'coffer.dev/abandon';

/** sha256 of the data a Coffer-owned Secret should hold (see `secret-writer.ts`). */
export const ANNOTATION_DATA_HASH = 'coffer.dev/data-hash';

/** Standard label marking objects Coffer created and owns. */
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const MANAGED_BY_VALUE = 'coffer';

/** An owner reference as stored in `metadata.ownerReferences`. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** The parts of `metadata` Coffer reads. Timestamps may be strings (raw JSON) or Dates (typed clients). */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  deletionTimestamp?: string | Date;
  creationTimestamp?: string | Date;
  ownerReferences?: OwnerReference[];
}

/** Structural type for any Kubernetes object. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** Identifies one object of a known kind. `namespace` is undefined for cluster-scoped kinds. */
export interface ObjectRef {
  readonly namespace?: string;
  readonly name: string;
}

/** The `ObjectRef` of an object (its name and namespace). */
export function refOf(obj: KubeObject): ObjectRef {
  const namespace = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return namespace ? { namespace, name } : { name };
}

/** The value of one annotation, or undefined. */
export function getAnnotation(obj: KubeObject, key: string): string | undefined {
  return obj.metadata?.annotations?.[key];
}

/** The value of one label, or undefined. */
export function getLabel(obj: KubeObject, key: string): string | undefined {
  return obj.metadata?.labels?.[key];
}

/** True when the annotation is exactly `"true"` (the only accepted spelling, as in Kubernetes). */
export function isAnnotationTrue(obj: KubeObject, key: string): boolean {
  return getAnnotation(obj, key) === 'true';
}

/** True when `metadata.finalizers` contains `finalizer`. */
export function hasFinalizer(obj: KubeObject, finalizer: string = FINALIZER): boolean {
  return obj.metadata?.finalizers?.includes(finalizer) ?? false;
}

/** True once a delete was requested (`metadata.deletionTimestamp` is set). */
export function isBeingDeleted(obj: KubeObject): boolean {
  return obj.metadata?.deletionTimestamp !== undefined && obj.metadata.deletionTimestamp !== null;
}

/** True when Coffer's managed-by label is present. */
export function isManagedByCoffer(obj: KubeObject): boolean {
  return getLabel(obj, LABEL_MANAGED_BY) === MANAGED_BY_VALUE;
}

/** The controller owner reference, if any. */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((ref) => ref.controller === true);
}

/** A controller owner reference pointing at `owner` (which must have apiVersion, kind, name and uid). */
export function controllerReference(owner: KubeObject): OwnerReference {
  const { apiVersion, kind } = owner;
  const name = owner.metadata?.name;
  const uid = owner.metadata?.uid;
  if (!apiVersion || !kind || !name || !uid) {
    throw new Error('cannot build owner reference: the owner lacks apiVersion, kind, name or uid');
  }
  return { apiVersion, kind, name, uid, controller: true, blockOwnerDeletion: true };
}

/** One RFC 6902 JSON-patch operation (the subset Coffer uses). */
export type JsonPatchOperation =
  | { readonly op: 'add' | 'replace' | 'test'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string };

/**
 * Writes to one kind of object. Implementations throw the Kubernetes client's errors unchanged
 * (callers map 409 to `ConflictError`); every method returns the object as stored afterwards.
 */
export interface ObjectPatcher<T extends KubeObject = KubeObject> {
  /** RFC 6902 patch of the main resource. */
  jsonPatch(ref: ObjectRef, operations: readonly JsonPatchOperation[]): Promise<T>;
  /** RFC 7386 merge patch of the main resource (`null` deletes a key). */
  mergePatch(ref: ObjectRef, patch: object): Promise<T>;
  /** RFC 7386 merge patch of the `status` subresource; `patch` is `{ status: ... }`. */
  mergePatchStatus(ref: ObjectRef, patch: object): Promise<T>;
}

/**
 * The JSON-patch op that sets (string) or removes (null) annotations. It writes the whole map, so
 * it applies to any current state; combine it with `guardedByResourceVersion` so that a stale
 * read fails with 409 instead of overwriting someone else's annotation.
 */
export function annotationPatch(
  obj: KubeObject,
  changes: Readonly<Record<string, string | null>>,
): JsonPatchOperation[] {
  const next: Record<string, string> = { ...obj.metadata?.annotations };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return [{ op: 'add', path: '/metadata/annotations', value: next }];
}

/**
 * Makes a JSON patch conditional on the object being unchanged since it was read: the API server
 * answers 409 Conflict when the stored resourceVersion differs (optimistic concurrency).
 */
export function guardedByResourceVersion(
  obj: KubeObject,
  operations: readonly JsonPatchOperation[],
): JsonPatchOperation[] {
  const resourceVersion = obj.metadata?.resourceVersion;
  if (!resourceVersion) throw new Error('cannot guard patch: the object has no resourceVersion');
  return [{ op: 'replace', path: '/metadata/resourceVersion', value: resourceVersion }, ...operations];
}

/**
 * Applies a JSON patch guarded by the object's resourceVersion. A 409 (someone wrote in between,
 * or our cache is stale) becomes a `ConflictError`, which requeues at once without noise.
 */
export async function patchGuarded<T extends KubeObject>(
  patcher: ObjectPatcher<T>,
  obj: T,
  operations: readonly JsonPatchOperation[],
  what: string,
): Promise<T> {
  try {
    return await patcher.jsonPatch(refOf(obj), guardedByResourceVersion(obj, operations));
  } catch (error) {
    if (isKubernetesConflict(error)) {
      throw new ConflictError(
        commonReasons.names.Conflict,
        `cannot ${what}: the object changed since it was read`,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
}
