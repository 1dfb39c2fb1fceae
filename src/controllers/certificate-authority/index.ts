/**
 * CertificateAuthority: a private CA in a project on the service's deprecated `/api/v1/pki/ca`
 * endpoints, with its certificate and chain published as `ca.crt` in an output Secret; on the
 * generic managed reconciler (default deletion policy Delete).
 */
import { certificateAuthorityKind, type CertificateAuthoritySpec } from '../../api/v1alpha1/index.ts';
import type { KindController } from '../kind-controller.ts';
import { certificateAuthorityAdapter } from './adapter.ts';
import type { CaStatusFields } from './mapping.ts';
import type { CaRefs } from './references.ts';

export const certificateAuthorityController: KindController<
  CertificateAuthoritySpec,
  CaRefs,
  CaStatusFields
> = {
  definition: certificateAuthorityKind,
  createAdapter: certificateAuthorityAdapter,
  // The Project becoming Ready lets a waiting CA be created at once.
  dependencies: (obj) => [{ kind: 'Project', name: obj.spec.projectRef.name }],
};
