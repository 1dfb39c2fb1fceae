/**
 * Reasons of IdentityAuth beyond the generic ones (src/runtime/common-reasons.ts,
 * src/managed/reasons.ts): what the Kubernetes and cluster-issuer JWT methods read from the cluster.
 * Declared once with their class; see src/runtime/reasons.ts.
 */
import { declareReasons } from '../../runtime/reasons.ts';

export const identityAuthReasons = declareReasons('IdentityAuth', {
  ConfigMapNotFound: {
    class: 'waiting',
    conditions: ['Synced'],
    description: 'The ConfigMap of kubernetes.caCertConfigMapRef, or its key, does not exist yet.',
    remedy:
      'Create it in the IdentityAuth’s namespace (kube-root-ca.crt, key ca.crt, exists in every namespace).',
  },
  ClusterUnreadable: {
    class: 'waiting',
    conditions: ['Synced'],
    description:
      'The operator cannot read its own API server’s address or ServiceAccount issuer (discovery document ' +
      'or JWKS) for kubernetes or jwt.clusterIssuer; retried.',
    remedy:
      'The ServiceAccount issuer discovery must be enabled and readable (ClusterRole ' +
      'system:service-account-issuer-discovery); or set kubernetes.kubernetesHost / the jwt keys explicitly.',
  },
});
