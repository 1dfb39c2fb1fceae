/**
 * Secret reference expansion as the service performs it on reads with
 * `expandSecretReferences=true` (`expandSecretReferencesFactory`,
 * `backend/src/services/secret-v2-bridge/secret-v2-bridge-fns.ts`; docs/service-facts.md):
 *
 * - a reference is `${...}` (pattern `\${([^}]+)}`); its content split on `.`;
 * - one part (`${KEY}`): the secret KEY of the same folder, itself expanded first; a cycle
 *   expands to the empty string;
 * - more parts (`${env.a.b.KEY}`): secret KEY of folder `/a/b` of environment `env` (`${env.KEY}`:
 *   the root folder), its stored value;
 * - a reference to nothing (missing key, folder or environment) is left as written.
 */

const REFERENCE = /\$\{([^}]+)\}/g;

/** The stored values of a folder (`undefined`: no such environment or folder). */
export type FolderValues = (environment: string, path: string) => ReadonlyMap<string, string> | undefined;

/** Expands the values of one folder (`own`: key → stored value) against `lookup`. */
export function expandFolder(own: ReadonlyMap<string, string>, lookup: FolderValues): Map<string, string> {
  const expanded = new Map<string, string>();
  const expand = (key: string, chain: Set<string>): string => {
    const done = expanded.get(key);
    if (done !== undefined) return done;
    if (chain.has(key)) return '';
    const raw = own.get(key);
    if (raw === undefined) return '';
    chain.add(key);
    const value = raw.replace(REFERENCE, (whole, inner: string) => {
      const parts = inner.trim().split('.');
      if (parts.length === 1) {
        if (!own.has(parts[0] ?? '')) return whole;
        return expand(parts[0] ?? '', chain) || whole;
      }
      const environment = parts[0] ?? '';
      const secretKey = parts[parts.length - 1] ?? '';
      const path = `/${parts.slice(1, -1).join('/')}`;
      return lookup(environment, path)?.get(secretKey) || whole;
    });
    expanded.set(key, value);
    return value;
  };
  for (const key of own.keys()) expand(key, new Set());
  return expanded;
}
