/**
 * The informer's local cache: objects by namespace and name, plus secondary indexes.
 *
 * Objects are stored as received (no copies); callers must treat them as read-only. An index
 * maps each object to zero or more string values (e.g. the names of Secrets it references), and
 * `byIndex` answers "which objects have this value" without scanning the store.
 */
import type { KubeObject } from './list-watch.ts';

/** Computes the index values of an object; must be pure and must not throw. */
export type IndexFunc<T> = (obj: T) => readonly string[];

/** What `upsert` did. */
export type UpsertOutcome<T> = { kind: 'added' } | { kind: 'updated'; old: T } | { kind: 'unchanged' };

// Method syntax (not a function-typed property) keeps the store covariant enough that an
// `Informer<V1Secret>` can be passed where an `Informer<KubeObject>` is expected.
//
// Most values and keys have one entry (one referenced Secret, one connection per object): a
// lone entry is kept as the string itself, a Set or array only from the second on. At 10,000
// objects this saves a Set (~150 bytes) per value and an array per key
// (`node --expose-gc scripts/bench/object-store-heap.ts`).
interface Index<T> {
  valuesOf(obj: T): readonly string[];
  /** value → key of the object with that value, or a Set of keys when several have it. */
  readonly byValue: Map<string, string | Set<string>>;
  /** key → value the object was indexed under, or several (to unindex it later). */
  readonly byKey: Map<string, string | readonly string[]>;
}

/**
 * The instance of `value` the index already holds for another object, else `value`: index
 * functions build their values anew for each object (`Connection/ns/name` for thousands of
 * objects), and `byKey` would otherwise keep one copy per object. Found through another key
 * under that value, so sharing costs no table of its own.
 */
function sharedValue<T>(index: Index<T>, value: string): string {
  const keys = index.byValue.get(value);
  if (keys === undefined) return value;
  const other = typeof keys === 'string' ? keys : (keys.values().next().value as string);
  const values = index.byKey.get(other);
  if (typeof values === 'string') return values;
  return values?.find((v) => v === value) ?? value;
}

/** The entries of a one-or-many slot (`Index.byValue`, `Index.byKey`). */
function entriesOf(slot: string | Iterable<string> | undefined): Iterable<string> {
  if (slot === undefined) return [];
  return typeof slot === 'string' ? [slot] : slot;
}

/** `namespace/name`, or `name` for cluster-scoped objects (the work-queue key format). */
export function objectKey(obj: KubeObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

export class ObjectStore<T extends KubeObject> {
  /** namespace ('' for cluster-scoped) → name → object. */
  private readonly objects = new Map<string, Map<string, T>>();
  private readonly indexes = new Map<string, Index<T>>();
  private count = 0;

  /** Number of objects held. */
  get size(): number {
    return this.count;
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.objects.get(namespace ?? '')?.get(name);
  }

  /** All objects, or those of one namespace. Returns a new array; the objects are shared. */
  list(namespace?: string): T[] {
    if (namespace !== undefined) return [...(this.objects.get(namespace)?.values() ?? [])];
    const all: T[] = [];
    for (const byName of this.objects.values()) for (const obj of byName.values()) all.push(obj);
    return all;
  }

  /** Registers an index and indexes the objects already held. Re-adding a name replaces it. */
  addIndex(name: string, fn: IndexFunc<T>): void {
    const index: Index<T> = { valuesOf: fn, byValue: new Map(), byKey: new Map() };
    this.indexes.set(name, index);
    for (const obj of this.list()) this.indexInto(index, objectKey(obj), obj);
  }

  /** Objects whose index `name` contains `value`. Throws when the index does not exist. */
  byIndex(name: string, value: string): T[] {
    const out: T[] = [];
    for (const key of entriesOf(this.requireIndex(name).byValue.get(value))) {
      const obj = this.getByKey(key);
      if (obj) out.push(obj);
    }
    return out;
  }

  /** Stores `obj`, unless the stored copy has the same resourceVersion. */
  upsert(obj: T): UpsertOutcome<T> {
    const name = obj.metadata?.name ?? '';
    const byName = this.namespaceMap(obj.metadata?.namespace ?? '');
    const old = byName.get(name);
    if (old && old.metadata?.resourceVersion === obj.metadata?.resourceVersion) return { kind: 'unchanged' };
    byName.set(name, obj);
    if (!old) this.count++;
    const key = objectKey(obj);
    for (const index of this.indexes.values()) {
      this.unindex(index, key);
      this.indexInto(index, key, obj);
    }
    return old ? { kind: 'updated', old } : { kind: 'added' };
  }

  /** Removes the object at `namespace/name`; returns what was stored, if anything. */
  remove(namespace: string | undefined, name: string): T | undefined {
    const ns = namespace ?? '';
    const byName = this.objects.get(ns);
    const old = byName?.get(name);
    if (!byName || !old) return undefined;
    byName.delete(name);
    if (byName.size === 0) this.objects.delete(ns);
    this.count--;
    const key = objectKey(old);
    for (const index of this.indexes.values()) this.unindex(index, key);
    return old;
  }

  /**
   * Objects held in `scope` (one namespace, or everything when undefined) whose keys are not in
   * `keep`: what a relist must report as deleted.
   */
  missingFrom(scope: string | undefined, keep: ReadonlySet<string>): T[] {
    return this.list(scope).filter((obj) => !keep.has(objectKey(obj)));
  }

  private namespaceMap(ns: string): Map<string, T> {
    let byName = this.objects.get(ns);
    if (!byName) {
      byName = new Map();
      this.objects.set(ns, byName);
    }
    return byName;
  }

  private getByKey(key: string): T | undefined {
    const slash = key.indexOf('/');
    return slash < 0 ? this.get(undefined, key) : this.get(key.slice(0, slash), key.slice(slash + 1));
  }

  private requireIndex(name: string): Index<T> {
    const index = this.indexes.get(name);
    if (!index) throw new Error(`cannot query index ${name}: no such index`);
    return index;
  }

  private indexInto(index: Index<T>, key: string, obj: T): void {
    const values = [...new Set(index.valuesOf(obj))].map((value) => sharedValue(index, value));
    if (values.length === 0) return;
    index.byKey.set(key, values.length === 1 ? (values[0] as string) : values);
    for (const value of values) {
      const keys = index.byValue.get(value);
      if (keys === undefined || keys === key) index.byValue.set(value, key);
      else if (typeof keys === 'string') index.byValue.set(value, new Set([keys, key]));
      else keys.add(key);
    }
  }

  private unindex(index: Index<T>, key: string): void {
    const values = index.byKey.get(key);
    if (values === undefined) return;
    index.byKey.delete(key);
    for (const value of entriesOf(values)) {
      const keys = index.byValue.get(value);
      if (keys === key) index.byValue.delete(value);
      else if (typeof keys === 'object') {
        keys.delete(key);
        if (keys.size === 1) index.byValue.set(value, keys.values().next().value as string);
      }
    }
  }

  /** How many Sets and arrays the index `name` holds beside plain strings (for tests of the bound). */
  indexContainers(name: string): { sets: number; arrays: number } {
    const index = this.requireIndex(name);
    let sets = 0;
    let arrays = 0;
    for (const keys of index.byValue.values()) if (typeof keys === 'object') sets++;
    for (const values of index.byKey.values()) if (typeof values === 'object') arrays++;
    return { sets, arrays };
  }
}
