/**
 * Reading a CertificateAuthority's CA from the service: the CA by id, its certificate and chain
 * once it has one, and the refusal (`SpecMismatch`, terminal) to manage a CA of another project
 * or with other immutable settings than the spec (the endpoints cannot change them).
 */
import type { CertificateAuthoritySpec } from '../../api/v1alpha1/index.ts';
import {
  type CaCertificate,
  type CertificateAuthority,
  type ServiceClient,
  unlessNotFound,
} from '../../client/index.ts';
import { managedReasons } from '../../managed/reasons.ts';
import { TerminalError } from '../../runtime/errors.ts';
import { ANNOTATION_EXTERNAL_ID } from '../../runtime/object-meta.ts';
import { immutableMismatch, PENDING_CERTIFICATE } from './mapping.ts';

/** Condition reason when the CA found is not the one the spec describes. */
export const SPEC_MISMATCH = managedReasons.names.SpecMismatch;

/** The CA with `id`, or undefined when there is none. */
export function getCa(
  client: ServiceClient,
  id: string,
  signal: AbortSignal,
): Promise<CertificateAuthority | undefined> {
  return unlessNotFound(client.pki.getCa(id, { signal }));
}

/** The CA's certificate and chain; undefined while it waits for its certificate. */
export async function certificateOf(
  client: ServiceClient,
  ca: CertificateAuthority,
  signal: AbortSignal,
): Promise<CaCertificate | undefined> {
  if (ca.status === PENDING_CERTIFICATE) return undefined;
  return client.pki.getCaCertificate(ca.id, { signal });
}

/** Throws `SpecMismatch` when `ca` belongs to another project or differs in an immutable setting. */
export function checkIdentity(
  spec: CertificateAuthoritySpec,
  ca: CertificateAuthority,
  projectId: string,
): void {
  const differs = immutableMismatch(spec, ca);
  if (ca.projectId !== undefined && ca.projectId !== projectId) differs.unshift('projectRef');
  if (differs.length === 0) return;
  throw new TerminalError(
    SPEC_MISMATCH,
    `cannot manage certificate authority ${ca.id}: its ${differs.join(', ')} differ from the spec and ` +
      `cannot change after creation; set ${ANNOTATION_EXTERNAL_ID} to the CA this spec describes, or delete ` +
      'this resource with deletionPolicy Orphan and create one that matches',
  );
}
