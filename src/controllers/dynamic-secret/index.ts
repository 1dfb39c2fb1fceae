/**
 * DynamicSecret: an object of the service, on the generic managed reconciler.
 */
import { dynamicSecretKind, type DynamicSecretSpec } from '../../api/v1alpha1/dynamic-secret.ts';
import type { KindController } from '../kind-controller.ts';
import { connectionReference, type KindRegistration, type ReferenceDeclaration } from '../registration.ts';
import { dynamicSecretAdapter } from './adapter.ts';
import { dynamicSecretReasons } from './reasons.ts';

/** The coffer.dev objects this kind's spec names. */
const references: readonly ReferenceDeclaration[] = [connectionReference];

export const dynamicSecretController: KindController<DynamicSecretSpec, undefined> = {
  definition: dynamicSecretKind,
  createAdapter: dynamicSecretAdapter,
};

export const dynamicSecretRegistration: KindRegistration = {
  definition: dynamicSecretController.definition,
  runtime: { reconciler: 'managed', controller: dynamicSecretController },
  references,
  rbac: [],
  reasons: dynamicSecretReasons,
  sample: 'config/samples/dynamic-secret.yaml',
  sampleLeftOut: 'its adapter is not written yet',
  docPage: 'docs/kinds/dynamic-secret.md',
  summary: 'A DynamicSecret of the service.',
};
