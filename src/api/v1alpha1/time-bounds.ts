/**
 * Bounds on times and durations in specs, so that every time the operator computes from them
 * (a window's end, a certificate's notAfter, a rotation or poll deadline) is one the API server's
 * `date-time` format (four-digit years) and the service can store.
 *
 * What one field can say is a CEL rule in the CRD (and the same check in zod); what needs two
 * fields (a start plus a length) is checked by zod only, so the operator reports it as
 * `InvalidSpec` naming the field instead of failing later on a status write.
 */
import type { z } from 'zod';
import { parseDurationExact } from '../../runtime/duration.ts';
import { parseAccessRange } from './duration.ts';
import { withRules } from './schema-helpers.ts';

/** The earliest time a spec may name (the service's database has no year 0; nothing predates 1970). */
export const earliestTime = '1970-01-01T00:00:00Z';
/** The latest time Kubernetes' `date-time` format can hold. */
export const latestStorableTime = '9999-12-31T23:59:59Z';
const latestStorableMs = Date.parse(latestStorableTime);

/** The longest temporary-access range: 100 years of the service's 365.25-day years. */
export const maxAccessRangeYears = 100;
const maxAccessRangeMs = maxAccessRangeYears * parseAccessRange('1y');

/** The largest number before each unit of a range that stays within 100 years. */
const maxAccessRangeByUnit: Readonly<Record<string, number>> = Object.fromEntries(
  ['ms', 's', 'm', 'h', 'd', 'w', 'y'].map((unit) => [
    unit,
    Math.floor(maxAccessRangeMs / parseAccessRange(`1${unit}`)),
  ]),
);

const celUnitLimits = Object.entries(maxAccessRangeByUnit)
  .map(([unit, max]) => `'${unit}': ${max}`)
  .join(', ');

/** True when the time is at or after {@link earliestTime} (an unparsable time is left to the format). */
export function notBeforeEarliest(value: string): boolean {
  const ms = Date.parse(value);
  return Number.isNaN(ms) || ms >= Date.parse(earliestTime);
}

/** Adds the lower bound to an RFC 3339 time schema (the format already caps the year at 9999). */
export function boundedTime<S extends z.ZodType<string>>(schema: S, field: string): S {
  return withRules(schema, [
    {
      rule: `timestamp(self) >= timestamp('${earliestTime}')`,
      message: `${field} must not be before ${earliestTime}`,
      check: notBeforeEarliest,
    },
  ]);
}

/**
 * Adds the 100-year cap to a temporary-access range such as `7d` (the pattern is checked first;
 * its number has at most 13 digits, so CEL's `int()` cannot overflow).
 */
export function boundedAccessRange<S extends z.ZodType<string>>(schema: S, field: string): S {
  return withRules(schema, [
    {
      rule: `int(self.find('^[0-9]+')) <= {${celUnitLimits}}[self.find('[a-z]+$')]`,
      message: `${field} must be at most ${maxAccessRangeYears} years (${maxAccessRangeYears}y, ${maxAccessRangeByUnit['d']}d, ${maxAccessRangeByUnit['h']}h)`,
      check: (value) => {
        try {
          return parseAccessRange(value) <= maxAccessRangeMs;
        } catch {
          return true; // the pattern reports it
        }
      },
    },
  ]);
}

/** Adds an upper bound to a Go duration such as `720h`; `max` is a Go duration too. */
export function boundedGoDuration<S extends z.ZodType<string>>(schema: S, field: string, max: string): S {
  const maxMs = parseDurationExact(max);
  return withRules(schema, [
    {
      rule: `duration(self) <= duration('${max}')`,
      message: `${field} must be at most ${max}`,
      check: (value) => {
        try {
          return parseDurationExact(value) <= maxMs;
        } catch {
          return true; // the pattern reports it
        }
      },
    },
  ]);
}

/**
 * Why `start + lengthMs` cannot be stored, or undefined when it can: the message names the
 * result, e.g. `the window would end after 9999-12-31T23:59:59Z`.
 */
export function unstorableEnd(startMs: number, lengthMs: number, what: string): string | undefined {
  if (Number.isNaN(startMs) || startMs + lengthMs <= latestStorableMs) return undefined;
  return `${what} would end after ${latestStorableTime}, the latest time Kubernetes and the service can store`;
}
