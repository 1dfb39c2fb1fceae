/**
 * The lease parts of a WorkloadSecret: a source's `dynamicSecret` (hold a lease of a dynamic
 * secret of the service and deliver its credentials) and the leases status records (ids, times
 * and hashes, never credentials).
 */
import { z } from 'zod';
import { goDurationPattern, parseDurationExact } from '../../runtime/duration.ts';
import { slug } from './common.ts';
import { withRules } from './schema-helpers.ts';

/** A Go duration between `min` and `max` (CEL and zod). */
export const goDuration = (field: string, min: string, max: string) =>
  withRules(z.string().max(64).regex(goDurationPattern, 'must be a Go duration such as 5s, 10m or 1h'), [
    {
      rule: `duration(self) >= duration('${min}') && duration(self) <= duration('${max}')`,
      message: `${field} must be between ${min} and ${max}`,
      check: (v) =>
        parseDurationExact(v) >= parseDurationExact(min) && parseDurationExact(v) <= parseDurationExact(max),
    },
  ]);

/** Most lease sources (`dynamicSecret`) one WorkloadSecret holds. */
export const maxLeaseSources = 4;

export const leaseDeletionPolicies = ['Revoke', 'Retain'] as const;

const ttlString = z
  .string()
  .min(2)
  .max(16)
  .regex(/^[0-9]+(s|m|h|d)$/, 'must be a number and a unit: s, m, h or d, e.g. 1h');

export const dynamicSecretLease = z
  .object({
    name: slug(1, 64).describe('Name of the dynamic secret in the folder of this source.'),
    ttl: ttlString
      .optional()
      .describe(
        'Lifetime asked for each lease and each renewal, e.g. 1h (at least 1m). Unset: the dynamic ' +
          "secret's default TTL.",
      ),
    rotationOverlap: goDuration('rotationOverlap', '0s', '24h')
      .default('5m')
      .describe(
        'How long the previous lease stays valid after a new one is delivered (so workloads still using ' +
          'it can finish), before it is revoked. Default: 5m.',
      ),
    deletionPolicy: z
      .enum(leaseDeletionPolicies)
      .default('Revoke')
      .describe(
        'Revoke: the lease is revoked when this WorkloadSecret is deleted. Retain: it is left to expire. ' +
          'Default: Revoke.',
      ),
  })
  .describe(
    'Hold a lease of this dynamic secret (in the folder named by projectRef/projectId/projectSlug, ' +
      'environment and secretPath) and deliver its credentials (e.g. DB_USERNAME, DB_PASSWORD) as this ' +
      "source's keys; renewed before it expires, replaced by a new lease before the dynamic secret's " +
      'maximum TTL. The credentials exist only in the delivered target: a target deleted or edited is ' +
      'refilled with a new lease (the old one is revoked).',
  );

export const heldLease = z
  .object({
    source: z.int().min(0).describe('Index of the source in spec.sources.'),
    leaseId: z.string().max(256).describe('Id of the lease in the service.'),
    name: z.string().max(64).describe('Name of the dynamic secret.'),
    projectSlug: z.string().max(64).describe('Slug of its project.'),
    environment: z.string().max(64).describe('Environment slug.'),
    secretPath: z.string().max(1024).describe('Folder of the dynamic secret.'),
    createdAt: z.iso.datetime({ offset: true }).describe('When the lease was issued.'),
    expireAt: z.iso.datetime({ offset: true }).describe('When the lease expires unless renewed.'),
    renewAt: z.iso
      .datetime({ offset: true })
      .describe('When it is renewed (two thirds of its remaining time), or replaced if it cannot be.'),
    paramsHash: z
      .string()
      .max(64)
      .describe(
        'Hash of what the lease was asked with (dynamic secret, folder, TTL): a change issues a new one.',
      ),
    mark: z
      .string()
      .max(64)
      .describe('The issuance mark (coffer.dev/lease-pending) written before the lease was asked for.'),
    deletionPolicy: z
      .enum(leaseDeletionPolicies)
      .describe('What happens to it when this resource is deleted.'),
  })
  .describe('A lease held for a dynamicSecret source.');
