/**
 * Spec and status fields shared by Connection and ClusterConnection. The two differ only in where
 * referenced Secrets and ConfigMaps live (own namespace vs an explicit one) and in
 * ClusterConnection's allowedNamespaces.
 */
import { z } from 'zod';
import { serviceUrl } from './common.ts';
import type { PrinterColumn } from './kind.ts';
import { commonStatusFields } from './status.ts';
import { celCountPresent, countPresent, withRules } from './schema-helpers.ts';
import { serviceAccountLogins, type LoginRefs } from './service-account-login.ts';

const caSources = ['caBundle', 'caBundleSecretRef', 'caBundleConfigMapRef'] as const;
const authMethods = ['token', 'universalAuth', 'kubernetes', 'jwt', 'oidc'] as const;

/** TLS settings: at most one CA source, verification on unless explicitly skipped. */
export function tlsSettings<S extends z.ZodObject, C extends z.ZodObject>(secretRef: S, configMapRef: C) {
  return withRules(
    z.object({
      caBundle: z
        .string()
        .min(1)
        .max(65536)
        .optional()
        .describe('PEM-encoded CA certificates that sign the service’s TLS certificate, inline.'),
      caBundleSecretRef: secretRef.optional().describe('PEM CA bundle read from a key of a Secret.'),
      caBundleConfigMapRef: configMapRef.optional().describe('PEM CA bundle read from a key of a ConfigMap.'),
      insecureSkipVerify: z
        .boolean()
        .default(false)
        .describe(
          'Skip verification of the service’s TLS certificate. For local testing only. Default: false.',
        ),
    }),
    [
      {
        rule: `${celCountPresent(caSources)} <= 1`,
        message: 'tls: set at most one of caBundle, caBundleSecretRef or caBundleConfigMapRef',
        check: (value) => countPresent(value, caSources) <= 1,
      },
    ],
  ).describe(
    'TLS settings for https URLs. Unset: the service certificate is verified against the system trust store.',
  );
}

/**
 * Builds the connection spec fields for a given Secret/ConfigMap key selector and the references
 * of the ServiceAccount logins (ServiceAccount and Identity, local or namespaced). The selectors
 * must already carry descriptions of their own fields.
 */
export function connectionSpecFields<
  S extends z.ZodObject,
  C extends z.ZodObject,
  A extends z.ZodObject,
  I extends z.ZodObject,
>(secretRef: S, configMapRef: C, loginRefs: LoginRefs<A, I>) {
  const auth = withRules(
    z.object({
      token: z
        .object({ secretRef: secretRef.describe('Secret key holding the access token.') })
        .optional()
        .describe(
          'Authenticate with a machine-identity access token (e.g. a Bootstrap’s output Secret, key token).',
        ),
      universalAuth: z
        .object({
          clientIdSecretRef: secretRef.describe('Secret key holding the universal-auth client id.'),
          clientSecretSecretRef: secretRef.describe('Secret key holding the universal-auth client secret.'),
        })
        .optional()
        .describe(
          'Log in with universal auth (client id + client secret); access tokens are renewed automatically.',
        ),
      ...serviceAccountLogins(loginRefs),
    }),
    [
      {
        rule: `${celCountPresent(authMethods)} == 1`,
        message: 'auth: set exactly one of token, universalAuth, kubernetes, jwt or oidc',
        check: (value) => countPresent(value, authMethods) === 1,
      },
    ],
  ).describe(
    'How the operator authenticates to the service: exactly one of token, universalAuth, kubernetes, jwt or oidc ' +
      '(the last three present a Kubernetes ServiceAccount token; no credential is stored in a Secret).',
  );

  return {
    url: serviceUrl.describe(
      'Base URL of the service, e.g. https://secrets.example.com (the /api paths are appended).',
    ),
    tls: tlsSettings(secretRef, configMapRef).optional(),
    auth,
    requestsPerMinute: z
      .int()
      .min(1)
      .max(100000)
      .optional()
      .describe(
        'Budget of requests per minute shared by every resource using this connection; requests beyond it wait. ' +
          'Unset: no client-side limit (the service’s own 429 answers are still honoured).',
      ),
  };
}

/** Status fields of Connection and ClusterConnection. */
const connectionStatusFields = {
  ...commonStatusFields,
  id: commonStatusFields.id.describe(
    'Id of the machine identity the credentials belong to, when the service reveals it.',
  ),
  organizationId: z
    .string()
    .max(256)
    .optional()
    .describe('Id of the organization the credentials belong to.'),
  waitingFor: z
    .array(z.string().max(512))
    .max(10)
    .optional()
    .describe(
      'While the connection is being deleted: the first resources (Kind/namespace/name) that still ' +
        'hold Coffer’s finalizer and so still need this connection to clean up in the service. ' +
        'The Ready condition gives the total.',
    ),
};

/** Status of Connection and ClusterConnection. */
export const connectionStatusSchema = z
  .object(connectionStatusFields)
  .describe('Observed state: Ready when the service accepted the credentials.');

/** Kind-specific `kubectl get` columns of Connection and ClusterConnection. */
export const connectionColumns: readonly PrinterColumn[] = [
  { name: 'URL', type: 'string', jsonPath: '.spec.url', description: 'Service base URL.' },
  {
    name: 'Org',
    type: 'string',
    jsonPath: '.status.organizationId',
    description: 'Organization id.',
    priority: 1,
  },
];
