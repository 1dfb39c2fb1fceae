/**
 * Go duration strings (`90s`, `10m`, `1h30m`), the format Kubernetes users know from other
 * operators. The pattern below is what the CRD validates; CEL's `duration()` parses the same
 * syntax on the API server, and `parseGoDuration` parses it here.
 */

/** One or more `<number><unit>` terms, units ns, us, µs, ms, s, m, h (no sign, no bare `0`). */
export const goDurationPattern = /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/;

const unitMs: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Milliseconds in a Go duration string.
 * @throws Error when the text does not match {@link goDurationPattern}.
 */
export function parseGoDuration(text: string): number {
  if (!goDurationPattern.test(text)) {
    throw new Error(`cannot parse duration: "${text}" is not a Go duration such as 90s, 10m or 1h30m`);
  }
  let total = 0;
  for (const match of text.matchAll(/([0-9]+(?:\.[0-9]+)?)(ns|us|µs|ms|s|m|h)/g)) {
    total += Number(match[1]) * (unitMs[match[2] ?? ''] ?? 0);
  }
  return total;
}

/**
 * The duration range of `ms`-style temporary-access ranges (`30m`, `1h`, `7d`), as the service
 * parses them. Only the short unit forms are accepted, and the value must be positive.
 */
export const accessRangePattern = /^[1-9][0-9]*(ms|s|m|h|d|w|y)$/;

const rangeUnitMs: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
  y: 31_557_600_000,
};

/**
 * Milliseconds in a temporary-access range such as `1h` or `7d` (the service's `ms` semantics:
 * a year is 365.25 days).
 * @throws Error when the text does not match {@link accessRangePattern}.
 */
export function parseAccessRange(text: string): number {
  const match = /^([1-9][0-9]*)(ms|s|m|h|d|w|y)$/.exec(text);
  if (!match) throw new Error(`cannot parse access range: "${text}" is not a range such as 30m, 1h or 7d`);
  return Number(match[1]) * (rangeUnitMs[match[2] ?? ''] ?? 0);
}
