/**
 * Writing the status subresource only when it changed. A reconcile that finds nothing new must not
 * write (a write bumps resourceVersion, wakes every watcher and costs an etcd write), so the
 * desired status is compared with the stored one structurally, ignoring key order.
 */
import { refOf, type KubeObject, type ObjectPatcher } from './object-meta.ts';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/**
 * Structural equality for JSON-like values: key order is ignored, `undefined` properties count as
 * absent (they are not serialised), Dates compare by their ISO text (the wire form).
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a instanceof Date) return deepEqual(a.toISOString(), b);
  if (b instanceof Date) return deepEqual(a, b.toISOString());
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => deepEqual(item, b[index]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keysA = Object.keys(a).filter((key) => a[key] !== undefined);
    const keysB = Object.keys(b).filter((key) => b[key] !== undefined);
    if (keysA.length !== keysB.length) return false;
    return keysA.every((key) => deepEqual(a[key], b[key]));
  }
  return Object.is(a, b);
}

/**
 * The RFC 7386 merge patch turning `from` into `to`: changed keys carry their new value, keys
 * that disappeared are `null`, arrays and scalars are replaced whole. Returns `{}` when equal.
 */
export function mergePatchBetween(
  from: Readonly<Record<string, unknown>>,
  to: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(from)) {
    if (from[key] !== undefined && to[key] === undefined) patch[key] = null;
  }
  for (const [key, value] of Object.entries(to)) {
    if (value === undefined || deepEqual(from[key], value)) continue;
    const previous = from[key];
    patch[key] = isPlainObject(previous) && isPlainObject(value) ? mergePatchBetween(previous, value) : value;
  }
  return patch;
}

/** An object with a free-form status. */
export interface ObjectWithStatus extends KubeObject {
  status?: Record<string, unknown>;
}

/** What `patchStatusIfChanged` did. */
export interface StatusPatchResult<T> {
  /** False when the stored status already equalled the desired one (nothing was written). */
  readonly changed: boolean;
  /** The object as stored afterwards (the input object when nothing was written). */
  readonly object: T;
}

/**
 * Makes `obj.status` equal `desired` with one merge patch of the status subresource, or does
 * nothing when they are already equal. Keys present in the stored status but not in `desired`
 * are removed. Status is owned by the controller alone, so the patch is not resourceVersion-
 * guarded: the last reconcile of a key wins, and each reconcile computes the whole status.
 */
export async function patchStatusIfChanged<T extends ObjectWithStatus>(
  patcher: ObjectPatcher<T>,
  obj: T,
  desired: Readonly<Record<string, unknown>>,
): Promise<StatusPatchResult<T>> {
  const current = obj.status ?? {};
  if (deepEqual(current, desired)) return { changed: false, object: obj };
  const patch = mergePatchBetween(current, desired);
  const stored = await patcher.mergePatchStatus(refOf(obj), { status: patch });
  return { changed: true, object: stored };
}
