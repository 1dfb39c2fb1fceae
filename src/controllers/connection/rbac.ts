/**
 * The permissions of the Kubernetes, JWT and OIDC logins of Connection and ClusterConnection:
 * requesting short-lived ServiceAccount tokens (TokenRequest) and the confused-deputy check of
 * every token before it is sent (TokenReview). See src/managed/connections/service-account-token.ts.
 */
import type { RbacNeed } from '../registration.ts';

export const serviceAccountLoginRbac: readonly RbacNeed[] = [
  {
    apiGroup: '',
    resource: 'serviceaccounts/token',
    verbs: ['create'],
    why:
      'requests short-lived tokens (TokenRequest) for the ServiceAccount a connection names in ' +
      'auth.{kubernetes,jwt,oidc}.serviceAccountToken.serviceAccountRef; no credential is stored',
  },
  {
    apiGroup: 'authentication.k8s.io',
    resource: 'tokenreviews',
    verbs: ['create'],
    clusterScoped: true,
    why:
      'checks that a ServiceAccount token is not accepted by the API server itself before sending it to the ' +
      'service (AudienceNotAllowed otherwise)',
  },
];
