/**
 * WorkloadSecret: keeps a Secret and/or ConfigMap filled from secrets of the service.
 * Reconciled by the direct reconciler (it mirrors no service object, see `sync.ts`). Its targets
 * are watched: owned ones through their controller reference, and every target by name (an Orphan
 * target has no owner reference), so an edited or deleted target is repaired at once.
 */
import { workloadSecretKind, type WorkloadSecretSpec } from '../../api/v1alpha1/index.ts';
import type { DirectKindController } from '../../managed/direct/kind.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import { connectionReference, type KindRegistration, type ReferenceDeclaration } from '../registration.ts';
import type { NamedRef } from '../kind-controller.ts';
import { startLiveDelivery } from './live-delivery.ts';
import { ANNOTATION_LEASE_PENDING } from './leases/service-calls.ts';
import { restartsWorkloads } from './rollout/rbac.ts';
import { workloadSecretSync, type WorkloadSecretStatusFields } from './sync.ts';
import { workloadSecretReasons } from './reasons.ts';

function targetName(obj: ManagedObject<WorkloadSecretSpec>, kind: 'secret' | 'configMap'): NamedRef[] {
  const target = obj.spec.target[kind];
  if (!target) return [];
  const namespace = obj.metadata.namespace;
  return [{ name: target.name ?? obj.metadata.name, ...(namespace ? { namespace } : {}) }];
}

const projectReference: ReferenceDeclaration = {
  path: 'spec.sources[].projectRef',
  kinds: ['Project'],
  needs: 'Ready',
  watch: true,
  purpose: 'the project a source reads (its service id)',
};

export const workloadSecretController: DirectKindController<WorkloadSecretSpec, WorkloadSecretStatusFields> =
  {
    definition: workloadSecretKind,
    createSync: (services) => workloadSecretSync(services),
    referencedSecrets: (obj) => targetName(obj, 'secret'),
    referencedConfigMaps: (obj) => targetName(obj, 'configMap'),
    startBackground: startLiveDelivery,
    bookkeepingAnnotations: [ANNOTATION_LEASE_PENDING],
  };

export const workloadSecretRegistration: KindRegistration = {
  definition: workloadSecretController.definition,
  runtime: { reconciler: 'direct', controller: workloadSecretController },
  references: [connectionReference, projectReference],
  rbac: [
    {
      apiGroup: '',
      resource: 'secrets',
      verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'],
      why: 'delivers into its target Secret (replaced whole; deleted and re-created when immutable or retyped)',
    },
    {
      apiGroup: '',
      resource: 'configmaps',
      verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'],
      why: 'delivers into its target ConfigMap (replaced whole; deleted and re-created when immutable)',
    },
    ...restartsWorkloads,
  ],
  reasons: workloadSecretReasons,
  // A delivery of changed content (the status carries the hash and time).
  routineEvents: ['Delivered'],
  sample: 'config/samples/workload-secret.yaml',
  docPage: 'docs/kinds/workload-secret.md',
  summary:
    'Keeps a Secret and/or ConfigMap filled from the service (merged sources, templates), for workloads.',
};
