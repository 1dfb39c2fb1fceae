// @peculiar/x509 uses tsyringe, which refuses to load without the Reflect metadata API (normally
// the `reflect-metadata` package, not a dependency here). tsyringe only stores and reads its own
// injection tokens, so a minimal store keyed by target and property is enough. Import this module
// before @peculiar/x509. A real polyfill, when present, is left alone.
type Target = object;
type MetadataApi = {
  defineMetadata(key: unknown, value: unknown, target: Target, property?: PropertyKey): void;
  getOwnMetadata(key: unknown, target: Target, property?: PropertyKey): unknown;
  getMetadata(key: unknown, target: Target, property?: PropertyKey): unknown;
};

const reflect = Reflect as typeof Reflect & Partial<MetadataApi>;

if (!reflect.getMetadata) {
  const store = new WeakMap<Target, Map<PropertyKey | undefined, Map<unknown, unknown>>>();
  const entries = (target: Target, property: PropertyKey | undefined): Map<unknown, unknown> => {
    let byProperty = store.get(target);
    if (!byProperty)
      store.set(target, (byProperty = new Map<PropertyKey | undefined, Map<unknown, unknown>>()));
    let values = byProperty.get(property);
    if (!values) byProperty.set(property, (values = new Map<unknown, unknown>()));
    return values;
  };
  const api: MetadataApi = {
    defineMetadata: (key, value, target, property) => void entries(target, property).set(key, value),
    getOwnMetadata: (key, target, property) => store.get(target)?.get(property)?.get(key),
    getMetadata(key, target, property) {
      for (let t: Target | null = target; t; t = Object.getPrototypeOf(t) as Target | null) {
        const value = api.getOwnMetadata(key, t, property);
        if (value !== undefined) return value;
      }
      return undefined;
    },
  };
  Object.assign(reflect, api);
}
