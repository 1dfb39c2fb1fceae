/**
 * IdentityAuth: an authentication method attached to an Identity, with credentials issued into
 * a Secret and rotated, on the generic managed reconciler (default deletion policy Delete).
 */
import { identityAuthKind, type IdentityAuthSpec } from '../../api/v1alpha1/index.ts';
import type { KindController } from '../kind-controller.ts';
import {
  connectionReference,
  dependenciesFrom,
  type KindRegistration,
  type ReferenceDeclaration,
} from '../registration.ts';
import { publishesSecrets } from '../rbac-needs.ts';
import { identityAuthAdapter } from './adapter.ts';
import type { IdentityAuthRefs, IdentityAuthStatusFields } from './status.ts';

/** The coffer.dev objects this kind's spec names. */
const references: readonly ReferenceDeclaration[] = [
  connectionReference,
  {
    path: 'spec.identityRef',
    kinds: ['Identity'],
    needs: 'Ready',
    watch: true,
    purpose: 'the identity the method authenticates',
  },
];

export const identityAuthController: KindController<
  IdentityAuthSpec,
  IdentityAuthRefs,
  IdentityAuthStatusFields
> = {
  definition: identityAuthKind,
  createAdapter: identityAuthAdapter,
  // The Identity becoming Ready (or getting its id) lets a waiting IdentityAuth attach at once.
  dependencies: dependenciesFrom(references),
};

export const identityAuthRegistration: KindRegistration = {
  definition: identityAuthController.definition,
  runtime: { reconciler: 'managed', controller: identityAuthController },
  references,
  rbac: [publishesSecrets('issued credentials (tokens, client secrets)')],
  sample: 'config/samples/identity-auth.yaml',
  docPage: 'docs/kinds/identity-auth.md',
  summary: 'An authentication method of an identity, with issued credentials.',
};
