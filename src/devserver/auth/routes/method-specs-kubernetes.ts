/**
 * Kubernetes auth method spec (identity-kubernetes-auth-router.ts): the API server to send
 * TokenReviews to (`kubernetesHost`, `caCert`), the optional reviewer token (without it the
 * logging-in token reviews itself), and the allowed namespaces, names and audience. The devserver
 * supports the `api` token-review mode only (no gateways). `tokenReviewerJwt` is key material and
 * is never returned.
 */
import { z } from 'zod';
import type { AuthMethodSpec } from './method-specs.ts';
import {
  attachTtlRefine,
  commaListSchema,
  commonAttachFields,
  commonUpdateFields,
  updateTtlRefine,
} from './common-fields.ts';

const kubernetesFields = {
  kubernetesHost: z.string().trim().min(1),
  caCert: z.string().trim().default(''),
  tokenReviewerJwt: z.string().trim().default(''),
  allowedNamespaces: commaListSchema.default(''),
  allowedNames: commaListSchema.default(''),
  allowedAudience: z.string().trim().default(''),
  accessTokenPeriod: z.int().min(0).default(0),
};

/** Kubernetes auth: TokenReview against `kubernetesHost`, then namespace/name/audience checks. */
export const kubernetesSpec: AuthMethodSpec = {
  method: 'kubernetes-auth',
  envelope: 'identityKubernetesAuth',
  label: 'Kubernetes Auth',
  attach: z.object({ ...commonAttachFields(), ...kubernetesFields }).refine(...attachTtlRefine),
  update: z
    .object({
      ...commonUpdateFields,
      kubernetesHost: z.string().trim().min(1).optional(),
      caCert: z.string().trim().optional(),
      // As the service: "" leaves the stored reviewer token as it is, null removes it.
      tokenReviewerJwt: z
        .string()
        .trim()
        .nullable()
        .optional()
        .transform((v) => (v === null ? '' : v === '' ? undefined : v)),
      allowedNamespaces: commaListSchema.optional(),
      allowedNames: commaListSchema.optional(),
      allowedAudience: z.string().trim().optional(),
      accessTokenPeriod: z.int().min(0).optional(),
    })
    .refine(...updateTtlRefine),
  hidden: ['tokenReviewerJwt'],
};
