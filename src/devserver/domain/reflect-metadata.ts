/**
 * A minimal `Reflect` metadata API (`defineMetadata`, `getMetadata`, `getOwnMetadata`,
 * `hasMetadata`, `hasOwnMetadata`, `metadata`), installed only when the global lacks one.
 *
 * Why: `@peculiar/x509` uses `tsyringe`, which refuses to load without a Reflect metadata
 * polyfill, and none is installed. tsyringe only stores and reads constructor metadata, which
 * this covers. Import this module before `@peculiar/x509` (ESM evaluates imports in order).
 */

type MetadataTarget = object;
type Key = string | symbol | undefined;

const store = new WeakMap<MetadataTarget, Map<Key, Map<unknown, unknown>>>();

function own(target: MetadataTarget, property: Key, create: boolean): Map<unknown, unknown> | undefined {
  let byProperty = store.get(target);
  if (!byProperty) {
    if (!create) return undefined;
    byProperty = new Map();
    store.set(target, byProperty);
  }
  let entries = byProperty.get(property);
  if (!entries && create) {
    entries = new Map();
    byProperty.set(property, entries);
  }
  return entries;
}

function lookup(key: unknown, target: MetadataTarget, property: Key): { found: boolean; value: unknown } {
  for (
    let current: object | null = target;
    current !== null;
    current = Object.getPrototypeOf(current) as object | null
  ) {
    const entries = own(current, property, false);
    if (entries?.has(key)) return { found: true, value: entries.get(key) };
  }
  return { found: false, value: undefined };
}

const api = {
  defineMetadata(key: unknown, value: unknown, target: MetadataTarget, property?: Key): void {
    own(target, property, true)?.set(key, value);
  },
  getOwnMetadata(key: unknown, target: MetadataTarget, property?: Key): unknown {
    return own(target, property, false)?.get(key);
  },
  hasOwnMetadata(key: unknown, target: MetadataTarget, property?: Key): boolean {
    return own(target, property, false)?.has(key) ?? false;
  },
  getMetadata(key: unknown, target: MetadataTarget, property?: Key): unknown {
    return lookup(key, target, property).value;
  },
  hasMetadata(key: unknown, target: MetadataTarget, property?: Key): boolean {
    return lookup(key, target, property).found;
  },
  metadata(key: unknown, value: unknown) {
    return (target: MetadataTarget, property?: Key): void => api.defineMetadata(key, value, target, property);
  },
};

const reflect = Reflect as unknown as Record<string, unknown>;
if (typeof reflect.getMetadata !== 'function') {
  for (const [name, fn] of Object.entries(api)) reflect[name] = fn;
}

export const reflectMetadata = api;
