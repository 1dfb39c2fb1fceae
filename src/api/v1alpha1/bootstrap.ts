/**
 * Bootstrap: one-time initialisation of a fresh service instance (first admin user, organization
 * and an instance-admin machine identity), with the resulting credentials written to a Secret.
 */
import { z } from 'zod';
import { configMapKeySelector, objectName, secretKeySelector, serviceUrl } from './common.ts';
import { tlsSettings } from './connection-fields.ts';
import { defineKind } from './kind.ts';
import { commonStatusFields } from './status.ts';

export const bootstrapSpec = z
  .object({
    url: serviceUrl.describe(
      'Base URL of the service instance to bootstrap, e.g. https://secrets.example.com.',
    ),
    tls: tlsSettings(secretKeySelector, configMapKeySelector).optional(),
    email: z.email().max(254).describe('E-mail address of the first (super-admin) user.'),
    passwordSecretRef: secretKeySelector.describe('Secret key holding the first user’s password.'),
    organization: z.string().min(1).max(64).describe('Name of the organization to create.'),
    outputSecretName: objectName.describe(
      'Secret (same namespace) that receives token (instance-admin identity access token, never expires), ' +
        'identityId, organizationId and userId. Created by the operator and owned by this Bootstrap.',
    ),
    createConnection: z
      .boolean()
      .default(false)
      .describe(
        'Also create a Connection that authenticates with the output Secret’s token. Default: false.',
      ),
    connectionName: objectName
      .optional()
      .describe(
        'Name of the Connection created when createConnection is true. Unset: the Bootstrap’s own name.',
      ),
  })
  .describe(
    'Which instance to bootstrap and where to put the credentials. The bootstrap call is made once; it cannot be undone, ' +
      'so deleting this resource deletes nothing in the service.',
  );
export type BootstrapSpec = z.output<typeof bootstrapSpec>;

export const bootstrapStatus = z
  .object({
    ...commonStatusFields,
    id: commonStatusFields.id.describe('Id of the organization created by the bootstrap.'),
    organizationId: z
      .string()
      .max(256)
      .optional()
      .describe('Id of the organization created by the bootstrap.'),
    userId: z.string().max(256).optional().describe('Id of the super-admin user created by the bootstrap.'),
    identityId: z.string().max(256).optional().describe('Id of the instance-admin machine identity.'),
    connectionName: objectName
      .optional()
      .describe('Name of the Connection created from the output Secret, if any.'),
  })
  .describe(
    'Observed state. Ready once the output Secret holds the credentials; Synced=False with reason ' +
      'AlreadyBootstrapped when someone else bootstrapped the instance (no retries).',
  );
export type BootstrapStatus = z.output<typeof bootstrapStatus>;

export const bootstrapKind = defineKind({
  kind: 'Bootstrap',
  plural: 'bootstraps',
  shortNames: ['boot'],
  scope: 'Namespaced',
  description:
    'Bootstraps a fresh service instance once: creates the first admin user, the organization and an ' +
    'instance-admin machine identity, writes its access token to a Secret, and optionally creates a Connection using it.',
  spec: bootstrapSpec,
  status: bootstrapStatus,
  columns: [
    { name: 'URL', type: 'string', jsonPath: '.spec.url', description: 'Service base URL.' },
    { name: 'Secret', type: 'string', jsonPath: '.spec.outputSecretName', description: 'Output Secret.' },
  ],
  defaultDeletionPolicy: undefined,
});
