/**
 * Integration: a native integration syncing a project environment to an external store, with the
 * credentials of its auth record, on the generic managed reconciler (default deletion policy
 * Delete). The service no longer creates native integrations (403, `IntegrationsDeprecated`);
 * existing ones are adopted, updated and deleted.
 */
import { integrationKind, type IntegrationSpec } from '../../api/v1alpha1/index.ts';
import type { KindController } from '../kind-controller.ts';
import { integrationAdapter } from './adapter.ts';
import { referencedSecrets } from './credentials.ts';
import type { IntegrationStatusFields } from './mapping.ts';
import type { IntegrationRefs } from './references.ts';

export const integrationController: KindController<
  IntegrationSpec,
  IntegrationRefs,
  IntegrationStatusFields
> = {
  definition: integrationKind,
  createAdapter: integrationAdapter,
  // A rotated credential reaches the service within seconds.
  referencedSecrets,
  // The Project becoming Ready lets a waiting Integration proceed at once.
  dependencies: (obj) => [{ kind: 'Project', name: obj.spec.projectRef.name }],
};
