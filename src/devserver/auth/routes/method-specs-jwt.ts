/**
 * JWT and OIDC auth method specs (facts A8, A10). JWT is a discriminated union on
 * `configurationType` (`jwks` or `static`) even on update, where only the common part is
 * partial; OIDC's update is fully partial.
 */
import { z } from 'zod';
import type { AuthMethodSpec } from './method-specs.ts';
import {
  attachTtlRefine,
  boundClaimsSchema,
  commaListSchema,
  commonAttachFields,
  commonUpdateFields,
  updateTtlRefine,
} from './common-fields.ts';

const jwksVariant = {
  configurationType: z.literal('jwks'),
  jwksUrl: z.url(),
  jwksCaCert: z.string().default(''),
  publicKeys: z.array(z.string()).default([]),
};

const staticVariant = {
  configurationType: z.literal('static'),
  publicKeys: z.array(z.string().min(1)).min(1),
  jwksUrl: z.string().default(''),
  jwksCaCert: z.string().default(''),
};

const jwtClaims = {
  boundIssuer: z.string().default(''),
  boundAudiences: commaListSchema.default(''),
  boundClaims: boundClaimsSchema,
  boundSubject: z.string().default(''),
  accessTokenPeriod: z.int().min(0).default(0),
};

const jwtClaimsPartial = {
  boundIssuer: z.string().optional(),
  boundAudiences: commaListSchema.optional(),
  boundClaims: boundClaimsSchema.optional(),
  boundSubject: z.string().optional(),
  accessTokenPeriod: z.int().min(0).optional(),
};

/**
 * JWT auth: `jwks` or `static` verification keys. Attach, read and update return `publicKeys` and
 * `jwksCaCert`; only revoke omits them (identity-jwt-auth-router.ts).
 */
export const jwtSpec: AuthMethodSpec = {
  method: 'jwt-auth',
  envelope: 'identityJwtAuth',
  label: 'JWT Auth',
  attach: z
    .discriminatedUnion('configurationType', [
      z.object({ ...commonAttachFields(), ...jwtClaims, ...jwksVariant }),
      z.object({ ...commonAttachFields(), ...jwtClaims, ...staticVariant }),
    ])
    .refine(...attachTtlRefine),
  update: z
    .discriminatedUnion('configurationType', [
      z.object({ ...commonUpdateFields, ...jwtClaimsPartial, ...jwksVariant }),
      z.object({ ...commonUpdateFields, ...jwtClaimsPartial, ...staticVariant }),
    ])
    .refine(...updateTtlRefine),
  hiddenOnDelete: ['publicKeys', 'jwksCaCert'],
};

const oidcFields = {
  oidcDiscoveryUrl: z.url(),
  caCert: z.string().default(''),
  boundIssuer: z.string().min(1),
  boundAudiences: commaListSchema.default(''),
  boundClaims: boundClaimsSchema,
  claimMetadataMapping: z.record(z.string(), z.string()).optional(),
  boundSubject: z.string().default(''),
};

/** OIDC auth: discovery URL, issuer and claim bindings; `caCert` is omitted on delete. */
export const oidcSpec: AuthMethodSpec = {
  method: 'oidc-auth',
  envelope: 'identityOidcAuth',
  label: 'OIDC Auth',
  attach: z.object({ ...commonAttachFields(), ...oidcFields }).refine(...attachTtlRefine),
  update: z
    .object({
      ...commonUpdateFields,
      oidcDiscoveryUrl: z.url().optional(),
      caCert: z.string().optional(),
      boundIssuer: z.string().min(1).optional(),
      boundAudiences: commaListSchema.optional(),
      boundClaims: boundClaimsSchema.optional(),
      claimMetadataMapping: z.record(z.string(), z.string()).optional(),
      boundSubject: z.string().optional(),
    })
    .refine(...updateTtlRefine),
  hiddenOnDelete: ['caCert'],
};
