/**
 * What differs between the auth methods: request schemas for attach and update, the
 * response envelope and label, and the method-specific response fields (facts A1, A8, A10,
 * A11, A13, B2). The shared attach/get/update/revoke logic lives in `auth-methods.ts`.
 */
import { X509Certificate } from 'node:crypto';
import { z } from 'zod';
import { DEFAULT_TRUSTED_IPS, parseTrustedIps, TrustedIpsInputSchema } from '../../domain/validation.ts';
import type { AuthMethodName } from '../../state/types.ts';
import {
  attachTtlRefine,
  commonAttachFields,
  commonUpdateFields,
  joinCommaList,
  updateTtlRefine,
} from './common-fields.ts';
import { jwtSpec, oidcSpec } from './method-specs-jwt.ts';
import { kubernetesSpec } from './method-specs-kubernetes.ts';

/** One auth method's request schemas and response shaping. */
export interface AuthMethodSpec {
  method: AuthMethodName;
  /** Response envelope key, e.g. `identityTokenAuth`. */
  envelope: string;
  /** Used in messages: "Failed to add Token Auth to already configured identity". */
  label: string;
  attach: z.ZodType<Record<string, unknown>>;
  update: z.ZodType<Record<string, unknown>>;
  /** Post-validation conversions that may answer 400 (trusted-IP parsing, generated ids). */
  prepare?: (config: Record<string, unknown>, phase: 'attach' | 'update', newId: () => string) => void;
  /** Config keys never returned (key material). */
  hidden?: readonly string[];
  /** Config keys dropped from the DELETE answer only. */
  hiddenOnDelete?: readonly string[];
}

const tokenSpec: AuthMethodSpec = {
  method: 'token-auth',
  envelope: 'identityTokenAuth',
  label: 'Token Auth',
  attach: z.object(commonAttachFields()).refine(...attachTtlRefine),
  update: z.object(commonUpdateFields).refine(...updateTtlRefine),
};

const universalAttach = {
  clientSecretTrustedIps: TrustedIpsInputSchema.default(() => DEFAULT_TRUSTED_IPS.map((ip) => ({ ...ip }))),
  accessTokenPeriod: z.int().min(0).default(0),
  lockoutEnabled: z.boolean().default(true),
  lockoutThreshold: z.int().min(1).max(30).default(3),
  lockoutDurationSeconds: z.int().min(30).max(86400).default(300),
  lockoutCounterResetSeconds: z.int().min(5).max(3600).default(30),
};

const universalSpec: AuthMethodSpec = {
  method: 'universal-auth',
  envelope: 'identityUniversalAuth',
  label: 'Universal Auth',
  attach: z.object({ ...commonAttachFields(), ...universalAttach }).refine(...attachTtlRefine),
  update: z
    .object({
      ...commonUpdateFields,
      clientSecretTrustedIps: universalAttach.clientSecretTrustedIps.unwrap().optional(),
      accessTokenPeriod: z.int().min(0).optional(),
      lockoutEnabled: z.boolean().optional(),
      lockoutThreshold: z.int().min(1).max(30).optional(),
      lockoutDurationSeconds: z.int().min(30).max(86400).optional(),
      lockoutCounterResetSeconds: z.int().min(5).max(3600).optional(),
    })
    .refine(...updateTtlRefine),
  prepare: (config, phase, newId) => {
    if (Array.isArray(config.clientSecretTrustedIps)) {
      config.clientSecretTrustedIps = parseTrustedIps(
        config.clientSecretTrustedIps as { ipAddress: string }[],
      );
    }
    if (phase === 'attach') config.clientId = newId();
  },
};

const ARN_PATTERN = /^arn:aws:iam::(\d{12}|\*):(user\/.+|role\/.+|\*)$/;
const ACCOUNT_PATTERN = /^\d{12}$/;

function everyEntry(pattern: RegExp): (value: string) => boolean {
  return (value) =>
    joinCommaList(value)
      .split(', ')
      .every((entry) => entry === '' || pattern.test(entry));
}

const awsLists = {
  allowedPrincipalArns: z
    .string()
    .refine(everyEntry(ARN_PATTERN), 'Invalid principal ARN format')
    .transform(joinCommaList)
    .default(''),
  allowedAccountIds: z
    .string()
    .refine(everyEntry(ACCOUNT_PATTERN), 'Each account ID must be a 12-digit number')
    .transform(joinCommaList)
    .default(''),
};

const awsSpec: AuthMethodSpec = {
  method: 'aws-auth',
  envelope: 'identityAwsAuth',
  label: 'AWS Auth',
  attach: z
    .object({
      ...commonAttachFields(1),
      stsEndpoint: z.string().trim().min(1).default('https://sts.amazonaws.com/'),
      ...awsLists,
    })
    .refine(...attachTtlRefine),
  // As in the service's schema, the two lists default to "" on update too (omitting clears).
  update: z
    .object({ ...commonUpdateFields, stsEndpoint: z.string().trim().min(1).optional(), ...awsLists })
    .refine(...updateTtlRefine),
  prepare: (config, phase) => {
    if (phase === 'attach') config.type = 'iam';
  },
};

function isCertificate(pem: string): boolean {
  try {
    new X509Certificate(pem);
    return true;
  } catch {
    return false;
  }
}

/**
 * TLS-cert auth's `allowedCommonNames`: at least 1 character, each comma-separated entry trimmed
 * and re-joined with "," (no space, empty entries kept), as identity-tls-cert-auth-router.ts does.
 */
const commonNamesSchema = z
  .string()
  .min(1)
  .trim()
  .transform((v) =>
    v
      .split(',')
      .map((name) => name.trim())
      .join(','),
  );

const caCertificateSchema = z.string().min(1).max(10240).refine(isCertificate, 'Invalid CA Certificate.');

const tlsSpec: AuthMethodSpec = {
  method: 'tls-cert-auth',
  envelope: 'identityTlsCertAuth',
  label: 'TLS Certificate Auth',
  attach: z
    .object({
      ...commonAttachFields(1),
      caCertificate: caCertificateSchema,
      allowedCommonNames: commonNamesSchema.nullish(),
    })
    .refine(...attachTtlRefine),
  update: z
    .object({
      ...commonUpdateFields,
      caCertificate: caCertificateSchema.optional(),
      allowedCommonNames: commonNamesSchema.nullish(),
    })
    .refine(...updateTtlRefine),
};

/** Every supported method, keyed by its path segment (which equals its method name). */
export const AUTH_METHOD_SPECS: readonly AuthMethodSpec[] = [
  tokenSpec,
  universalSpec,
  awsSpec,
  tlsSpec,
  jwtSpec,
  oidcSpec,
  kubernetesSpec,
];
