// Building blocks shared by the API modules. Response schemas use zod's default strip mode:
// unknown fields are dropped, the fields we use are type-checked. Request schemas mirror the
// service's own validation where a mistake would otherwise cost a round trip.
import { z } from 'zod';

/** ISO-8601 timestamp as sent by the service (kept as a string). */
export const timestamp = z.string();

/** Optional string the service may send as null. */
export const optString = z.string().nullish();

/** `slugSchema` of the service: lowercase letters and digits joined by single hyphens. */
export function slug(max = 64, min = 1) {
  return z
    .string()
    .trim()
    .min(min)
    .max(max)
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'can only contain lowercase letters, numbers, and hyphens');
}

/** Access-token lifetime bound shared by all auth methods: 0..315360000 seconds (10 years). */
export const ttlSeconds = z.number().int().min(0).max(315_360_000);

/** Trusted IP / CIDR entries as sent: `[{ ipAddress }]`, at least one. */
export const trustedIpsRequest = z.array(z.object({ ipAddress: z.string().trim().min(1) })).min(1);

/** Trusted IPs as returned: the parsed form `{ ipAddress, type?, prefix? }`. */
export const trustedIpsResponse = z.array(
  z.object({ ipAddress: z.string(), type: z.string().optional(), prefix: z.number().nullish() }),
);

/** A permission rule as returned (`action` is normalised to an array by the service). */
export const permissionRuleResponse = z.object({
  subject: z.union([z.string(), z.array(z.string())]),
  action: z.union([z.string(), z.array(z.string())]).transform((a) => (Array.isArray(a) ? a : [a])),
  conditions: z.unknown().optional(),
  inverted: z.boolean().optional(),
});
export type PermissionRule = z.output<typeof permissionRuleResponse>;

/** A v2 permission rule as sent. */
export const permissionRuleRequest = z.object({
  subject: z.string().min(1),
  action: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  conditions: z.record(z.string(), z.unknown()).optional(),
  inverted: z.boolean().optional(),
});
export type PermissionRuleInput = z.input<typeof permissionRuleRequest>;

/** `temporaryRange`: an ms-style duration such as `30m`, `1h`, `7d`, or a number of ms. */
export const temporaryRange = z
  .string()
  .trim()
  .regex(
    /^\d+(\.\d+)?\s*(ms|msecs?|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?|y|yrs?|years?)?$/i,
    'must be a positive duration such as 30m, 1h or 7d',
  )
  .refine((v) => Number.parseFloat(v) > 0, 'Temporary range must be a positive number');

/** Permanent or temporary (relative window) access, as sent. */
export const temporaryAccessRequest = z.discriminatedUnion('isTemporary', [
  z.object({ isTemporary: z.literal(false) }),
  z.object({
    isTemporary: z.literal(true),
    temporaryMode: z.literal('relative'),
    temporaryRange,
    temporaryAccessStartTime: z.iso.datetime(),
  }),
]);
export type TemporaryAccessInput = z.input<typeof temporaryAccessRequest>;

/** Temporary-window fields as returned on privileges and membership roles. */
export const temporaryFields = {
  isTemporary: z.boolean(),
  temporaryMode: optString,
  temporaryRange: optString,
  temporaryAccessStartTime: timestamp.nullish(),
  temporaryAccessEndTime: timestamp.nullish(),
};
