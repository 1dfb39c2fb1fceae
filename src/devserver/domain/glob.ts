/**
 * Path globs in the picomatch dialect the service uses for `secretPath` (and `secretName`)
 * permission conditions and event filters, reduced to what paths need:
 *
 * - `*` matches within one segment (never `/`); a segment that is exactly `*` needs ≥ 1 char;
 * - `?` matches one character other than `/`;
 * - `**` as a whole segment matches zero or more segments, so `/app/**` matches `/app`,
 *   `/app/x` and `/app/x/y`, and `/**` matches every path including `/`;
 * - `[abc]`, `[a-z]`, `[!a]` character classes and `{a,b}` alternatives within a segment;
 * - a trailing slash on the subject is ignored (picomatch's `strictSlashes: false`).
 *
 * Everything else matches literally. Matching is case-sensitive.
 */

const cache = new Map<string, RegExp>();
const CACHE_LIMIT = 1000;

/** True when `value` matches the glob `pattern`. */
export function globMatch(pattern: string, value: string): boolean {
  return globToRegExp(pattern).test(value);
}

/** True when `text` contains glob syntax (so it is not a plain path). */
export function hasGlobSyntax(text: string): boolean {
  return /[*?[\]{}]/.test(text);
}

/** Compiles a glob into an anchored regular expression (memoised). */
export function globToRegExp(pattern: string): RegExp {
  const cached = cache.get(pattern);
  if (cached) return cached;
  const compiled = new RegExp(`^${compile(pattern)}/?$`, 'u');
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(pattern, compiled);
  return compiled;
}

function compile(pattern: string): string {
  const trimmed = pattern.length > 1 && pattern.endsWith('/') ? pattern.slice(0, -1) : pattern;
  const segments = trimmed.split('/');
  const last = segments.length - 1;
  let out = '';
  segments.forEach((segment, index) => {
    if (segment === '**') {
      out += globstar(index, last);
      return;
    }
    // After a leading `**` (which already consumed its trailing slash) no separator is added.
    const separator = index === 0 || (index === 1 && segments[0] === '**') ? '' : '/';
    out += separator + compileSegment(segment);
  });
  return out;
}

function globstar(index: number, last: number): string {
  if (index === 0) return last === 0 ? '.*' : '(?:[^/]*/)*';
  return '(?:/[^/]*)*';
}

function compileSegment(segment: string): string {
  if (segment === '*') return '[^/]+';
  let out = '';
  let i = 0;
  while (i < segment.length) {
    const [piece, next] = compileToken(segment, i);
    out += piece;
    i = next;
  }
  return out;
}

/** Compiles the token at `i`; returns the regex piece and the index after the token. */
function compileToken(segment: string, i: number): [string, number] {
  const c = segment.charAt(i);
  if (c === '*') {
    let j = i;
    while (segment.charAt(j) === '*') j += 1;
    return ['[^/]*', j];
  }
  if (c === '?') return ['[^/]', i + 1];
  if (c === '[') return compileClass(segment, i);
  if (c === '{') return compileAlternatives(segment, i);
  return [escapeRegExp(c), i + 1];
}

function compileClass(segment: string, start: number): [string, number] {
  const end = segment.indexOf(']', start + 2);
  if (end < 0) return ['\\[', start + 1];
  let body = segment.slice(start + 1, end);
  const negated = body.startsWith('!') || body.startsWith('^');
  if (negated) body = body.slice(1);
  const escaped = body.replace(/[\\\]^[]/g, (m) => `\\${m}`);
  return [negated ? `[^/${escaped}]` : `[${escaped}]`, end + 1];
}

function compileAlternatives(segment: string, start: number): [string, number] {
  const end = segment.indexOf('}', start + 1);
  if (end < 0) return ['\\{', start + 1];
  const options = segment.slice(start + 1, end).split(',');
  if (options.length < 2) return [escapeRegExp(segment.slice(start, end + 1)), end + 1];
  return [`(?:${options.map((option) => compileSegment(option)).join('|')})`, end + 1];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, (m) => `\\${m}`);
}
