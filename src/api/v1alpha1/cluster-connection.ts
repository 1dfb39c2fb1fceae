/**
 * ClusterConnection: a cluster-scoped Connection that an administrator shares with the namespaces
 * listed in allowedNamespaces. Referenced Secrets and ConfigMaps name their namespace explicitly.
 */
import { z } from 'zod';
import { namespaceName, namespacedConfigMapKeySelector, namespacedSecretKeySelector } from './common.ts';
import { connectionColumns, connectionSpecFields, connectionStatusSchema } from './connection-fields.ts';
import { defineKind } from './kind.ts';
import { listSet, withRules } from './schema-helpers.ts';
import { namespacedLoginRefs } from './service-account-login.ts';

const labelValue = z.string().max(63).describe('Label value.');

/** A standard Kubernetes label selector (matchLabels and matchExpressions, ANDed). */
export const labelSelector = z
  .object({
    matchLabels: z
      .record(z.string().min(1).max(317), labelValue)
      .optional()
      .describe('Labels a namespace must all carry, as key: value pairs.'),
    matchExpressions: z
      .array(
        z.object({
          key: z.string().min(1).max(317).describe('Label key the requirement applies to.'),
          operator: z
            .enum(['In', 'NotIn', 'Exists', 'DoesNotExist'])
            .describe(
              'In, NotIn (value must / must not be in values), Exists or DoesNotExist (values empty).',
            ),
          values: z.array(labelValue).max(64).optional().describe('Values for In and NotIn.'),
        }),
      )
      .max(32)
      .optional()
      .describe('Label requirements a namespace must all satisfy.'),
  })
  .describe(
    'Namespaces whose labels match this selector may use the ClusterConnection. {} matches every namespace.',
  );

const namespaceSet = withRules(
  z.object({
    names: listSet(namespaceName, 256).optional().describe('Namespaces allowed by name.'),
    selector: labelSelector.optional(),
  }),
  [
    {
      rule: 'has(self.names) || has(self.selector)',
      message: 'allowedNamespaces: set names, selector or both (selector: {} allows every namespace)',
      check: (value) => value.names !== undefined || value.selector !== undefined,
    },
  ],
);

const allowedNamespaces = namespaceSet.describe(
  'Namespaces whose resources may use this ClusterConnection: those listed in names plus those matching ' +
    'selector. A resource in any other namespace gets Synced=False with reason NamespaceNotAllowed. ' +
    'Cluster-scoped resources (ProjectTemplate) may always use it.',
);

const adoption = z
  .object({
    allowedNamespaces: namespaceSet.describe(
      'Namespaces whose resources may adopt existing service objects through this ClusterConnection: ' +
        'those listed in names plus those matching selector. Unset: none may.',
    ),
  })
  .describe(
    'Explicit adoption (a resource naming an existing object by the coffer.dev/external-id annotation) ' +
      'through this ClusterConnection. A resource in a namespace not admitted here gets Synced=False with ' +
      'reason AdoptionNotAllowed and never touches the object it names; objects Coffer created are not ' +
      'affected. Cluster-scoped resources may always adopt.',
  );

export const clusterConnectionSpec = z
  .object({
    ...connectionSpecFields(namespacedSecretKeySelector, namespacedConfigMapKeySelector, namespacedLoginRefs),
    allowedNamespaces,
    adoption: adoption.optional(),
  })
  .describe('Where the service is, how to authenticate, and which namespaces may use this connection.');
export type ClusterConnectionSpec = z.output<typeof clusterConnectionSpec>;

export const clusterConnectionStatus = connectionStatusSchema;
export type ClusterConnectionStatus = z.output<typeof clusterConnectionStatus>;

export const clusterConnectionKind = defineKind({
  kind: 'ClusterConnection',
  plural: 'clusterconnections',
  shortNames: ['cconn'],
  scope: 'Cluster',
  description:
    'A cluster-wide service instance (URL, TLS) and credentials, usable by resources in the namespaces ' +
    'named in allowedNamespaces and by cluster-scoped resources. Ready when the service accepts the credentials.',
  spec: clusterConnectionSpec,
  status: clusterConnectionStatus,
  columns: connectionColumns,
  defaultDeletionPolicy: undefined,
});
