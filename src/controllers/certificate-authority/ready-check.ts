/**
 * When a CertificateAuthority that exists and matches its spec is still not Ready: an
 * intermediate CA whose certificate a parent CA has not signed yet.
 */
import type { NotReady } from '../../managed/external-client.ts';
import { PENDING_CERTIFICATE, type CaStatusFields } from './mapping.ts';
import { certificateAuthorityReasons } from './reasons.ts';

/** Ready reason while an intermediate CA waits for its certificate. */
export const PENDING_REASON = certificateAuthorityReasons.names.PendingCertificate;

/** `PendingCertificate` while the CA waits for its certificate, else undefined. */
export function caNotReady(status: CaStatusFields | undefined): NotReady | undefined {
  if (status?.state !== PENDING_CERTIFICATE) return undefined;
  return {
    reason: PENDING_REASON,
    message: 'the intermediate CA waits for its certificate to be signed by a parent CA',
  };
}
