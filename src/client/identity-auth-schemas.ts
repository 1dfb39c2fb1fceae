// Request and response schemas of the seven identity auth methods. All share the access-token
// lifetime fields; attach applies the service's defaults server-side, so nothing is
// defaulted here (we send only what the caller set).
import { z } from 'zod';
import { optString, timestamp, trustedIpsRequest, trustedIpsResponse, ttlSeconds } from './schemas.ts';

const TTL_MESSAGE = 'Access Token TTL cannot be greater than Access Token Max TTL.';

interface TtlFields {
  accessTokenTTL?: number | undefined;
  accessTokenMaxTTL?: number | undefined;
}

/** Attach: TTL ≤ max TTL whenever both are given. */
function attachTtlCheck(value: TtlFields, ctx: z.RefinementCtx): void {
  const { accessTokenTTL: ttl, accessTokenMaxTTL: max } = value;
  if (ttl !== undefined && max !== undefined && ttl > max) {
    ctx.addIssue({ code: 'custom', path: ['accessTokenTTL'], message: TTL_MESSAGE });
  }
}

/** Update: the service checks only when both are given and non-zero. */
function updateTtlCheck(value: TtlFields, ctx: z.RefinementCtx): void {
  const { accessTokenTTL: ttl, accessTokenMaxTTL: max } = value;
  if (ttl !== undefined && max !== undefined && ttl > 0 && max > 0 && ttl > max) {
    ctx.addIssue({ code: 'custom', path: ['accessTokenTTL'], message: TTL_MESSAGE });
  }
}

const lifetimeRequest = {
  accessTokenTTL: ttlSeconds.optional(),
  accessTokenMaxTTL: ttlSeconds.optional(),
  accessTokenNumUsesLimit: z.number().int().min(0).optional(),
  accessTokenTrustedIps: trustedIpsRequest.optional(),
};

/** Fields every auth configuration returns. */
const lifetimeResponse = {
  id: z.string().min(1),
  identityId: z.string().min(1),
  accessTokenTTL: z.number().int(),
  accessTokenMaxTTL: z.number().int(),
  accessTokenNumUsesLimit: z.number().int(),
  accessTokenTrustedIps: trustedIpsResponse,
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
};

// --- token auth ---
export const tokenAuthResponse = z.object({
  ...lifetimeResponse,
  accessTokenPeriod: z.number().int().optional(),
});
export const tokenAuthAttach = z.object(lifetimeRequest).superRefine(attachTtlCheck);
export const tokenAuthUpdate = z.object(lifetimeRequest).superRefine(updateTtlCheck);

// --- universal auth ---
const universalExtra = {
  clientSecretTrustedIps: trustedIpsRequest.optional(),
  accessTokenPeriod: z.number().int().min(0).optional(),
  lockoutEnabled: z.boolean().optional(),
  lockoutThreshold: z.number().int().min(1).max(30).optional(),
  lockoutDurationSeconds: z.number().int().min(30).max(86_400).optional(),
  lockoutCounterResetSeconds: z.number().int().min(5).max(3600).optional(),
};
export const universalAuthResponse = z.object({
  ...lifetimeResponse,
  clientId: z.string().min(1),
  clientSecretTrustedIps: trustedIpsResponse,
  accessTokenPeriod: z.number().int().optional(),
  lockoutEnabled: z.boolean().optional(),
  lockoutThreshold: z.number().int().optional(),
  lockoutDurationSeconds: z.number().int().optional(),
  lockoutCounterResetSeconds: z.number().int().optional(),
});
export const universalAuthAttach = z
  .object({ ...lifetimeRequest, ...universalExtra })
  .superRefine(attachTtlCheck);
export const universalAuthUpdate = z
  .object({ ...lifetimeRequest, ...universalExtra })
  .superRefine(updateTtlCheck);

// --- JWT auth ---
const jwtCommon = {
  boundIssuer: z.string().optional(),
  boundAudiences: z.string().optional(),
  boundSubject: z.string().optional(),
  accessTokenPeriod: z.number().int().min(0).optional(),
};
const jwksConfig = {
  configurationType: z.literal('jwks'),
  jwksUrl: z.url(),
  jwksCaCert: z.string().optional(),
};
const staticConfig = {
  configurationType: z.literal('static'),
  publicKeys: z.array(z.string().min(1)).min(1),
};
function jwtRequest(claims: z.ZodType) {
  const common = { ...lifetimeRequest, ...jwtCommon, boundClaims: claims };
  return z.discriminatedUnion('configurationType', [
    z.object({ ...common, ...jwksConfig }),
    z.object({ ...common, ...staticConfig }),
  ]);
}
const claimsRecord = z.record(z.string(), z.string());
export const jwtAuthAttach = jwtRequest(claimsRecord).superRefine(attachTtlCheck);
/** PATCH still needs `configurationType` and that configuration's fields (only the rest is partial). */
export const jwtAuthUpdate = jwtRequest(claimsRecord.optional()).superRefine(updateTtlCheck);
export const jwtAuthResponse = z.object({
  ...lifetimeResponse,
  configurationType: z.string(),
  jwksUrl: optString,
  boundIssuer: optString,
  boundAudiences: optString,
  boundClaims: z.record(z.string(), z.unknown()).nullish(),
  boundSubject: optString,
  accessTokenPeriod: z.number().int().optional(),
});

// --- OIDC auth ---
const oidcFields = {
  oidcDiscoveryUrl: z.url(),
  caCert: z.string().optional(),
  boundIssuer: z.string().min(1),
  boundAudiences: z.string().optional(),
  boundClaims: claimsRecord,
  claimMetadataMapping: claimsRecord.optional(),
  boundSubject: z.string().optional(),
};
export const oidcAuthAttach = z.object({ ...lifetimeRequest, ...oidcFields }).superRefine(attachTtlCheck);
export const oidcAuthUpdate = z
  .object({ ...lifetimeRequest, ...oidcFields })
  .partial()
  .superRefine(updateTtlCheck);
export const oidcAuthResponse = z.object({
  ...lifetimeResponse,
  oidcDiscoveryUrl: z.string(),
  boundIssuer: optString,
  boundAudiences: optString,
  boundClaims: z.record(z.string(), z.unknown()).nullish(),
  claimMetadataMapping: z.record(z.string(), z.unknown()).nullish(),
  boundSubject: optString,
  caCert: optString,
});

// --- TLS certificate auth ---
const tlsFields = {
  caCertificate: z.string().min(1).max(10_240),
  allowedCommonNames: z.string().nullish(),
};
export const tlsCertAuthAttach = z
  .object({ ...lifetimeRequest, ...tlsFields, accessTokenMaxTTL: ttlSeconds.min(1).optional() })
  .superRefine(attachTtlCheck);
export const tlsCertAuthUpdate = z
  .object({ ...lifetimeRequest, ...tlsFields })
  .partial()
  .superRefine(updateTtlCheck);
export const tlsCertAuthResponse = z.object({
  ...lifetimeResponse,
  allowedCommonNames: optString,
  caCertificate: optString,
});

// --- AWS auth ---
const awsFields = {
  stsEndpoint: z.string().min(1).optional(),
  allowedPrincipalArns: z.string().optional(),
  allowedAccountIds: z.string().optional(),
  accessTokenPeriod: z.number().int().min(0).optional(),
};
export const awsAuthAttach = z
  .object({ ...lifetimeRequest, ...awsFields, accessTokenMaxTTL: ttlSeconds.min(1).optional() })
  .superRefine(attachTtlCheck);
/** Send both list fields on every PATCH: the service may reset an omitted one to "". */
export const awsAuthUpdate = z.object({ ...lifetimeRequest, ...awsFields }).superRefine(updateTtlCheck);
export const awsAuthResponse = z.object({
  ...lifetimeResponse,
  type: optString,
  stsEndpoint: optString,
  allowedPrincipalArns: optString,
  allowedAccountIds: optString,
  accessTokenPeriod: z.number().int().optional(),
});

// --- Kubernetes auth ---
const kubernetesFields = {
  kubernetesHost: z.string().min(1),
  caCert: z.string().optional(),
  allowedNamespaces: z.string(),
  allowedNames: z.string(),
  allowedAudience: z.string(),
};
export const kubernetesAuthAttach = z
  .object({ ...lifetimeRequest, ...kubernetesFields, tokenReviewerJwt: z.string().optional() })
  .superRefine(attachTtlCheck);
/** `tokenReviewerJwt`: omitted or "" leaves the stored one, null removes it. */
export const kubernetesAuthUpdate = z
  .object({ ...lifetimeRequest, ...kubernetesFields, tokenReviewerJwt: z.string().nullish() })
  .partial()
  .superRefine(updateTtlCheck);
/** The reviewer token, which the service returns decrypted, is not read (never kept in memory). */
export const kubernetesAuthResponse = z.object({
  ...lifetimeResponse,
  kubernetesHost: optString,
  caCert: optString,
  allowedNamespaces: optString,
  allowedNames: optString,
  allowedAudience: optString,
  tokenReviewMode: optString,
});
