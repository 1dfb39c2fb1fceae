/**
 * Identity: an organization machine identity with its org role, metadata and project
 * memberships, on the generic managed reconciler (default deletion policy Delete).
 */
import { identityKind, type IdentitySpec } from '../../api/v1alpha1/index.ts';
import type { KindController } from '../kind-controller.ts';
import { connectionReference, type KindRegistration, type ReferenceDeclaration } from '../registration.ts';
import { publishesSecrets } from '../rbac-needs.ts';
import { identityAdapter } from './adapter.ts';
import type { IdentityStatusFields } from './mapping.ts';
import type { IdentityRefs } from './references.ts';
import { identityReasons } from './reasons.ts';

/** The coffer.dev objects this kind's spec names. */
const references: readonly ReferenceDeclaration[] = [
  connectionReference,
  {
    path: 'spec.projectMemberships[].projectRef',
    kinds: ['Project'],
    needs: 'Ready',
    watch: true,
    purpose: 'a project the identity is a member of',
  },
  {
    path: 'spec.projectMemberships[].roles[].projectRoleRef',
    kinds: ['ProjectRole'],
    needs: 'Ready',
    watch: true,
    purpose: 'a custom role of that project granted to the identity',
  },
];

export const identityController: KindController<IdentitySpec, IdentityRefs, IdentityStatusFields> = {
  definition: identityKind,
  createAdapter: identityAdapter,
};

export const identityRegistration: KindRegistration = {
  definition: identityController.definition,
  runtime: { reconciler: 'managed', controller: identityController },
  references,
  rbac: [publishesSecrets('the identity id and organization id (spec.outputSecretName)')],
  reasons: identityReasons,
  sample: 'config/samples/identity.yaml',
  docPage: 'docs/kinds/identity.md',
  summary: 'A machine identity and its project memberships.',
};
