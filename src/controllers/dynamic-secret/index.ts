/**
 * DynamicSecret: the definition of a dynamic secret in a project's folder, on the generic managed
 * reconciler. Its admin credential is read from a Secret in its namespace; a change there is sent
 * to the service within seconds (the operator's Secret watch). Default deletion policy Delete.
 */
import { dynamicSecretKind, type DynamicSecretSpec } from '../../api/v1alpha1/index.ts';
import type { KindController } from '../kind-controller.ts';
import { readsSecrets } from '../rbac-needs.ts';
import { connectionReference, type KindRegistration, type ReferenceDeclaration } from '../registration.ts';
import { dynamicSecretAdapter } from './adapter.ts';
import { referencedSecrets } from './credentials.ts';
import type { DynamicSecretStatusFields } from './mapping.ts';
import { dynamicSecretReasons } from './reasons.ts';
import type { DynamicSecretRefs } from './references.ts';

/** The coffer.dev objects this kind's spec names. */
const references: readonly ReferenceDeclaration[] = [
  connectionReference,
  {
    path: 'spec.projectRef',
    kinds: ['Project'],
    needs: 'Ready',
    watch: true,
    purpose: 'the project the dynamic secret belongs to',
  },
];

export const dynamicSecretController: KindController<
  DynamicSecretSpec,
  DynamicSecretRefs,
  DynamicSecretStatusFields
> = {
  definition: dynamicSecretKind,
  createAdapter: dynamicSecretAdapter,
  referencedSecrets: (obj) => referencedSecrets(obj.metadata.namespace, obj.spec),
};

export const dynamicSecretRegistration: KindRegistration = {
  definition: dynamicSecretController.definition,
  runtime: { reconciler: 'managed', controller: dynamicSecretController },
  references,
  rbac: [
    readsSecrets(
      'the Secrets holding its provider’s admin credential (passwordSecretRef, clusterTokenSecretRef)',
    ),
  ],
  reasons: dynamicSecretReasons,
  sample: 'config/samples/dynamic-secret.yaml',
  docPage: 'docs/kinds/dynamic-secret.md',
  summary: 'The definition of a dynamic secret: a provider with admin credentials and lease TTLs.',
};
