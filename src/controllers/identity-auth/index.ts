/**
 * IdentityAuth: an authentication method attached to an Identity, with credentials issued into
 * a Secret and rotated, on the generic managed reconciler (default deletion policy Delete).
 */
import { identityAuthKind, type IdentityAuthSpec } from '../../api/v1alpha1/index.ts';
import type { KindController } from '../kind-controller.ts';
import { identityAuthAdapter, type IdentityAuthRefs, type IdentityAuthStatusFields } from './adapter.ts';

export const identityAuthController: KindController<
  IdentityAuthSpec,
  IdentityAuthRefs,
  IdentityAuthStatusFields
> = {
  definition: identityAuthKind,
  createAdapter: identityAuthAdapter,
  // The Identity becoming Ready (or getting its id) lets a waiting IdentityAuth attach at once.
  dependencies: (obj) => [{ kind: 'Identity', name: obj.spec.identityRef.name }],
};
