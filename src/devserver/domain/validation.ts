/**
 * The service's shared request-validation building blocks (facts §0.1), as zod schemas, plus the
 * trusted-IP parsing and matching the access-token checks need. Route schemas are assembled from
 * these by the HTTP layer; a zod failure there is a 422, while the helpers here that throw use
 * {@link DomainError} with the status the service uses (400 for a bad IP, for example).
 */
import { BlockList, isIP } from 'node:net';
import { z } from 'zod';
import { isPositiveDuration, TEMPORARY_RANGE_MESSAGE } from './duration.ts';
import { badRequest } from './errors.ts';

const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

function characters(n: number): string {
  return n === 1 ? 'character' : 'characters';
}

/**
 * The service's `slugSchema`: trimmed, `min`..`max` long (defaults 1..64), and equal to its own
 * slugified form, i.e. lowercase letters and digits joined by single hyphens. `field` names the
 * field in the messages ("Slug field must be at least 1 lowercase character").
 */
export function slugSchema(options: { min?: number; max?: number; field?: string } = {}) {
  const { min = 1, max = 64, field = 'Slug' } = options;
  return z
    .string()
    .trim()
    .min(min, `${field} field must be at least ${min} lowercase ${characters(min)}`)
    .max(max, `${field} field must be at most ${max} lowercase ${characters(max)}`)
    .refine(
      (v) => v.length === 0 || SLUG_PATTERN.test(v),
      `${field} field can only contain lowercase letters, numbers, and hyphens`,
    );
}

/** Trimmed, 1..64 characters of letters, digits, `-`, `_` and spaces. */
export const GenericResourceNameSchema = z
  .string()
  .trim()
  .min(1, 'Name must be at least 1 character')
  .max(64, 'Name must be 64 or fewer characters')
  .regex(
    /^[a-zA-Z0-9\-_\s]+$/,
    'Name can only contain alphanumeric characters, dashes, underscores, and spaces',
  );

/** Trimmed, at least 1 character; no other rule (`BaseSecretNameSchema`). */
export const BaseSecretNameSchema = z.string().trim().min(1);

/** A secret key: trimmed, at least 1 character, no `:` and no `/`. Unicode is allowed. */
export const SecretNameSchema = BaseSecretNameSchema.refine(
  (v) => !v.includes(':'),
  'Secret name cannot contain colon.',
).refine((v) => !v.includes('/'), 'Secret name cannot contain forward slash.');

/** A folder name: letters, digits, `-` and `_` only. */
export const FolderNameSchema = z
  .string()
  .trim()
  .min(1, 'Folder name cannot be empty')
  .regex(/^[a-zA-Z0-9\-_]+$/, 'Folder name can only contain alphanumeric, dashes, and underscore');

/**
 * The project slug accepted by `PATCH /api/v1/workspace/{id}`: at most 64 characters, lowercase
 * letters and digits with single `-` or `_` between words (underscores allowed, unlike slugSchema).
 */
export const ProjectPatchSlugSchema = z
  .string()
  .trim()
  .max(64, 'Project slug must be at most 64 characters')
  .regex(
    /^[a-z0-9]+(?:[_-][a-z0-9]+)*$/,
    'Project slug can only contain lowercase letters and numbers, with optional single hyphens (-) or underscores (_) between words. Cannot start or end with a hyphen or underscore.',
  );

// ---------------------------------------------------------------------------------------------
// Access-token lifetime fields

/** Upper bound of `accessTokenTTL` / `accessTokenMaxTTL`: ten years in seconds. */
export const ACCESS_TOKEN_TTL_MAX = 315_360_000;
/** Default of both TTL fields on attach: thirty days in seconds. */
export const ACCESS_TOKEN_TTL_DEFAULT = 2_592_000;

/** An integer number of seconds, 0..315360000 (0 means "no expiry" for TTL and max TTL). */
export const AccessTokenTtlSchema = z.int().min(0).max(ACCESS_TOKEN_TTL_MAX);
/** An integer ≥ 0; 0 means unlimited uses. */
export const AccessTokenNumUsesLimitSchema = z.int().min(0);

/** The attach-time refine message (a 422 when TTL > max TTL on attach). */
export const TTL_ABOVE_MAX_ATTACH_MESSAGE = 'Access Token TTL cannot be greater than Access Token Max TTL.';
/** The service-level message (a 400) for the same conflict on update. */
export const TTL_ABOVE_MAX_MESSAGE = 'Access token TTL cannot be greater than max TTL';

/**
 * The update-time cross-check of the token-auth service (and, by analogy, the other methods):
 * an omitted TTL is replaced by the stored *max* TTL (a quirk of the service) and an omitted max
 * TTL by the stored max TTL; when the resulting max TTL is > 0 and the TTL exceeds it, 400.
 */
export function assertUpdatedTtlWithinMax(
  update: { accessTokenTTL?: number | undefined; accessTokenMaxTTL?: number | undefined },
  stored: { accessTokenMaxTTL: number },
): void {
  const maxTtl = update.accessTokenMaxTTL || stored.accessTokenMaxTTL;
  const ttl = update.accessTokenTTL || stored.accessTokenMaxTTL;
  if (maxTtl > 0 && ttl > maxTtl) throw badRequest(TTL_ABOVE_MAX_MESSAGE);
}

// ---------------------------------------------------------------------------------------------
// Trusted IPs

/** The "allow everything" pair every auth method starts with. */
export const DEFAULT_TRUSTED_IPS: ReadonlyArray<{ ipAddress: string }> = [
  { ipAddress: '0.0.0.0/0' },
  { ipAddress: '::/0' },
];

/** Request shape of `accessTokenTrustedIps` / `clientSecretTrustedIps` (at least one entry). */
export const TrustedIpsInputSchema = z.array(z.object({ ipAddress: z.string().trim() })).min(1);

/** The stored and returned form of one trusted IP: `prefix` is present only for CIDR ranges. */
export interface TrustedIp {
  ipAddress: string;
  type: 'ipv4' | 'ipv6';
  prefix?: number;
}

export const INVALID_IP_MESSAGE = 'The IP is not a valid IPv4, IPv6, or CIDR block';
export const IP_PLAN_RESTRICTION_MESSAGE =
  'Failed to add IP access range to access token due to plan restriction. Upgrade plan to add IP access range to access token.';

/** Parses one address or CIDR range; `undefined` when it is neither. */
export function parseTrustedIp(text: string): TrustedIp | undefined {
  const value = text.trim();
  const version = isIP(value);
  if (version !== 0) return { ipAddress: value, type: version === 4 ? 'ipv4' : 'ipv6' };
  const slash = value.indexOf('/');
  if (slash <= 0) return undefined;
  const address = value.slice(0, slash);
  const prefixText = value.slice(slash + 1);
  const addressVersion = isIP(address);
  if (addressVersion === 0 || !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  if (prefix > (addressVersion === 4 ? 32 : 128)) return undefined;
  return { ipAddress: address, type: addressVersion === 4 ? 'ipv4' : 'ipv6', prefix };
}

function isAnyRange(ip: TrustedIp): boolean {
  return ip.prefix === 0 && (ip.ipAddress === '0.0.0.0' || ip.ipAddress === '::');
}

/**
 * Turns the request form into the stored form. Throws 400 on an invalid address. With
 * `ipAllowListing: false` (a plan without IP allow-listing) anything other than the two "any"
 * ranges is also a 400. The devserver behaves like a plan that has the feature (the default).
 */
export function parseTrustedIps(
  input: ReadonlyArray<{ ipAddress: string }>,
  options: { ipAllowListing?: boolean } = {},
): TrustedIp[] {
  const parsed = input.map(({ ipAddress }) => {
    const ip = parseTrustedIp(ipAddress);
    if (!ip) throw badRequest(INVALID_IP_MESSAGE);
    return ip;
  });
  if (options.ipAllowListing === false && !parsed.every(isAnyRange)) {
    throw badRequest(IP_PLAN_RESTRICTION_MESSAGE);
  }
  return parsed;
}

/** Strips the IPv4-mapped IPv6 prefix Node reports for IPv4 clients on dual-stack sockets. */
function unmapIpv4(address: string): string {
  const lower = address.toLowerCase();
  if (lower.startsWith('::ffff:') && isIP(address.slice(7)) === 4) return address.slice(7);
  return address;
}

/**
 * True when `clientIp` lies in at least one trusted address or range. An unparsable client
 * address is never allowed. IPv4-mapped IPv6 client addresses are compared as IPv4.
 */
export function ipAllowed(clientIp: string, trustedIps: readonly TrustedIp[]): boolean {
  const address = unmapIpv4(clientIp.trim());
  const version = isIP(address);
  if (version === 0) return false;
  const type = version === 4 ? 'ipv4' : 'ipv6';
  const list = new BlockList();
  for (const ip of trustedIps) {
    // Only same-family rules apply: BlockList would otherwise match IPv4 against ::ffff:0:0/96.
    if (ip.type !== type) continue;
    if (ip.prefix === undefined) list.addAddress(ip.ipAddress, ip.type);
    else list.addSubnet(ip.ipAddress, ip.prefix, ip.type);
  }
  return list.check(address, type);
}

/**
 * The TTL and IP fields every auth method accepts on attach, with the service's defaults
 * (TTL and max TTL 2592000 s, unlimited uses, allow-all IPs). Spread into a `z.object({...})`;
 * add the attach refine (TTL ≤ max TTL, {@link TTL_ABOVE_MAX_ATTACH_MESSAGE}) on the object.
 */
export const AccessTokenAttachFields = {
  accessTokenTrustedIps: TrustedIpsInputSchema.default(() => DEFAULT_TRUSTED_IPS.map((ip) => ({ ...ip }))),
  accessTokenTTL: AccessTokenTtlSchema.default(ACCESS_TOKEN_TTL_DEFAULT),
  accessTokenMaxTTL: AccessTokenTtlSchema.default(ACCESS_TOKEN_TTL_DEFAULT),
  accessTokenNumUsesLimit: AccessTokenNumUsesLimitSchema.default(0),
};

/** The same fields on update: all optional, no defaults (omitted fields stay unchanged). */
export const AccessTokenUpdateFields = {
  accessTokenTrustedIps: TrustedIpsInputSchema.optional(),
  accessTokenTTL: AccessTokenTtlSchema.optional(),
  accessTokenMaxTTL: AccessTokenTtlSchema.optional(),
  accessTokenNumUsesLimit: AccessTokenNumUsesLimitSchema.optional(),
};

/** The attach refine: TTL must not exceed max TTL. */
export function ttlWithinMax(value: { accessTokenTTL: number; accessTokenMaxTTL: number }): boolean {
  return value.accessTokenTTL <= value.accessTokenMaxTTL;
}

/** The update refine: applied only when both values are present and non-zero. */
export function updatedTtlWithinMax(value: { accessTokenTTL?: number; accessTokenMaxTTL?: number }): boolean {
  const { accessTokenTTL: ttl, accessTokenMaxTTL: max } = value;
  return !ttl || !max || ttl <= max;
}

// ---------------------------------------------------------------------------------------------
// Temporary access

/** `temporaryMode`: the single value "relative". */
export const TemporaryModeSchema = z.enum(['relative']);
/** `temporaryRange`: an `ms`-style duration that is > 0. */
export const TemporaryRangeSchema = z.string().refine(isPositiveDuration, TEMPORARY_RANGE_MESSAGE);
/** `temporaryAccessStartTime`: an ISO-8601 UTC datetime string. */
export const TemporaryAccessStartTimeSchema = z.iso.datetime();

/**
 * The privilege `type` union on `isTemporary`: `{isTemporary:false}` or
 * `{isTemporary:true, temporaryMode:"relative", temporaryRange, temporaryAccessStartTime}`.
 */
export const PrivilegeTypeSchema = z.discriminatedUnion('isTemporary', [
  z.object({ isTemporary: z.literal(false) }),
  z.object({
    isTemporary: z.literal(true),
    temporaryMode: TemporaryModeSchema,
    temporaryRange: TemporaryRangeSchema,
    temporaryAccessStartTime: TemporaryAccessStartTimeSchema,
  }),
]);
export type PrivilegeType = z.infer<typeof PrivilegeTypeSchema>;
