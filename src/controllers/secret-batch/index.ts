/**
 * SecretBatch: pushes values held in Kubernetes into one folder of a project, on the generic
 * managed reconciler, with instant updates from the project's event stream (`startBackground`).
 * Default deletion policy Delete (owned keys only).
 */
import { secretBatchKind, type SecretBatchSpec } from '../../api/v1alpha1/index.ts';
import type { KindController } from '../kind-controller.ts';
import { connectionReference, type KindRegistration, type ReferenceDeclaration } from '../registration.ts';
import { readsSecrets } from '../rbac-needs.ts';
import { projectEventHub } from '../project-events/index.ts';
import { secretBatchAdapter } from './adapter.ts';
import type { SecretBatchStatusFields } from './mapping.ts';
import type { SecretBatchRefs } from './references.ts';
import { referencedSecrets } from './values.ts';
import { secretBatchReasons } from './reasons.ts';

const KIND = 'SecretBatch';

/** The coffer.dev objects this kind's spec names. */
const references: readonly ReferenceDeclaration[] = [
  connectionReference,
  {
    path: 'spec.projectRef',
    kinds: ['Project'],
    needs: 'Ready',
    watch: true,
    purpose: 'the project written to',
  },
];

export const secretBatchController: KindController<
  SecretBatchSpec,
  SecretBatchRefs,
  SecretBatchStatusFields
> = {
  definition: secretBatchKind,
  createAdapter: (services) => secretBatchAdapter(services, projectEventHub(services, KIND)),
  // A changed source Secret reaches the service within seconds.
  referencedSecrets: (obj) => referencedSecrets(obj.metadata.namespace, obj.spec),
  // Every reconcile reads its source Secrets: their values come from the watch, not a GET.
  holdsSecretValues: true,
  startBackground: (services, signal) => projectEventHub(services, KIND).start(signal),
};

export const secretBatchRegistration: KindRegistration = {
  definition: secretBatchController.definition,
  runtime: { reconciler: 'managed', controller: secretBatchController },
  references,
  rbac: [readsSecrets('the Secrets its values come from (spec.secrets[].valueFrom, spec.fromSecret)')],
  reasons: secretBatchReasons,
  sample: 'config/samples/secret-batch.yaml',
  docPage: 'docs/kinds/secret-batch.md',
  summary: 'Secrets pushed into a project environment and folder, from literals or a Secret.',
};
