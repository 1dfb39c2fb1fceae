/**
 * Integration: a native integration that syncs a project's secrets to an external store, with the
 * integration-auth record holding the store's credentials.
 */
import { z } from 'zod';
import { managedFields, projectRef, secretKeySelector, serviceUrl, slug } from './common.ts';
import { defineKind } from './kind.ts';
import { secretPath } from './secret-batch.ts';
import { withRules } from './schema-helpers.ts';
import { managedStatusFields } from './status.ts';

const text = (max: number, description: string) =>
  z.string().min(1).max(max).optional().describe(description);

export const integrationAuth = z
  .object({
    accessIdSecretRef: secretKeySelector.describe(
      'Secret key holding the access id (e.g. an AWS access key id).',
    ),
    accessTokenSecretRef: secretKeySelector.describe(
      'Secret key holding the access token (e.g. an AWS secret key).',
    ),
    refreshTokenSecretRef: secretKeySelector
      .optional()
      .describe('Secret key holding a refresh token, if the store uses one.'),
    url: serviceUrl.optional().describe('URL of the external store, for self-hosted stores.'),
    namespace: text(256, 'Namespace within the external store, where it has them.'),
    awsAssumeIamRoleArn: text(2048, 'IAM role ARN to assume (aws-* integrations).'),
  })
  .describe('Credentials for the external store, recorded by the service as an integration-auth record.');

export const integrationSpec = z
  .object({
    ...managedFields('Delete'),
    projectRef: withRules(projectRef, [
      { rule: 'self == oldSelf', message: 'projectRef is immutable; create a new Integration' },
    ]),
    integration: withRules(slug(1, 64), [
      { rule: 'self == oldSelf', message: 'integration is immutable; create a new Integration' },
    ]).describe('Integration type, e.g. aws-secret-manager, aws-parameter-store, github, vercel. Immutable.'),
    auth: integrationAuth,
    environment: slug(1, 64).describe('Environment slug whose secrets are synced, e.g. prod.'),
    secretPath: secretPath.default('/').describe('Folder whose secrets are synced. Default: /.'),
    app: text(512, 'Target app, repository or secret name in the external store.'),
    targetEnvironment: text(256, 'Environment in the external store, where it has them.'),
    region: text(64, 'Region of the external store, e.g. eu-west-1.'),
    path: text(1024, 'Path or prefix in the external store.'),
    isActive: z.boolean().default(true).describe('Whether the integration syncs. Default: true.'),
  })
  .describe('Desired integration and the credentials it uses.');
export type IntegrationSpec = z.output<typeof integrationSpec>;

export const integrationStatus = z
  .object({
    ...managedStatusFields,
    integrationAuthId: z.string().max(256).optional().describe('Id of the integration-auth record.'),
    isActive: z.boolean().optional().describe('Whether the service reports the integration as active.'),
    isSynced: z.boolean().optional().describe('Whether the last sync succeeded.'),
    syncMessage: z.string().max(4096).optional().describe('Message of the last sync.'),
    lastUsed: z.iso.datetime({ offset: true }).optional().describe('When the integration last synced.'),
    authHash: z
      .string()
      .max(128)
      .optional()
      .describe(
        'HMAC-SHA256 (hex, keyed with the resource uid) of the credentials and auth settings last sent to the ' +
          'service; never the values. A different hash means the Secrets changed and the credentials are sent again.',
      ),
    credentialsApplied: z
      .boolean()
      .optional()
      .describe(
        'Whether the service stored the credentials last sent in the integration’s own auth record. False: it ' +
          'created a separate record the integration cannot use (Ready=False, CredentialsNotApplied).',
      ),
  })
  .describe('Observed state of the integration.');
export type IntegrationStatus = z.output<typeof integrationStatus>;

export const integrationKind = defineKind({
  kind: 'Integration',
  plural: 'integrations',
  shortNames: ['integ'],
  scope: 'Namespaced',
  description:
    'A native integration syncing a Project environment’s secrets to an external store, with its credentials. ' +
    'Services that no longer create native integrations answer 403; that is reported as Synced=False, not retried.',
  spec: integrationSpec,
  status: integrationStatus,
  columns: [
    { name: 'Integration', type: 'string', jsonPath: '.spec.integration', description: 'Integration type.' },
    {
      name: 'Env',
      type: 'string',
      jsonPath: '.spec.environment',
      description: 'Environment slug.',
      priority: 1,
    },
  ],
  defaultDeletionPolicy: 'Delete',
});
