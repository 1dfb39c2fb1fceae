/**
 * Durations written the way the `ms` library reads them, which is how the service parses
 * `temporaryRange`: a number (decimals and a leading "." allowed, optional "-") followed by an
 * optional unit, with optional spaces between, case-insensitive. Without a unit the number is
 * milliseconds. Units: ms/msec(s)/millisecond(s), s/sec(s)/second(s), m/min(s)/minute(s),
 * h/hr(s)/hour(s), d/day(s), w/week(s), y/yr(s)/year(s) (a year is 365.25 days).
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
const YEAR = 365.25 * DAY;

const UNIT_MS: ReadonlyMap<string, number> = new Map([
  ...aliases(['milliseconds', 'millisecond', 'msecs', 'msec', 'ms', ''], 1),
  ...aliases(['seconds', 'second', 'secs', 'sec', 's'], SECOND),
  ...aliases(['minutes', 'minute', 'mins', 'min', 'm'], MINUTE),
  ...aliases(['hours', 'hour', 'hrs', 'hr', 'h'], HOUR),
  ...aliases(['days', 'day', 'd'], DAY),
  ...aliases(['weeks', 'week', 'w'], WEEK),
  ...aliases(['years', 'year', 'yrs', 'yr', 'y'], YEAR),
]);

function aliases(names: string[], factor: number): Array<[string, number]> {
  return names.map((n) => [n, factor]);
}

// Like `ms`, anything longer than 100 characters is not a duration (bounds the regex work).
const MAX_LENGTH = 100;
const PATTERN = /^(-?(?:\d+)?\.?\d+) *([a-z]*)$/i;

/** Milliseconds for an `ms`-style string, or `undefined` when it is not one. */
export function parseDuration(text: string): number | undefined {
  if (text.length === 0 || text.length > MAX_LENGTH) return undefined;
  const match = PATTERN.exec(text);
  if (!match) return undefined;
  const factor = UNIT_MS.get((match[2] ?? '').toLowerCase());
  if (factor === undefined) return undefined;
  return Number.parseFloat(match[1] ?? '') * factor;
}

/** The service's rule for `temporaryRange`: it must parse to more than 0 ms. */
export const TEMPORARY_RANGE_MESSAGE = 'Temporary range must be a positive number';

/** True when `text` is a valid temporary range (parses and is > 0). */
export function isPositiveDuration(text: string): boolean {
  const value = parseDuration(text);
  return value !== undefined && value > 0;
}

/**
 * `temporaryAccessEndTime` as the service computes it: start + ms(range), as an ISO-8601 string.
 * Throws a plain Error when the inputs are invalid (callers validate first).
 */
export function temporaryEndTime(startIso: string, range: string): string {
  const start = Date.parse(startIso);
  const length = parseDuration(range);
  if (Number.isNaN(start) || length === undefined || !(length > 0)) {
    throw new Error(`cannot compute temporary end time: invalid start "${startIso}" or range "${range}"`);
  }
  return new Date(start + length).toISOString();
}
