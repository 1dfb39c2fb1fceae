/**
 * Reasons of CertificateAuthority.
 * Declared once with their class; see src/runtime/reasons.ts.
 */
import { declareReasons } from '../../runtime/reasons.ts';

export const certificateAuthorityReasons = declareReasons('CertificateAuthority', {
  PendingCertificate: {
    class: 'terminal',
    conditions: ['Ready'],
    description:
      'An intermediate CA waits for its certificate to be signed by a parent CA; this resource does not sign it.',
  },
});
