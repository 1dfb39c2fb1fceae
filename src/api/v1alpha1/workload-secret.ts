/**
 * WorkloadSecret: keeps a Secret and/or a ConfigMap filled from secrets of the service, for
 * workloads to mount. Sources are read with the namespace's own connection, merged in order
 * (later wins), optionally templated, and written only when the content changes. It mirrors no
 * service object (direct reconciler); status holds counts, hashes and key names, never values.
 */
import { z } from 'zod';
import { connectionRef, dataKey, objectName, projectRef, slug } from './common.ts';
import { defineKind } from './kind.ts';
import { celCountPresent, countPresent, withRules } from './schema-helpers.ts';
import { secretPath } from './secret-batch.ts';
import { commonStatusFields } from './status.ts';
import { dynamicSecretLease, goDuration, heldLease, maxLeaseSources } from './workload-secret-lease.ts';

/** Most sources one WorkloadSecret merges. */
export const maxWorkloadSecretSources = 20;

/** A key glob: `*` any run of characters, `?` one character; otherwise a Secret key's characters. */
const keyGlob = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[-._a-zA-Z0-9*?]+$/, 'must be a key pattern: letters, digits, "-", "_", ".", "*" and "?"');

const projectSources = ['projectRef', 'projectId', 'projectSlug'] as const;

export const workloadSecretSource = withRules(
  z.object({
    projectRef: projectRef.optional(),
    projectId: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .describe('Id of the project in the service (when no Project resource of this namespace names it).'),
    projectSlug: slug(1, 64).optional().describe('Slug of the project in the service.'),
    environment: slug(1, 64).describe('Environment slug to read, e.g. dev.'),
    secretPath: secretPath.default('/').describe('Folder to read, e.g. / or /app/db. Default: /.'),
    recursive: z
      .boolean()
      .default(false)
      .describe(
        'Also read every folder below secretPath. A key present in several folders keeps the value of the ' +
          'deepest folder (folders in path order, later wins; reported as a collision). Default: false.',
      ),
    include: z
      .array(keyGlob)
      .max(50)
      .optional()
      .describe('Only keys matching one of these patterns (* and ?), e.g. DB_*. Unset: every key.'),
    exclude: z
      .array(keyGlob)
      .max(50)
      .optional()
      .describe('Leave out keys matching one of these patterns; applied after include.'),
    expandReferences: z
      .boolean()
      .default(true)
      .describe(
        'Expand secret references (${KEY}, ${env.path.KEY}) and include the folder imports, as the service ' +
          'does for its own clients. Default: true.',
      ),
    dynamicSecret: dynamicSecretLease.optional(),
  }),
  [
    {
      rule: '!has(self.dynamicSecret) || !self.recursive',
      message: 'a dynamicSecret source cannot be recursive',
      check: (v) => v.dynamicSecret === undefined || !v.recursive,
    },
    {
      rule: `${celCountPresent(projectSources)} == 1`,
      message: 'each source must set exactly one of projectRef, projectId or projectSlug',
      check: (v) => countPresent(v, projectSources) === 1,
    },
  ],
).describe('One folder of one environment of one project.');
export type WorkloadSecretSource = z.output<typeof workloadSecretSource>;

const stringMap = (what: string) =>
  z
    .record(z.string().min(1).max(317), z.string().max(65536))
    .optional()
    .describe(`${what} set on the object (Coffer's own label and annotations are added).`);

/**
 * The Secret types a target may have: only types whose Secrets the cluster treats as plain data.
 * `kubernetes.io/service-account-token` is filled with a real token by the token controller and
 * `bootstrap.kubernetes.io/token` makes the API server accept a bearer token, so a resource of
 * either would mint credentials for whoever may read the target; any other type (a third party's)
 * may be acted on by a controller Coffer cannot know (a `helm.sh/release.v1` Secret, for one, is a
 * release record Helm trusts), so it is refused too.
 */
export const workloadSecretTargetTypes = [
  'Opaque',
  'kubernetes.io/tls',
  'kubernetes.io/dockerconfigjson',
  'kubernetes.io/dockercfg',
  'kubernetes.io/basic-auth',
  'kubernetes.io/ssh-auth',
] as const;
export type WorkloadSecretTargetType = (typeof workloadSecretTargetTypes)[number];

const secretTarget = z
  .object({
    name: objectName.optional().describe('Name of the Secret. Default: the name of this WorkloadSecret.'),
    type: z
      .enum(workloadSecretTargetTypes)
      .default('Opaque')
      .describe(
        'Secret type: Opaque, kubernetes.io/tls (needs the keys tls.crt and tls.key), ' +
          'kubernetes.io/dockerconfigjson (.dockerconfigjson, a JSON object), kubernetes.io/dockercfg ' +
          '(.dockercfg, a JSON object), kubernetes.io/basic-auth (username and/or password) or ' +
          'kubernetes.io/ssh-auth (ssh-privatekey, not empty). No type the cluster fills with credentials ' +
          '(service-account or bootstrap tokens) and no third-party type. Default: Opaque.',
      ),
    labels: stringMap('Labels'),
    annotations: stringMap('Annotations'),
    immutable: z
      .boolean()
      .default(false)
      .describe(
        'Mark the Secret immutable: a change of content then replaces it (delete and create). Default: false.',
      ),
  })
  .describe('Deliver into a Secret of this namespace.');

const configMapTarget = z
  .object({
    name: objectName.optional().describe('Name of the ConfigMap. Default: the name of this WorkloadSecret.'),
    labels: stringMap('Labels'),
    annotations: stringMap('Annotations'),
  })
  .describe(
    'Deliver into a ConfigMap of this namespace (the same keys as the Secret; use it for values that are ' +
      'not secret, ConfigMaps are readable more widely).',
  );

export const creationPolicies = ['Owner', 'Orphan'] as const;
export type CreationPolicy = (typeof creationPolicies)[number];

export const workloadSecretTarget = withRules(
  z.object({
    secret: secretTarget.optional(),
    configMap: configMapTarget.optional(),
    creationPolicy: z
      .enum(creationPolicies)
      .default('Owner')
      .describe(
        'Owner: the targets carry an owner reference to this WorkloadSecret and are garbage-collected with it. ' +
          'Orphan: the targets stay when it is deleted. Default: Owner.',
      ),
    adoptExisting: z
      .boolean()
      .default(false)
      .describe(
        'Take over a target that exists and was not created by Coffer (its content is replaced), when that ' +
          'object consents: it must carry the annotation coffer.dev/adopt-by: WorkloadSecret/<this name>, set ' +
          'by whoever may write it. Never one another object controls or another WorkloadSecret delivers into. ' +
          'An adopted target gets no owner reference (never garbage-collected with this WorkloadSecret) and is ' +
          'released on deletion: Coffer removes its label and annotations, the content stays. Without it, or ' +
          'without the annotation, such an object is never modified (TargetConflict). Default: false.',
      ),
  }),
  [
    {
      rule: 'has(self.secret) || has(self.configMap)',
      message: 'target must set secret, configMap or both',
      check: (v) => v.secret !== undefined || v.configMap !== undefined,
    },
  ],
).describe('Where the merged keys go.');
export type WorkloadSecretTarget = z.output<typeof workloadSecretTarget>;

export const workloadSecretTemplate = z
  .object({
    data: z
      .record(dataKey, z.string().max(262144))
      .optional()
      .describe(
        'Output key → Liquid template (https://liquidjs.com), rendered with every merged source key as a ' +
          'variable (an output tag of DB_USER, in double braces, gives its value; the whole map is the variable ' +
          'secrets); whole documents such as config.yaml too. Filters besides the standard ones: b64enc, b64dec, ' +
          'toJson, fromJson, toYaml, fromYaml, pemCertificates, pemPrivateKey; default is the standard one.',
      ),
    mergeSourceKeys: z
      .boolean()
      .default(false)
      .describe(
        'Deliver the merged source keys as well, beside the templated ones (a templated key wins). Default: ' +
          'false, only the templated keys are delivered.',
      ),
  })
  .describe(
    'Compose the delivered keys from the source keys. Unset: the source keys are delivered as they are.',
  );

export const rolloutWorkloadKinds = ['Deployment', 'StatefulSet', 'DaemonSet'] as const;

export const workloadSecretRollout = z
  .object({
    workloads: z
      .array(
        z.object({
          kind: z.enum(rolloutWorkloadKinds).describe('Deployment, StatefulSet or DaemonSet.'),
          name: objectName.describe('Name of the workload, in the same namespace.'),
        }),
      )
      .max(50)
      .optional()
      .describe(
        'Workloads restarted (pod template annotation) when the delivered content changes. Workloads may also ' +
          'opt in with the annotation coffer.dev/reload-secrets: "<target Secret name>,...".',
      ),
    debounce: goDuration('debounce', '0s', '1h')
      .default('5s')
      .describe('A burst of changes within this time restarts once, after the last one. Default: 5s.'),
  })
  .describe('Restart workloads when, and only when, the delivered content changes.');

export const workloadSecretSpec = z
  .object({
    connectionRef: connectionRef.describe(
      'Who reads: a Connection of this namespace, or a ClusterConnection whose allowedNamespaces admit this ' +
        'namespace. Reconciliation waits until it is Ready.',
    ),
    sources: withRules(z.array(workloadSecretSource).min(1).max(maxWorkloadSecretSources), [
      {
        rule: `self.filter(s, has(s.dynamicSecret)).size() <= ${maxLeaseSources}`,
        message: `at most ${maxLeaseSources} sources may set dynamicSecret`,
        check: (v) => v.filter((s) => s.dynamicSecret !== undefined).length <= maxLeaseSources,
      },
    ]).describe(
      'Folders to read, merged in order: a key of a later source wins (collisions are listed in status).',
    ),
    target: workloadSecretTarget,
    template: workloadSecretTemplate.optional(),
    rollout: workloadSecretRollout.optional(),
    resyncInterval: goDuration('resyncInterval', '30s', '168h')
      .optional()
      .describe(
        'While change events are unavailable, every source is read again at this interval (with jitter). With events, ' +
          'changes arrive by event and the folders of the sources are checked for deletion at least this often (the ' +
          'service sends no event for a deleted folder). Default: 10m.',
      ),
  })
  .describe('What to read, how to compose it, where to deliver it and whom to restart.');
export type WorkloadSecretSpec = z.output<typeof workloadSecretSpec>;

export const workloadSecretStatus = z
  .object({
    ...commonStatusFields,
    contentHash: z
      .string()
      .max(64)
      .optional()
      .describe(
        'Hash of the delivered content (HMAC-SHA256 keyed with the resource uid, first 16 hex digits); never the values.',
      ),
    secretCount: z.int().min(0).optional().describe('Number of keys delivered.'),
    lastSyncTime: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('When the delivered content last changed (a target was written).'),
    sources: z
      .array(
        z.object({
          project: z.string().max(256).describe('Id of the project read.'),
          environment: z.string().max(64).describe('Environment slug.'),
          secretPath: z.string().max(1024).describe('Folder read.'),
          count: z.int().min(0).describe('Distinct keys this source contributed after include/exclude.'),
          latestVersion: z
            .int()
            .min(0)
            .optional()
            .describe('Highest secret version among the keys read (a change in a value raises it).'),
          latestUpdate: z.iso
            .datetime({ offset: true })
            .optional()
            .describe('Latest update time among the keys read.'),
        }),
      )
      .max(maxWorkloadSecretSources)
      .optional()
      .describe('What each source contributed at the last read.'),
    collisions: z
      .array(z.string().max(256))
      .max(100)
      .optional()
      .describe('Keys set by more than one source (the later one won), by name; at most 100 listed.'),
    inputsHash: z
      .string()
      .max(64)
      .optional()
      .describe(
        'Hash of what the delivered content was made from besides lease credentials (the other sources, the ' +
          'template, the lease ids); with dynamicSecret sources, unchanged inputs and an intact target need no ' +
          'new lease after an operator restart.',
      ),
    leases: z
      .array(heldLease)
      .max(maxLeaseSources)
      .optional()
      .describe('The lease each dynamicSecret source holds (ids and times, never credentials).'),
    leaseExpiry: z.iso
      .datetime({ offset: true })
      .optional()
      .describe(
        'When the first of the held leases expires unless it is renewed (the earliest leases[].expireAt); ' +
          'unset when no lease is held.',
      ),
    retiredLeases: z
      .array(
        heldLease.extend({ revokeAfter: z.iso.datetime({ offset: true }).describe('When it is revoked.') }),
      )
      .max(4 * maxLeaseSources)
      .optional()
      .describe('Replaced leases kept valid for rotationOverlap, then revoked.'),
    lastRestart: z
      .object({
        time: z.iso.datetime({ offset: true }).describe('When the workloads were restarted.'),
        workloads: z.array(z.string().max(300)).max(100).describe('Kind/name of each workload restarted.'),
      })
      .optional()
      .describe('The last rollout restart caused by a content change.'),
    pendingRestart: z
      .object({
        contentHash: z.string().max(64).describe('Content hash the restart is for (the delivered one).'),
        fromHash: z
          .string()
          .max(64)
          .describe('Content hash before the burst of changes (a burst back to it restarts nothing).'),
        notBefore: z.iso
          .datetime({ offset: true })
          .describe('When the debounce ends and the workloads are restarted.'),
      })
      .optional()
      .describe(
        'A rollout restart waiting for its debounce; kept here so that it survives an operator restart.',
      ),
  })
  .describe('Observed state: hashes, counts and key names of the delivered content, never values.');
export type WorkloadSecretStatus = z.output<typeof workloadSecretStatus>;

export const workloadSecretKind = defineKind({
  kind: 'WorkloadSecret',
  plural: 'workloadsecrets',
  shortNames: ['wsec'],
  scope: 'Namespaced',
  description:
    'Keeps a Secret and/or ConfigMap of this namespace filled from secrets of the service: sources merged in ' +
    'order, optional templates, written only when the content changes; workloads that opt in are restarted on change.',
  spec: workloadSecretSpec,
  status: workloadSecretStatus,
  columns: [
    { name: 'Keys', type: 'integer', jsonPath: '.status.secretCount', description: 'Keys delivered.' },
    { name: 'Hash', type: 'string', jsonPath: '.status.contentHash', description: 'Delivered content hash.' },
    {
      name: 'Last Sync',
      type: 'date',
      jsonPath: '.status.lastSyncTime',
      description: 'When the content last changed.',
    },
    {
      name: 'Lease Expiry',
      // A string, not a date: kubectl renders a date column as an age, and a time in the future as <invalid>.
      type: 'string',
      jsonPath: '.status.leaseExpiry',
      description: 'When the first held lease expires unless renewed (RFC 3339).',
    },
  ],
  defaultDeletionPolicy: undefined,
});
