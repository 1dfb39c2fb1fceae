/**
 * The Kubernetes-auth block of IdentityAuth (`method: kubernetes`) and the cluster-issuer switch of
 * JWT auth: "workloads in these namespaces with these ServiceAccounts log in as this identity",
 * with the API server the service sends TokenReviews to defaulting to the one the operator talks
 * to, so nothing is copied by hand.
 */
import { z } from 'zod';
import { configMapKeySelector, dataKey, secretKeySelector } from './common.ts';
import { celCountPresent, countPresent, withRules } from './schema-helpers.ts';

/** The service accepts letters, digits, `:`, `.`, `/` and `-` in `kubernetesHost`. */
export const kubernetesHostPattern = /^https?:\/\/[A-Za-z0-9.-]+(:[0-9]{1,5})?(\/[A-Za-z0-9./-]*)?$/;

/** A glob (`*`, `?`) or literal Kubernetes name, as the service matches `allowedNamespaces`/`allowedNames`. */
const nameGlob = z
  .string()
  .min(1)
  .max(253)
  .regex(
    /^[-a-z0-9.*?]+$/,
    'must be a Kubernetes name or a glob such as team-* (letters a-z, digits, -, ., *, ?)',
  );

const globList = (what: string) =>
  z
    .array(nameGlob)
    .min(1)
    .max(64)
    .describe(
      `${what} allowed to log in (exact names or globs such as team-*; * allows any). Required, so that ` +
        'no identity is opened to every ServiceAccount of the cluster by omission.',
    );

const caSources = ['caCert', 'caCertConfigMapRef'] as const;

export const kubernetesMethod = withRules(
  z.object({
    allowedNamespaces: globList('Namespaces whose ServiceAccounts are'),
    allowedNames: globList('ServiceAccount names'),
    allowedAudience: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .describe(
        'Audience the presented token must carry (the TokenReview is made for it), e.g. coffer. Recommended: ' +
          'unset, any token the API server itself accepts logs in, and such a token is also a credential for ' +
          'the Kubernetes API.',
      ),
    kubernetesHost: z
      .string()
      .max(2048)
      .regex(kubernetesHostPattern, 'must be an http(s):// URL of letters, digits, ".", "-", ":" and "/"')
      .optional()
      .describe(
        'API server the service sends TokenReviews to. Unset: the API server the operator itself talks to, ' +
          'with its CA (in a pod, the cluster-internal address https://<KUBERNETES_SERVICE_HOST>:<port>); the ' +
          'service must be able to reach that address.',
      ),
    caCert: z
      .string()
      .min(1)
      .max(65536)
      .optional()
      .describe('PEM CA certificate of kubernetesHost. At most one of caCert and caCertConfigMapRef.'),
    caCertConfigMapRef: configMapKeySelector
      .extend({ key: dataKey.default('ca.crt').describe('Key holding the PEM CA. Default: ca.crt.') })
      .optional()
      .describe(
        'ConfigMap (same namespace) holding the PEM CA of kubernetesHost, e.g. kube-root-ca.crt. Unset with ' +
          'caCert unset: the CA the operator trusts for its own API server when kubernetesHost is unset, else none.',
      ),
    tokenReviewerJwtSecretRef: secretKeySelector
      .extend({ key: dataKey.default('token').describe('Key holding the reviewer token. Default: token.') })
      .optional()
      .describe(
        'Secret (same namespace) with a long-lived token the service authenticates its TokenReviews with; its ' +
          'ServiceAccount needs the ClusterRole system:auth-delegator. Unset (recommended): the service reviews ' +
          "each login with the caller's own token, so every ServiceAccount that logs in needs system:auth-delegator.",
      ),
  }),
  [
    {
      rule: `${celCountPresent(caSources)} <= 1`,
      message: 'kubernetes: set at most one of caCert and caCertConfigMapRef',
      check: (v) => countPresent(v, caSources) <= 1,
    },
  ],
).describe(
  'Settings of Kubernetes auth (method kubernetes): which ServiceAccounts may log in, checked by a TokenReview ' +
    'against the cluster.',
);
export type KubernetesMethod = z.output<typeof kubernetesMethod>;

export const clusterIssuer = z
  .object({})
  .describe(
    'Verify tokens of this cluster’s ServiceAccounts: the operator reads the API server’s ' +
      '/.well-known/openid-configuration and /openid/v1/jwks through its own Kubernetes client and configures ' +
      'static keys (PEM) and boundIssuer from them. A key rotation in the cluster reaches the service on the ' +
      'next sync. Leave configurationType, jwksUrl, jwksCaCert, publicKeys and boundIssuer unset.',
  );
