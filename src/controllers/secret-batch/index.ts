/**
 * SecretBatch: pushes values held in Kubernetes into one folder of a project, on the generic
 * managed reconciler, with instant updates from the project's event stream (`startBackground`).
 * Default deletion policy Delete (owned keys only).
 */
import { secretBatchKind, type SecretBatchSpec } from '../../api/v1alpha1/index.ts';
import type { KindController } from '../kind-controller.ts';
import { projectEventHub } from '../project-events/index.ts';
import { secretBatchAdapter, type SecretBatchRefs } from './adapter.ts';
import type { SecretBatchStatusFields } from './mapping.ts';
import { referencedSecrets } from './values.ts';

const KIND = 'SecretBatch';

export const secretBatchController: KindController<
  SecretBatchSpec,
  SecretBatchRefs,
  SecretBatchStatusFields
> = {
  definition: secretBatchKind,
  createAdapter: (services) => secretBatchAdapter(services, projectEventHub(services, KIND)),
  // A changed source Secret reaches the service within seconds.
  referencedSecrets: (obj) => referencedSecrets(obj.metadata.namespace, obj.spec),
  // The Project becoming Ready (or getting environments) lets a waiting batch write at once.
  dependencies: (obj) => [{ kind: 'Project', name: obj.spec.projectRef.name }],
  startBackground: (services, signal) => projectEventHub(services, KIND).start(signal),
};
