/**
 * Identity: an organization machine identity with its org role, metadata and project
 * memberships, on the generic managed reconciler (default deletion policy Delete).
 */
import { identityKind, type IdentitySpec } from '../../api/v1alpha1/index.ts';
import type { KindController } from '../kind-controller.ts';
import { identityAdapter } from './adapter.ts';
import type { IdentityStatusFields } from './mapping.ts';
import { membershipDependencies, type IdentityRefs } from './references.ts';

export const identityController: KindController<IdentitySpec, IdentityRefs, IdentityStatusFields> = {
  definition: identityKind,
  createAdapter: identityAdapter,
  // A Project or ProjectRole becoming Ready lets a waiting membership be granted at once.
  dependencies: (obj) => membershipDependencies(obj.spec),
};
