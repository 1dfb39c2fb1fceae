/**
 * IdentityAuth: one authentication method attached to an Identity, with its access-token settings
 * and, for token and universal auth, credentials issued into a Secret for workloads (rotated on
 * schedule with an overlap so consumers never hold a dead credential).
 */
import { z } from 'zod';
import { goDurationPattern, parseDurationExact } from '../../runtime/duration.ts';
import { identityRef, managedFields, objectName } from './common.ts';
import {
  awsMethod,
  ipOrCidr,
  jwtMethod,
  maxTokenSeconds,
  oidcMethod,
  tlsCertMethod,
  tokenMethod,
  universalMethod,
} from './identity-auth-methods.ts';
import { kubernetesMethod } from './identity-auth-kubernetes.ts';
import { defineKind } from './kind.ts';
import type { CelRule } from './schema-helpers.ts';
import { withRules } from './schema-helpers.ts';
import { managedStatusFields } from './status.ts';
import { boundedGoDuration } from './time-bounds.ts';

export const authMethods = ['token', 'jwt', 'oidc', 'tlsCert', 'aws', 'universal', 'kubernetes'] as const;
export type AuthMethod = (typeof authMethods)[number];
/** Methods whose block is required (they have required fields); the others' blocks are optional. */
const requiredBlocks: readonly AuthMethod[] = ['jwt', 'oidc', 'tlsCert', 'kubernetes'];

const seconds = (description: string, fallback: number) =>
  z.int().min(0).max(maxTokenSeconds).default(fallback).describe(description);

/** Longest rotation period or overlap: ten years, the longest credential TTL the service allows. */
export const maxCredentialDuration = '87600h';

const goDuration = (field: string) =>
  boundedGoDuration(
    z.string().max(64).regex(goDurationPattern, 'must be a Go duration such as 30m, 24h or 720h'),
    field,
    maxCredentialDuration,
  );

export const issuedCredentials = withRules(
  z.object({
    secretName: objectName.describe(
      'Secret (same namespace) that receives the credential: accessToken for method token; clientId and ' +
        'clientSecret for method universal. Owned by this IdentityAuth.',
    ),
    rotateEvery: goDuration('credentials.rotateEvery')
      .optional()
      .describe(
        'Issue a new credential this often (Go duration, e.g. 720h; at most 87600h) and revoke the previous one after overlap. ' +
          'Unset: a credential is replaced only when it is missing, revoked or near its expiry.',
      ),
    overlap: goDuration('credentials.overlap')
      .default('10m')
      .describe('How long a replaced credential stays valid after the new one is written. Default: 10m.'),
  }),
  [
    {
      rule: '!has(self.rotateEvery) || duration(self.overlap) < duration(self.rotateEvery)',
      message: 'credentials.overlap must be shorter than credentials.rotateEvery',
      check: (v) =>
        v.rotateEvery === undefined || parseDurationExact(v.overlap) < parseDurationExact(v.rotateEvery),
    },
  ],
).describe('Issue credentials for workloads into a Secret (methods token and universal only).');

/** One rule per method: its block only with that method, and required for methods with required fields. */
function methodBlockRules(): CelRule<Record<string, unknown>>[] {
  return authMethods.map((method) =>
    requiredBlocks.includes(method)
      ? {
          rule: `(self.method == '${method}') == has(self.${method})`,
          message: `spec.${method} is required when method is ${method} and must not be set otherwise`,
          fieldPath: `.${method}`,
          check: (v) => (v['method'] === method) === (v[method] !== undefined),
        }
      : {
          rule: `!has(self.${method}) || self.method == '${method}'`,
          message: `spec.${method} may only be set when method is ${method}`,
          fieldPath: `.${method}`,
          check: (v) => v[method] === undefined || v['method'] === method,
        },
  );
}

const identityAuthFields = z.object({
  ...managedFields('Delete'),
  identityRef: withRules(identityRef, [
    {
      rule: 'self == oldSelf',
      message: 'identityRef is immutable; create a new IdentityAuth for another identity',
    },
  ]),
  method: z
    .enum(authMethods)
    .describe(
      'Authentication method: token, jwt, oidc, tlsCert, aws, universal or kubernetes. Exactly the block of the ' +
        'same name may be set (required for jwt, oidc, tlsCert and kubernetes). Changing it revokes the previous ' +
        'method in the service.',
    ),
  accessTokenTTL: seconds(
    'Lifetime of issued access tokens in seconds (0–315360000). Default: 2592000 (30 days).',
    2592000,
  ),
  accessTokenMaxTTL: seconds(
    'Maximum lifetime in seconds of an access token including renewals (0–315360000, at least 1 for aws and ' +
      'tlsCert). Must not be less than accessTokenTTL. Default: 2592000 (30 days).',
    2592000,
  ),
  accessTokenNumUsesLimit: z
    .int()
    .min(0)
    .max(2147483647)
    .default(0)
    .describe('How many times an access token may be used; 0 means unlimited. Default: 0.'),
  accessTokenTrustedIps: z
    .array(ipOrCidr)
    .min(1)
    .max(64)
    .default(['0.0.0.0/0', '::/0'])
    .describe(
      'IPs or CIDR ranges allowed to use access tokens. Default: every address (0.0.0.0/0, ::/0); anything ' +
        'narrower needs a service plan with IP allow-listing.',
    ),
  token: tokenMethod.optional(),
  jwt: jwtMethod.optional(),
  oidc: oidcMethod.optional(),
  tlsCert: tlsCertMethod.optional(),
  aws: awsMethod.optional(),
  universal: universalMethod.optional(),
  kubernetes: kubernetesMethod.optional(),
  credentials: issuedCredentials.optional(),
});

export const identityAuthSpec = withRules(identityAuthFields, [
  ...(methodBlockRules() as CelRule<z.output<typeof identityAuthFields>>[]),
  {
    rule: 'self.accessTokenTTL <= self.accessTokenMaxTTL',
    message: 'accessTokenTTL cannot be greater than accessTokenMaxTTL',
    fieldPath: '.accessTokenTTL',
    check: (v) => v.accessTokenTTL <= v.accessTokenMaxTTL,
  },
  {
    rule: "!(self.method in ['aws', 'tlsCert']) || self.accessTokenMaxTTL >= 1",
    message: 'accessTokenMaxTTL must be at least 1 for methods aws and tlsCert',
    fieldPath: '.accessTokenMaxTTL',
    check: (v) => !(v.method === 'aws' || v.method === 'tlsCert') || v.accessTokenMaxTTL >= 1,
  },
  {
    rule: "!has(self.credentials) || self.method in ['token', 'universal']",
    message: 'credentials can only be issued for methods token and universal',
    fieldPath: '.credentials',
    check: (v) => v.credentials === undefined || v.method === 'token' || v.method === 'universal',
  },
]).describe('Desired authentication method of the identity and its settings.');
export type IdentityAuthSpec = z.output<typeof identityAuthSpec>;

const credentialRecord = z.object({
  id: z
    .string()
    .max(256)
    .describe('Id of the access token or client secret in the service (never the value).'),
  issuedAt: z.iso.datetime({ offset: true }).describe('When it was issued.'),
  revokeAt: z.iso
    .datetime({ offset: true })
    .optional()
    .describe('When it will be revoked (after replacement).'),
});

export const identityAuthStatus = z
  .object({
    ...managedStatusFields,
    id: managedStatusFields.id.describe('Id of the auth-method configuration in the service.'),
    identityId: z.string().max(256).optional().describe('Id of the identity the method is attached to.'),
    method: z.enum(authMethods).optional().describe('Method currently attached by this resource.'),
    clientId: z.string().max(256).optional().describe('Universal-auth client id (not secret).'),
    jwtKeysHash: z
      .string()
      .max(64)
      .optional()
      .describe(
        'sha256 of the JWT publicKeys and jwksCaCert last sent. The service never returns them, so this is how ' +
          'a change in the spec is noticed.',
      ),
    reviewerJwtHash: z
      .string()
      .max(64)
      .optional()
      .describe(
        'sha256 of the Kubernetes-auth reviewer token last sent (from tokenReviewerJwtSecretRef), so that a ' +
          'changed Secret is noticed; never the token.',
      ),
    credentials: z
      .object({
        secretName: objectName.optional().describe('Secret holding the current credential.'),
        current: credentialRecord.optional().describe('The credential in the Secret now.'),
        nextRotationAt: z.iso
          .datetime({ offset: true })
          .optional()
          .describe('When the next rotation is due.'),
        retiring: z
          .array(credentialRecord)
          .max(16)
          .optional()
          .describe('Replaced credentials awaiting revocation.'),
      })
      .optional()
      .describe('Issued credentials (ids and times only, never values).'),
  })
  .describe('Observed state of the authentication method.');
export type IdentityAuthStatus = z.output<typeof identityAuthStatus>;

export const identityAuthKind = defineKind({
  kind: 'IdentityAuth',
  plural: 'identityauths',
  shortNames: ['idauth'],
  scope: 'Namespaced',
  description:
    'An authentication method (token, JWT, OIDC, TLS certificate, AWS IAM, universal or Kubernetes auth) attached to an ' +
    'Identity, with access-token lifetimes, and optionally credentials issued into a Secret and rotated.',
  spec: identityAuthSpec,
  status: identityAuthStatus,
  columns: [
    {
      name: 'Identity',
      type: 'string',
      jsonPath: '.spec.identityRef.name',
      description: 'Identity resource.',
    },
    { name: 'Method', type: 'string', jsonPath: '.spec.method', description: 'Authentication method.' },
  ],
  defaultDeletionPolicy: 'Delete',
});
