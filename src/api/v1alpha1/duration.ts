/**
 * Temporary-access ranges (`30m`, `1h`, `7d`): the service's own duration format (the `ms`
 * library's), which is not a Go duration (it has days, weeks and years). Go durations are
 * `src/runtime/duration.ts`.
 */

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
