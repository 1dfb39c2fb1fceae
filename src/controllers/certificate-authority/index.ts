/**
 * CertificateAuthority: a private CA in a project on the service's deprecated `/api/v1/pki/ca`
 * endpoints, with its certificate and chain published as `ca.crt` in an output Secret; on the
 * generic managed reconciler (default deletion policy Delete).
 */
import { certificateAuthorityKind, type CertificateAuthoritySpec } from '../../api/v1alpha1/index.ts';
import type { KindController } from '../kind-controller.ts';
import { connectionReference, type KindRegistration, type ReferenceDeclaration } from '../registration.ts';
import { publishesSecrets } from '../rbac-needs.ts';
import { certificateAuthorityAdapter } from './adapter.ts';
import type { CaStatusFields } from './mapping.ts';
import type { CaRefs } from './references.ts';
import { certificateAuthorityReasons } from './reasons.ts';

/** The coffer.dev objects this kind's spec names. */
const references: readonly ReferenceDeclaration[] = [
  connectionReference,
  {
    path: 'spec.projectRef',
    kinds: ['Project'],
    needs: 'Ready',
    watch: true,
    purpose: 'the project the CA belongs to',
  },
];

export const certificateAuthorityController: KindController<
  CertificateAuthoritySpec,
  CaRefs,
  CaStatusFields
> = {
  definition: certificateAuthorityKind,
  createAdapter: certificateAuthorityAdapter,
};

export const certificateAuthorityRegistration: KindRegistration = {
  definition: certificateAuthorityController.definition,
  runtime: { reconciler: 'managed', controller: certificateAuthorityController },
  references,
  rbac: [publishesSecrets('the CA certificate and chain (spec.outputSecretName)')],
  reasons: certificateAuthorityReasons,
  sample: 'config/samples/certificate-authority.yaml',
  docPage: 'docs/kinds/certificate-authority.md',
  summary: 'A root or intermediate CA, its certificate published in a Secret.',
};
