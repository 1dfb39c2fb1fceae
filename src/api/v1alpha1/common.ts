/**
 * Schema pieces shared by the coffer.dev/v1alpha1 kinds: names and slugs, references to other
 * objects, the per-resource policies (deletion, management, polling) and the connection reference.
 * Permission rules and status live in permissions.ts and status.ts.
 */
import { z } from 'zod';
import { goDurationPattern, parseDurationExact } from '../../runtime/duration.ts';
import { withRules } from './schema-helpers.ts';

/** API group of every Coffer kind. */
export const group = 'coffer.dev';
/** API version of the kinds in this directory. */
export const version = 'v1alpha1';
/** `apiVersion` field value of every object of these kinds. */
export const apiVersion = `${group}/${version}`;

/** Service slug: lowercase letters and digits joined by single hyphens. */
export const slugPattern = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const slugMessage =
  'must contain only lowercase letters, digits and single hyphens (no leading or trailing hyphen)';

/** A service slug of `min`..`max` characters (the service's `slugSchema`). */
export function slug(min: number, max: number) {
  return z.string().min(min).max(max).regex(slugPattern, slugMessage);
}

/** Kubernetes object name (DNS-1123 subdomain). */
export const objectName = z
  .string()
  .min(1)
  .max(253)
  .regex(
    /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
    'must be a valid Kubernetes object name',
  );

/** Kubernetes namespace name (DNS-1123 label). */
export const namespaceName = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a valid namespace name');

/** Key in a Secret's or ConfigMap's data. */
export const dataKey = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[-._a-zA-Z0-9]+$/, 'must consist of letters, digits, "-", "_" or "."');

/** Selects one key of a Secret in the resource's own namespace. */
export const secretKeySelector = z.object({
  name: objectName.describe('Name of the Secret, in the same namespace as this resource.'),
  key: dataKey.describe('Key within the Secret whose value is used.'),
});

/** Selects one key of a Secret in a named namespace (for cluster-scoped resources). */
export const namespacedSecretKeySelector = z.object({
  name: objectName.describe('Name of the Secret.'),
  namespace: namespaceName.describe(
    'Namespace of the Secret (cluster-scoped resources have none of their own).',
  ),
  key: dataKey.describe('Key within the Secret whose value is used.'),
});

/** Selects one key of a ConfigMap in the resource's own namespace. */
export const configMapKeySelector = z.object({
  name: objectName.describe('Name of the ConfigMap, in the same namespace as this resource.'),
  key: dataKey.describe('Key within the ConfigMap whose value is used.'),
});

/** Selects one key of a ConfigMap in a named namespace (for cluster-scoped resources). */
export const namespacedConfigMapKeySelector = z.object({
  name: objectName.describe('Name of the ConfigMap.'),
  namespace: namespaceName.describe('Namespace of the ConfigMap.'),
  key: dataKey.describe('Key within the ConfigMap whose value is used.'),
});

/** A reference to an object of `kind` by name, in the same namespace as the referencing resource. */
function localRef(kind: string) {
  return z.object({
    name: objectName.describe(`Name of the ${kind} resource, in the same namespace as this resource.`),
  });
}

/** Reference to a Project resource in the same namespace. */
export const projectRef = localRef('Project').describe(
  'The Project resource (same namespace) whose service project this object belongs to. ' +
    'Reconciliation waits until that Project is Ready.',
);

/** Reference to an Identity resource in the same namespace. */
export const identityRef = localRef('Identity').describe(
  'The Identity resource (same namespace) this object applies to. Reconciliation waits until that Identity is Ready.',
);

/** Kinds a `connectionRef` may point to. */
export const connectionKinds = ['Connection', 'ClusterConnection'] as const;
export type ConnectionKind = (typeof connectionKinds)[number];

/** Reference to the Connection or ClusterConnection used to talk to the service. */
export const connectionRef = z
  .object({
    kind: z
      .enum(connectionKinds)
      .default('Connection')
      .describe(
        'Connection (namespaced, must be in the same namespace as this resource) or ClusterConnection ' +
          '(cluster-scoped; its allowedNamespaces must admit this namespace). Default: Connection.',
      ),
    name: objectName.describe('Name of the Connection or ClusterConnection.'),
  })
  .describe(
    'Which service instance and credentials to use. Reconciliation waits until the connection is Ready.',
  );

/** Reference to a ClusterConnection, for cluster-scoped kinds that cannot use a namespaced Connection. */
export const clusterConnectionRef = z
  .object({
    kind: z
      .enum(['ClusterConnection'])
      .default('ClusterConnection')
      .describe(
        'Always ClusterConnection: a cluster-scoped resource has no namespace to find a Connection in.',
      ),
    name: objectName.describe('Name of the ClusterConnection.'),
  })
  .describe(
    'The ClusterConnection (service instance and credentials) to use. Reconciliation waits until it is Ready.',
  );

export const deletionPolicies = ['Delete', 'Orphan'] as const;
/** What happens to the service object when the Kubernetes resource is deleted. */
export type DeletionPolicy = (typeof deletionPolicies)[number];

/** `deletionPolicy` with a per-kind default. */
export function deletionPolicy(defaultPolicy: DeletionPolicy) {
  return z
    .enum(deletionPolicies)
    .default(defaultPolicy)
    .describe(
      'What happens to the object in the service when this resource is deleted: Delete removes it, ' +
        `Orphan leaves it in place. Default for this kind: ${defaultPolicy}.`,
    );
}

export const managementPolicies = ['Default', 'ObserveOnly'] as const;
/** Whether the operator may change the service object or only reports on it. */
export type ManagementPolicy = (typeof managementPolicies)[number];

/** `managementPolicy`: full management, or observation only. */
export const managementPolicy = z
  .enum(managementPolicies)
  .default('Default')
  .describe(
    'Default: create, update and (per deletionPolicy) delete the service object. ObserveOnly: never ' +
      'write to the service; read the object (found by the coffer.dev/external-id annotation or its ' +
      'natural key) and report it in status. Default: Default.',
  );

/** Smallest poll interval accepted, to protect the service's rate limits. */
export const minPollIntervalMs = 10_000;

/**
 * Largest poll interval accepted: a week. Drift is still noticed weekly, and every requeue stays
 * far below the 24.8-day limit of a Node.js timer.
 */
export const maxPollInterval = '168h';

/** `pollInterval`: how often the service object is re-read to detect drift. */
export const pollInterval = withRules(
  z.string().max(64).regex(goDurationPattern, 'must be a Go duration such as 30s, 10m or 1h'),
  [
    {
      rule: "duration(self) >= duration('10s')",
      message: 'pollInterval must be at least 10s',
      check: (value) => parseDurationExact(value) >= minPollIntervalMs,
    },
    {
      rule: `duration(self) <= duration('${maxPollInterval}')`,
      message: `pollInterval must be at most ${maxPollInterval}`,
      check: (value) => parseDurationExact(value) <= parseDurationExact(maxPollInterval),
    },
  ],
).describe(
  'How often the service object is re-read to detect and correct drift, as a Go duration ' +
    `(e.g. 30s, 10m, 1h; at least 10s, at most ${maxPollInterval}). Unset: the operator-wide default poll interval. ` +
    'A random jitter of up to 10% is added.',
);

/**
 * The fields every kind that mirrors a service object carries in its spec: which connection to
 * use, what to do on deletion, whether to write at all, and how often to poll.
 */
export function managedFields(defaultDeletionPolicy: DeletionPolicy) {
  return {
    connectionRef,
    deletionPolicy: deletionPolicy(defaultDeletionPolicy),
    managementPolicy,
    pollInterval: pollInterval.optional(),
  };
}

/** A service URL: http or https, no query or fragment needed. */
export const serviceUrl = z
  .string()
  .max(2048)
  .regex(
    /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/,
    'must be an http:// or https:// URL without query or fragment',
  );

/** Human-readable name as the service accepts it (`GenericResourceNameSchema`): 1–64 characters. */
export const resourceName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_ -]+$/, 'must contain only letters, digits, spaces, "-" or "_"');

/** Project types of the service. */
export const projectTypes = [
  'secret-manager',
  'cert-manager',
  'kms',
  'ssh',
  'secret-scanning',
  'pam',
] as const;
export type ProjectType = (typeof projectTypes)[number];

/** `type` of a project or project template. */
export const projectType = z
  .enum(projectTypes)
  .default('secret-manager')
  .describe(`Project type: one of ${projectTypes.join(', ')}. Default: secret-manager.`);

/** Project role slugs that the service reserves for its predefined roles. */
export const reservedRoleSlugs = [
  'admin',
  'member',
  'custom',
  'viewer',
  'no-access',
  'ssh-host-bootstrapper',
  'cryptographic-operator',
] as const;

/** An environment of a project or template: display name, slug and optional position. */
export const environmentEntry = z.object({
  name: z.string().min(1).max(64).describe('Display name of the environment, e.g. Development.'),
  slug: slug(1, 64).describe(
    'Environment slug, unique in the project, e.g. dev (lowercase letters, digits, hyphens).',
  ),
  position: z
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe(
      '1-based position in the project’s environment order. Unset: the service appends it at the end.',
    ),
});
