/**
 * IdentityAuth: an authentication method attached to an Identity, with credentials issued into
 * a Secret and rotated, on the generic managed reconciler (default deletion policy Delete). The
 * Kubernetes method's reviewer Secret and CA ConfigMap are watched.
 */
import { identityAuthKind, type IdentityAuthSpec } from '../../api/v1alpha1/index.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import type { KindController, NamedRef } from '../kind-controller.ts';
import { connectionReference, type KindRegistration, type ReferenceDeclaration } from '../registration.ts';
import { publishesSecrets } from '../rbac-needs.ts';
import { identityAuthAdapter } from './adapter.ts';
import type { IdentityAuthRefs, IdentityAuthStatusFields } from './status.ts';
import { identityAuthReasons } from './reasons.ts';

/** The coffer.dev objects this kind's spec names. */
const references: readonly ReferenceDeclaration[] = [
  connectionReference,
  {
    path: 'spec.identityRef',
    kinds: ['Identity'],
    needs: 'Ready',
    watch: true,
    announce: true,
    purpose: 'the identity the method authenticates',
  },
];

/** `ref` (a Secret or ConfigMap in the object's namespace) as a watch reference, if set. */
function sameNamespace(obj: ManagedObject<unknown>, ref: { name: string } | undefined): NamedRef[] {
  const namespace = obj.metadata.namespace;
  return ref ? [{ name: ref.name, ...(namespace ? { namespace } : {}) }] : [];
}

export const identityAuthController: KindController<
  IdentityAuthSpec,
  IdentityAuthRefs,
  IdentityAuthStatusFields
> = {
  definition: identityAuthKind,
  createAdapter: identityAuthAdapter,
  // A changed reviewer token or CA reaches the service within seconds.
  referencedSecrets: (obj) => sameNamespace(obj, obj.spec.kubernetes?.tokenReviewerJwtSecretRef),
  referencedConfigMaps: (obj) => sameNamespace(obj, obj.spec.kubernetes?.caCertConfigMapRef),
};

export const identityAuthRegistration: KindRegistration = {
  definition: identityAuthController.definition,
  runtime: { reconciler: 'managed', controller: identityAuthController },
  references,
  rbac: [publishesSecrets('issued credentials (tokens, client secrets)')],
  reasons: identityAuthReasons,
  sample: 'config/samples/identity-auth.yaml',
  docPage: 'docs/kinds/identity-auth.md',
  summary: 'An authentication method of an identity (incl. Kubernetes auth), with issued credentials.',
};
