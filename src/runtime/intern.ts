/**
 * Sharing the strings that thousands of cached objects repeat.
 *
 * JSON.parse gives every object its own copy of each string value: at 10,000 resources the cache
 * held 10,000 copies of `coffer.dev/v1alpha1`, of `coffer.dev/finalizer`, of each condition reason
 * and message, of the Connection's name. `internRepeatedStrings` replaces those values (in place,
 * on an object just parsed that nobody else holds) with one shared instance each.
 *
 * Contract: only values that are usually the same across objects are interned (apiVersion, kind,
 * namespace, finalizers, the fields of `spec.*Ref` objects, `spec.environment`, the type, status,
 * reason and message of conditions and of `status.events`, the keys of `status.ownedKeys`,
 * `status.organizationId`, the names and slugs of `spec.environments` and `status.environments`,
 * and timestamps to the second — `creationTimestamp`, `lastTransitionTime`, `status.lastSyncTime`
 * — which a bulk apply or a burst of reconciles gives hundreds of objects alike); unique values
 * (names, uids, hashes) are left alone. The table is bounded: when it holds `limit` strings it
 * starts over, so unusual values (error messages naming ids) cannot make it grow without end.
 *
 * Within one object, `status.id` and `status.createdId` share the instance of the
 * `coffer.dev/external-id` annotation when they hold the same id (they usually do), so an object
 * holds its external id once, not three times.
 */

import { ANNOTATION_EXTERNAL_ID } from './object-meta.ts';

/** A bounded intern table. */
export class StringInterner {
  private readonly limit: number;
  private table = new Map<string, string>();

  constructor(limit = 4096) {
    this.limit = limit;
  }

  /** The shared instance equal to `value` (`value` itself the first time). */
  intern(value: string): string {
    const known = this.table.get(value);
    if (known !== undefined) return known;
    if (this.table.size >= this.limit) this.table = new Map();
    this.table.set(value, value);
    return value;
  }

  /** Strings held now. */
  get size(): number {
    return this.table.size;
  }
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function internFields(
  target: unknown,
  fields: readonly string[] | undefined,
  interner: StringInterner,
): void {
  if (!isRecord(target)) return;
  for (const field of fields ?? Object.keys(target)) {
    const value = target[field];
    if (typeof value === 'string') target[field] = interner.intern(value);
  }
}

const conditionFields = ['type', 'status', 'reason', 'message', 'lastTransitionTime'] as const;

/** Interns the repeated strings of a custom resource just parsed (see the module contract). */
export function internRepeatedStrings<T>(obj: T, interner: StringInterner): T {
  if (!isRecord(obj)) return obj;
  internFields(obj, ['apiVersion', 'kind'], interner);
  const metadata = obj['metadata'];
  if (isRecord(metadata)) {
    internFields(metadata, ['namespace', 'creationTimestamp'], interner);
    const finalizers = metadata['finalizers'];
    if (Array.isArray(finalizers)) {
      metadata['finalizers'] = finalizers.map((f: unknown) =>
        typeof f === 'string' ? interner.intern(f) : f,
      );
    }
  }
  const spec = obj['spec'];
  if (isRecord(spec)) {
    internFields(spec, ['environment'], interner);
    internEach(spec['environments'], environmentFields, interner);
    for (const [field, value] of Object.entries(spec)) {
      if (field.endsWith('Ref')) internFields(value, undefined, interner);
    }
  }
  const status = obj['status'];
  if (isRecord(status)) {
    const conditions = status['conditions'];
    if (Array.isArray(conditions)) for (const c of conditions) internFields(c, conditionFields, interner);
    internFields(status['events'], ['state', 'reason', 'message'], interner);
    internFields(status, ['lastSyncTime', 'organizationId'], interner);
    internEach(status['ownedKeys'], ['key'], interner);
    internEach(status['environments'], environmentFields, interner);
    shareExternalId(metadata, status);
  }
  return obj;
}

const environmentFields = ['name', 'slug'] as const;

/** `internFields` on each element of `list`, when it is an array. */
function internEach(list: unknown, fields: readonly string[], interner: StringInterner): void {
  if (Array.isArray(list)) for (const item of list) internFields(item, fields, interner);
}

/** Points `status.id` and `status.createdId` at the external-id annotation's instance when equal. */
function shareExternalId(metadata: unknown, status: Json): void {
  const annotations = isRecord(metadata) ? metadata['annotations'] : undefined;
  const id = isRecord(annotations) ? annotations[ANNOTATION_EXTERNAL_ID] : undefined;
  if (typeof id !== 'string') return;
  if (status['id'] === id) status['id'] = id;
  if (status['createdId'] === id) status['createdId'] = id;
}
