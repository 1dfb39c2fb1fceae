/**
 * Go durations (`30s`, `10m`, `1h30m`, `500ms`, `1.5h`): the one grammar for every duration the
 * operator reads — resource specs (`spec.pollInterval`, rotation, validity), command-line flags —
 * as in every Kubernetes operator; plus a jitter helper so periodic work from many resources does
 * not synchronise into bursts.
 *
 * The grammar is Go's `time.ParseDuration` without a sign: `0` alone, or one or more
 * `<number><unit>` terms (`1.5h`, `.5s`, `1.s`), units ns, us, µs, ms, s, m, h.
 * {@link goDurationPattern} is the stricter form the CRDs validate (a subset of it).
 */

/**
 * What a CRD accepts: one or more `<digits>[.<digits>]<unit>` terms (no bare `0`, no `.5s`). CEL's
 * `duration()` parses the same syntax on the API server; every match parses with this module.
 */
export const goDurationPattern = /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/;

const unitMs: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

// Longest units first inside the alternation so `ms` is not read as `m` followed by junk.
const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;

/**
 * Milliseconds in a Go duration, exactly (a fraction for sub-millisecond parts): for comparing
 * spec values the way the API server's CEL rules do. Throws like {@link parseDuration}.
 */
export function parseDurationExact(text: string): number {
  const fail = (why: string): never => {
    throw new Error(`cannot parse duration "${text}": ${why}`);
  };
  if (text === '0') return 0;
  if (text === '') fail('it is empty');
  if (text.startsWith('-')) fail('negative durations are not allowed');
  let total = 0;
  part.lastIndex = 0;
  while (part.lastIndex < text.length) {
    const at = part.lastIndex;
    const match = part.exec(text);
    if (!match) {
      return fail(`unexpected "${text.slice(at)}" (expected a number followed by ns, us, ms, s, m or h)`);
    }
    total += Number(match[1]) * (unitMs[match[2] ?? ''] ?? Number.NaN);
  }
  if (!Number.isFinite(total)) fail('it is too large');
  return total;
}

/**
 * Milliseconds in a Go duration, rounded to whole ms (timers, flags). Negative values, unknown
 * units and anything else outside the grammar throw an error naming the input and what is wrong.
 */
export function parseDuration(text: string): number {
  return Math.round(parseDurationExact(text));
}

/** Like `parseDuration`, but returns undefined instead of throwing (flags, schema refinements). */
export function tryParseDuration(text: string): number | undefined {
  try {
    return parseDuration(text);
  } catch {
    return undefined;
  }
}

/**
 * Adds up to `maxFactor × ms` of random extra delay (as `wait.Jitter` in client-go): the result
 * is in `[ms, ms × (1 + maxFactor))`. `random` is injectable for tests.
 */
export function jitter(ms: number, maxFactor = 0.1, random: () => number = Math.random): number {
  if (ms <= 0 || maxFactor <= 0) return Math.max(0, ms);
  return Math.round(ms + random() * maxFactor * ms);
}
