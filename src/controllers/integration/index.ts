/**
 * Integration: a native integration syncing a project environment to an external store, with the
 * credentials of its auth record, on the generic managed reconciler (default deletion policy
 * Delete). The service no longer creates native integrations (403, `IntegrationsDeprecated`);
 * existing ones are adopted, updated and deleted.
 */
import { integrationKind, type IntegrationSpec } from '../../api/v1alpha1/index.ts';
import type { KindController } from '../kind-controller.ts';
import { connectionReference, type KindRegistration, type ReferenceDeclaration } from '../registration.ts';
import { readsSecrets } from '../rbac-needs.ts';
import { integrationAdapter } from './adapter.ts';
import { referencedSecrets } from './credentials.ts';
import type { IntegrationStatusFields } from './mapping.ts';
import type { IntegrationRefs } from './references.ts';
import { integrationReasons } from './reasons.ts';

/** The coffer.dev objects this kind's spec names. */
const references: readonly ReferenceDeclaration[] = [
  connectionReference,
  {
    path: 'spec.projectRef',
    kinds: ['Project'],
    needs: 'Ready',
    watch: true,
    purpose: 'the project whose secrets are synced',
  },
];

export const integrationController: KindController<
  IntegrationSpec,
  IntegrationRefs,
  IntegrationStatusFields
> = {
  definition: integrationKind,
  createAdapter: integrationAdapter,
  // A rotated credential reaches the service within seconds.
  referencedSecrets,
};

export const integrationRegistration: KindRegistration = {
  definition: integrationController.definition,
  runtime: { reconciler: 'managed', controller: integrationController },
  references,
  rbac: [readsSecrets('the credentials of the external platform')],
  reasons: integrationReasons,
  sample: 'config/samples/integration.yaml',
  sampleLeftOut: 'it needs real AWS credentials and a service that still creates integrations',
  docPage: 'docs/kinds/integration.md',
  summary: 'A native integration syncing secrets to another platform.',
};
