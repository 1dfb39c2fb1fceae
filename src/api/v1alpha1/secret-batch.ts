/**
 * SecretBatch: pushes values held in Kubernetes (Secret keys, or literals for non-sensitive
 * values) into one environment and folder of a project. It owns the keys it wrote and never
 * touches others; status records versions and value hashes, never values.
 */
import { z } from 'zod';
import { managedFields, objectName, projectRef, secretKeySelector, slug } from './common.ts';
import { defineKind } from './kind.ts';
import { celCountPresent, countPresent, listMap, withRules } from './schema-helpers.ts';
import { managedStatusFields } from './status.ts';

/** Secret key name as the service accepts it: no `:` or `/`. */
export const secretName = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^:/\s]+$/, 'must not contain ":", "/" or whitespace');

/** Folder path: `/` or `/a/b` of letters, digits, `-` and `_`. */
export const secretPath = z
  .string()
  .max(1024)
  .regex(
    /^\/([A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*)?$/,
    'must be / or a path such as /app/db (letters, digits, - and _)',
  );

const valueSources = ['value', 'valueFrom'] as const;

export const batchSecret = withRules(
  z.object({
    key: secretName.describe('Secret key in the service (no ":" or "/").'),
    value: z
      .string()
      .max(65536)
      .optional()
      .describe(
        'Literal value, for non-sensitive values only (it is visible in the resource). Prefer valueFrom.',
      ),
    valueFrom: z
      .object({ secretKeyRef: secretKeySelector.describe('Secret key whose value is pushed.') })
      .optional()
      .describe(
        'Take the value from a key of a Secret in this namespace; changes there are pushed within seconds.',
      ),
    previousKey: secretName
      .optional()
      .describe(
        'Former key name: if this resource owns a secret called previousKey and none called key, it is renamed ' +
          '(keeping its history) instead of deleted and recreated.',
      ),
    comment: z.string().max(4096).optional().describe('Comment stored with the secret.'),
    skipMultilineEncoding: z
      .boolean()
      .optional()
      .describe(
        'Hint for clients not to encode multi-line values. Unset: false for new secrets, unchanged otherwise.',
      ),
    reminder: z
      .object({
        note: z.string().max(1024).optional().describe('Reminder text (at most 1024 characters).'),
        repeatDays: z.int().min(1).max(365).describe('Remind every this many days (1–365).'),
      })
      .optional()
      .describe('Periodic reminder to rotate this secret.'),
    metadata: listMap(
      z.object({
        key: z.string().min(1).max(256).describe('Metadata key.'),
        value: z.string().max(1024).default('').describe('Metadata value. Default: empty.'),
      }),
      ['key'],
      32,
    )
      .optional()
      .describe('Key/value metadata stored with the secret.'),
    tagIds: z.array(z.string().min(1).max(256)).max(32).optional().describe('Ids of project tags to attach.'),
  }),
  [
    {
      rule: `${celCountPresent(valueSources)} == 1`,
      message: 'each secret must set exactly one of value or valueFrom',
      check: (v) => countPresent(v, valueSources) === 1,
    },
  ],
);

export const secretBatchSpec = withRules(
  z.object({
    ...managedFields('Delete'),
    projectRef,
    environment: slug(1, 64).describe('Environment slug to write into, e.g. dev.'),
    secretPath: secretPath.default('/').describe('Folder to write into, e.g. / or /app/db. Default: /.'),
    createFolders: z
      .boolean()
      .default(true)
      .describe(
        'Create missing folders along secretPath. When false, a missing folder is a condition. Default: true.',
      ),
    mode: z
      .enum(['upsert', 'failOnNotFound'])
      .default('upsert')
      .describe(
        'upsert: create keys that do not exist; failOnNotFound: only update existing keys. Default: upsert.',
      ),
    secrets: listMap(batchSecret, ['key'], 500)
      .optional()
      .describe(
        'Secrets to push, each with its value source. Keys listed here win over keys from fromSecret.',
      ),
    fromSecret: z
      .object({
        name: objectName.describe('Name of the Secret (same namespace).'),
        keyPrefix: z.string().max(128).optional().describe('Prefix added to each key in the service.'),
      })
      .optional()
      .describe('Push every key of a Secret in this namespace.'),
  }),
  [
    {
      rule: 'has(self.secrets) || has(self.fromSecret)',
      message: 'set secrets, fromSecret or both',
      check: (v) => v.secrets !== undefined || v.fromSecret !== undefined,
    },
    {
      rule:
        'self.projectRef == oldSelf.projectRef && self.environment == oldSelf.environment && ' +
        'self.secretPath == oldSelf.secretPath',
      message:
        'projectRef, environment and secretPath are immutable; create a new SecretBatch to write elsewhere',
    },
  ],
).describe(
  'Desired secrets in one environment and folder. Values are written only when they differ; values changed ' +
    'in the service are restored on the next sync; with deletionPolicy Delete, owned keys are deleted with the resource.',
);
export type SecretBatchSpec = z.output<typeof secretBatchSpec>;

export const secretBatchStatus = z
  .object({
    ...managedStatusFields,
    id: managedStatusFields.id.describe(
      'External id: <projectId>:<environment>:<secretPath> of the folder the secrets are written to.',
    ),
    ownedKeys: z
      .array(
        z.object({
          key: z.string().max(256).describe('Secret key.'),
          version: z.int().optional().describe('Version of the secret in the service after our last write.'),
          hash: z
            .string()
            .max(128)
            .optional()
            .describe(
              'HMAC-SHA256 (keyed with the resource uid) of the normalised value last written, truncated to 128 bits, base64url; never the value. Older releases recorded the full HMAC in hex, which is still understood.',
            ),
        }),
      )
      .max(1000)
      .optional()
      .describe('Keys this resource created or manages; only these are ever updated or deleted.'),
    ownedKeyCount: z.int().min(0).optional().describe('Number of owned keys.'),
    driftCorrections: z
      .int()
      .min(0)
      .optional()
      .describe('How many times a value changed in the service was restored.'),
    lastSyncTime: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('When this resource last wrote to the service to bring it in sync.'),
    events: z
      .object({
        state: z
          .enum(['Active', 'Connecting', 'Unavailable'])
          .describe(
            'Active: changes in the service arrive within seconds; otherwise the poll interval applies.',
          ),
        reason: z.string().max(64).optional().describe('Why the subscription is not Active (CamelCase).'),
        message: z.string().max(1024).optional().describe('Details, e.g. the service answer.'),
      })
      .optional()
      .describe(
        'The project event subscription that reports changes made in the service (instant drift correction).',
      ),
  })
  .describe('Observed state: owned keys with versions and hashes.');
export type SecretBatchStatus = z.output<typeof secretBatchStatus>;

export const secretBatchKind = defineKind({
  kind: 'SecretBatch',
  plural: 'secretbatches',
  shortNames: ['sbatch'],
  scope: 'Namespaced',
  description:
    'Pushes values held in Kubernetes into one environment and folder of a Project. Owns the keys it writes, ' +
    'never touches other keys, writes only when a value differs, and restores values changed in the service.',
  spec: secretBatchSpec,
  status: secretBatchStatus,
  columns: [
    { name: 'Env', type: 'string', jsonPath: '.spec.environment', description: 'Environment slug.' },
    { name: 'Path', type: 'string', jsonPath: '.spec.secretPath', description: 'Folder path.' },
    { name: 'Keys', type: 'integer', jsonPath: '.status.ownedKeyCount', description: 'Owned keys.' },
    {
      name: 'Events',
      type: 'string',
      jsonPath: '.status.events.state',
      description: 'Project event subscription state.',
    },
  ],
  defaultDeletionPolicy: 'Delete',
});
