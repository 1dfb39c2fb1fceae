/**
 * Secret reference expansion as the service performs it on reads with
 * `expandSecretReferences=true` (`expandSecretReferencesFactory`,
 * `backend/src/services/secret-v2-bridge/secret-reference-fns.ts` @032da036; docs/service-facts.md):
 *
 * - a reference is `${...}` of letters, digits, `-`, `_`, `.` (and `@` for cross-project
 *   references, which the devserver does not serve: left as written); its content split on `.`;
 * - one part (`${KEY}`): the secret KEY of the same folder and environment;
 * - more parts (`${env.a.b.KEY}`): secret KEY of folder `/a/b` of environment `env`
 *   (`${env.KEY}`: the root folder);
 * - a referenced value is itself expanded, to a depth of 10; a reference back to a secret already
 *   on the chain (a cycle) is not followed further;
 * - a reference to nothing (missing key, folder or environment) is left as written.
 */

const REFERENCE = /\$\{([a-zA-Z0-9\-_.@]+)\}/g;
const MAX_DEPTH = 10;

/** The stored values of a folder (`undefined`: no such environment or folder). */
export type FolderValues = (environment: string, path: string) => ReadonlyMap<string, string> | undefined;

interface Place {
  readonly environment: string;
  readonly path: string;
}

function target(inner: string, from: Place): (Place & { key: string }) | undefined {
  const parts = inner.trim().split('.');
  if (parts.some((p) => p.startsWith('@'))) return undefined;
  if (parts.length === 1) return { ...from, key: parts[0] ?? '' };
  return {
    environment: parts[0] ?? '',
    path: `/${parts.slice(1, -1).join('/')}`,
    key: parts[parts.length - 1] ?? '',
  };
}

/** `value` (stored at `from`) with its references expanded. */
export function expandValue(
  value: string,
  from: Place,
  lookup: FolderValues,
  chain: readonly string[] = [],
): string {
  if (chain.length > MAX_DEPTH) return value;
  return value.replace(REFERENCE, (whole, inner: string) => {
    const ref = target(inner, from);
    const raw = ref ? lookup(ref.environment, ref.path)?.get(ref.key) : undefined;
    if (!ref || raw === undefined) return whole;
    const id = `${ref.environment}:${ref.path}:${ref.key}`;
    if (chain.includes(id)) return raw;
    return expandValue(raw, ref, lookup, [...chain, id]);
  });
}

/** Expands the values of one folder (`own`: key → stored value) against `lookup`. */
export function expandFolder(
  own: ReadonlyMap<string, string>,
  from: Place,
  lookup: FolderValues,
): Map<string, string> {
  const expanded = new Map<string, string>();
  for (const [key, value] of own) {
    expanded.set(key, expandValue(value, from, lookup, [`${from.environment}:${from.path}:${key}`]));
  }
  return expanded;
}
