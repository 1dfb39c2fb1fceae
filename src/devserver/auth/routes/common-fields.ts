/**
 * The access-token fields every auth method shares (facts §0.1), as attach and update
 * schemas, and the comma-list normalisation several methods apply.
 */
import { z } from 'zod';
import {
  ACCESS_TOKEN_TTL_DEFAULT,
  AccessTokenNumUsesLimitSchema,
  AccessTokenTtlSchema,
  DEFAULT_TRUSTED_IPS,
  TTL_ABOVE_MAX_ATTACH_MESSAGE,
  TrustedIpsInputSchema,
} from '../../domain/validation.ts';

/** Keys stored on the auth-method record itself rather than in its `config`. */
export const COMMON_KEYS = [
  'accessTokenTrustedIps',
  'accessTokenTTL',
  'accessTokenMaxTTL',
  'accessTokenNumUsesLimit',
  'accessTokenPeriod',
] as const;

/** Attach-time common fields with their defaults; `minMaxTtl` is 1 for AWS and TLS-cert. */
export function commonAttachFields(minMaxTtl = 0) {
  return {
    accessTokenTrustedIps: TrustedIpsInputSchema.default(() => DEFAULT_TRUSTED_IPS.map((ip) => ({ ...ip }))),
    accessTokenTTL: AccessTokenTtlSchema.default(ACCESS_TOKEN_TTL_DEFAULT),
    accessTokenMaxTTL: AccessTokenTtlSchema.min(minMaxTtl).default(ACCESS_TOKEN_TTL_DEFAULT),
    accessTokenNumUsesLimit: AccessTokenNumUsesLimitSchema.default(0),
  };
}

/** Update-time common fields: all optional. */
export const commonUpdateFields = {
  accessTokenTrustedIps: TrustedIpsInputSchema.optional(),
  accessTokenTTL: AccessTokenTtlSchema.optional(),
  accessTokenMaxTTL: AccessTokenTtlSchema.optional(),
  accessTokenNumUsesLimit: AccessTokenNumUsesLimitSchema.optional(),
};

interface TtlPair {
  accessTokenTTL?: number | undefined;
  accessTokenMaxTTL?: number | undefined;
}

type TtlRefine = [(v: TtlPair) => boolean, { message: string; path: string[] }];

/** Attach refine: TTL ≤ max TTL. */
export const attachTtlRefine: TtlRefine = [
  (v: TtlPair) => (v.accessTokenTTL ?? 0) <= (v.accessTokenMaxTTL ?? 0),
  { message: TTL_ABOVE_MAX_ATTACH_MESSAGE, path: ['accessTokenTTL'] },
];

/** Update refine: TTL ≤ max TTL only when both are present and non-zero. */
export const updateTtlRefine: TtlRefine = [
  (v: TtlPair) => !v.accessTokenTTL || !v.accessTokenMaxTTL || v.accessTokenTTL <= v.accessTokenMaxTTL,
  { message: TTL_ABOVE_MAX_ATTACH_MESSAGE, path: ['accessTokenTTL'] },
];

/** "a, b ,c" → "a, b, c" (empty entries dropped). */
export function joinCommaList(value: string): string {
  return value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v.length > 0)
    .join(', ');
}

/** A comma-separated string, normalised to `", "`-joined. */
export const commaListSchema = z.string().transform(joinCommaList);

/** A record of claim → comma list, each value normalised. */
export const boundClaimsSchema = z
  .record(z.string(), z.string())
  .transform((claims) => Object.fromEntries(Object.entries(claims).map(([k, v]) => [k, joinCommaList(v)])));

/** A string field of a method's `config` ("" when absent or not a string). */
export function configString(config: Record<string, unknown>, key: string): string {
  const value = config[key];
  return typeof value === 'string' ? value : '';
}
