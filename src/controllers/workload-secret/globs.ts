/**
 * Key patterns of `include` / `exclude`: `*` matches any run of characters (none included), `?`
 * exactly one; every other character matches itself. A pattern matches the whole key, case
 * sensitively, as the keys of the service are.
 */

const compiled = new Map<string, RegExp>();

function toRegExp(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (!re) {
    const body = pattern
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\-]/g, '\\$&')))
      .join('');
    re = new RegExp(`^${body}$`, 's');
    compiled.set(pattern, re);
  }
  return re;
}

/** True when `key` matches `pattern` (see the module comment). */
export function matchesGlob(key: string, pattern: string): boolean {
  return toRegExp(pattern).test(key);
}

/** Key filter of one source: in `include` (every key when unset or empty) and not in `exclude`. */
export function keyFilter(
  include: readonly string[] | undefined,
  exclude: readonly string[] | undefined,
): (key: string) => boolean {
  const wanted = include && include.length > 0 ? include : undefined;
  return (key) =>
    (!wanted || wanted.some((p) => matchesGlob(key, p))) && !(exclude ?? []).some((p) => matchesGlob(key, p));
}
