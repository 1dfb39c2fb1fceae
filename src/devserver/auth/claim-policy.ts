/**
 * How the JWT and OIDC logins match a claim against a configured value (the service's
 * `doesFieldValueMatchJwtPolicy`): booleans against "true"/"false", numbers against the parsed
 * integer, strings by equality or glob (picomatch's core: `*` and `?` never cross `/`, `**` does,
 * `{a,b}` alternatives). Array claims (a token's `aud` list) match when any entry does.
 */

function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      out += '.*';
      i++;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '{' && glob.indexOf('}', i) > i) {
      const end = glob.indexOf('}', i);
      out += `(?:${glob
        .slice(i + 1, end)
        .split(',')
        .map((alt) => alt.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('|')})`;
      i = end;
    } else out += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`, 's');
}

/** True when `value` matches the glob `pattern`. */
export function globMatches(value: string, pattern: string): boolean {
  return globToRegExp(pattern).test(value);
}

/** True when `value` satisfies the policy entry `policy`. */
export function claimMatches(value: unknown, policy: string): boolean {
  if (Array.isArray(value)) return value.some((entry) => claimMatches(entry, policy));
  if (typeof value === 'boolean') return value === (policy === 'true');
  if (typeof value === 'number') return value === Number.parseInt(policy, 10);
  if (typeof value !== 'string') return false;
  return value === policy || globMatches(value, policy);
}

/** The claim at a dotted path (`a.b.c`), as the service's `getValueByDot` reads it. */
export function claimAt(claims: Record<string, unknown>, path: string): unknown {
  let current: unknown = claims;
  for (const key of path.split('.')) {
    if (!current || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
