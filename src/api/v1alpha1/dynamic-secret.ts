/**
 * DynamicSecret: the definition of a dynamic secret in one environment and folder of a project (a
 * provider with its settings and admin credentials, default and maximum lease TTL). Found again
 * by id; its name in the folder is the natural key for adoption and crash recovery. The admin
 * credentials come from Secrets in the resource's own namespace and never appear in status.
 */
import { z } from 'zod';
import { managedFields, projectRef, slug } from './common.ts';
import { defineKind } from './kind.ts';
import { secretPath } from './secret-batch.ts';
import { celCountPresent, celImmutableFields, countPresent, withRules } from './schema-helpers.ts';
import { managedStatusFields } from './status.ts';
import {
  celIsTtl,
  celTtlMs,
  kubernetesProvider,
  sqlDatabaseProvider,
  ttl,
  ttlMs,
} from './dynamic-secret-provider.ts';

const providers = ['sqlDatabase', 'kubernetes'] as const;

export const dynamicSecretProvider = withRules(
  z.object({
    sqlDatabase: sqlDatabaseProvider.optional(),
    kubernetes: kubernetesProvider.optional(),
  }),
  [
    {
      rule: `${celCountPresent(providers)} == 1`,
      message: 'exactly one provider must be set: sqlDatabase or kubernetes',
      check: (p) => countPresent(p, providers) === 1,
    },
    {
      rule: 'has(self.sqlDatabase) == has(oldSelf.sqlDatabase)',
      message: 'the provider type is immutable; create a new DynamicSecret for another provider',
    },
  ],
).describe('The provider that issues leases: exactly one of sqlDatabase and kubernetes.');

const scopeFields = ['projectRef', 'environment', 'secretPath'] as const;

export const dynamicSecretSpec = withRules(
  z.object({
    ...managedFields('Delete'),
    projectRef: projectRef,
    environment: slug(1, 64).describe('Environment slug of the dynamic secret, e.g. dev.'),
    secretPath: secretPath.default('/').describe('Folder path of the dynamic secret. Default: /.'),
    name: slug(1, 64).describe(
      'Name of the dynamic secret in its folder (1–64 lowercase letters, digits, hyphens); leases ' +
        'are requested by this name. Changing it renames the service object.',
    ),
    provider: dynamicSecretProvider,
    defaultTTL: ttl('defaultTTL').describe(
      'Lease lifetime when a lease request names none, in the service’s duration format (30m, 1h, 7d; ' +
        'at least 1m, at most 10y).',
    ),
    maxTTL: ttl('maxTTL')
      .optional()
      .describe(
        'Longest lifetime a lease may have, counted from its creation (renewals included); at least ' +
          'defaultTTL. Unset: no maximum.',
      ),
    usernameTemplate: z
      .string()
      .max(255)
      .regex(/^[A-Za-z0-9_\-{}[\].' |()"]*$/, 'may contain letters, digits and _-{}[].\' |()" only')
      .optional()
      .describe(
        'Template of the usernames leases create, a Handlebars template with the variables ' +
          'randomUsername, unixTimestamp, identity.name, dynamicSecret.name and dynamicSecret.type and ' +
          'the service’s helpers (random, replace, truncate, uppercase, lowercase, substr, stripPrefix), ' +
          'each expression in double braces (e.g. truncate identity.name 8). Unset: the provider’s random name.',
      ),
  }),
  [
    {
      rule: `!has(self.maxTTL) || !${celIsTtl('self.maxTTL')} || !${celIsTtl('self.defaultTTL')} || ${celTtlMs('self.maxTTL')} >= ${celTtlMs('self.defaultTTL')}`,
      message: 'maxTTL must be at least defaultTTL',
      fieldPath: '.maxTTL',
      check: (s) => s.maxTTL === undefined || ttlMs(s.maxTTL) >= ttlMs(s.defaultTTL),
    },
    {
      rule: celImmutableFields(scopeFields),
      message: 'projectRef, environment and secretPath are immutable; create a new DynamicSecret to move it',
    },
  ],
).describe('Desired dynamic secret.');
export type DynamicSecretSpec = z.output<typeof dynamicSecretSpec>;

export const dynamicSecretStatus = z
  .object({
    ...managedStatusFields,
    name: z.string().max(64).optional().describe('Name of the dynamic secret in the service.'),
    projectSlug: z
      .string()
      .max(64)
      .optional()
      .describe('Slug of the service project (used to delete the dynamic secret after its Project is gone).'),
    provider: z.string().max(64).optional().describe('Provider type in the service, e.g. sql-database.'),
  })
  .describe('Observed state of the dynamic secret (never its credentials).');
export type DynamicSecretStatus = z.output<typeof dynamicSecretStatus>;

export const dynamicSecretKind = defineKind({
  kind: 'DynamicSecret',
  plural: 'dynamicsecrets',
  shortNames: ['dynsec'],
  scope: 'Namespaced',
  description:
    'The definition of a dynamic secret in a Project: a provider (an SQL database or a Kubernetes cluster) ' +
    'with admin credentials read from Secrets in this namespace, and the default and maximum lease TTL.',
  spec: dynamicSecretSpec,
  status: dynamicSecretStatus,
  columns: [
    { name: 'Project', type: 'string', jsonPath: '.spec.projectRef.name', description: 'Project resource.' },
    { name: 'Env', type: 'string', jsonPath: '.spec.environment', description: 'Environment slug.' },
    { name: 'Path', type: 'string', jsonPath: '.spec.secretPath', description: 'Folder path.' },
    { name: 'Provider', type: 'string', jsonPath: '.status.provider', description: 'Provider type.' },
    { name: 'Default TTL', type: 'string', jsonPath: '.spec.defaultTTL', description: 'Default lease TTL.' },
    { name: 'Max TTL', type: 'string', jsonPath: '.spec.maxTTL', description: 'Maximum lease TTL.' },
  ],
  defaultDeletionPolicy: 'Delete',
});
