/**
 * Merging the key/value pairs read from the sources: in order, a later pair wins. Every key set
 * more than once (by two sources, or by two folders of one recursive source) is a collision,
 * reported by name only.
 */

/** Pairs read from one source, in their own precedence order (later wins). */
export type SourcePairs = readonly (readonly [key: string, value: string])[];

export interface Merged {
  /** Key → value; values never leave the targets. */
  readonly data: Readonly<Record<string, string>>;
  /** Keys set more than once, sorted. */
  readonly collisions: readonly string[];
}

/** Merges `sources` in order (see the module comment). */
export function mergeSources(sources: readonly SourcePairs[]): Merged {
  const data = new Map<string, string>();
  const collisions = new Set<string>();
  for (const pairs of sources) {
    for (const [key, value] of pairs) {
      if (data.has(key)) collisions.add(key);
      data.set(key, value);
    }
  }
  return { data: Object.fromEntries(data), collisions: [...collisions].sort() };
}
