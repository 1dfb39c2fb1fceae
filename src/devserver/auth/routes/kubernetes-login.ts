/**
 * Kubernetes-auth login (`POST /api/v1/auth/kubernetes-auth/login`, body `{identityId, jwt}`):
 * a real TokenReview (`POST /apis/authentication.k8s.io/v1/tokenreviews` on `kubernetesHost`,
 * trusting `caCert`, authenticated with the configured reviewer token or else the presented token
 * itself, `spec.audiences` = `[allowedAudience]` when one is set), then the service's checks on
 * the reviewed user `system:serviceaccount:<namespace>:<name>`: allowed namespaces and names
 * (exact or glob), and the audience among `status.audiences`. Errors as the service answers them:
 * 404 when not attached, 401 `KubernetesTokenReviewError` when the review fails or does not
 * authenticate, 401 "Access denied: K8s … not allowed." for a mismatch. No lockout (the service
 * has none for this method); failures count toward the route's rate limit. No token is logged or
 * echoed; an accepted login is recorded with the review's credential id (the token's `jti`) and
 * Pod name (`DevApp.kubernetesLogins`).
 */
import { z } from 'zod';
import type { DevApp } from '../../app.ts';
import { issueAccessToken, tokenResponse } from '../access-tokens.ts';
import { globMatches } from '../claim-policy.ts';
import { describeFetchError, fetchJson } from '../outbound.ts';
import { badRequest, notFound, unauthorized } from '../../domain/errors.ts';
import type { RouteDef } from '../../http/types.ts';
import { configString } from './common-fields.ts';
import type { AuthMethodRecord } from '../../state/types.ts';

const loginSchema = z.object({
  identityId: z.string().trim().min(1),
  jwt: z.string().trim().min(1),
  organizationSlug: z.string().optional(),
});

interface ReviewStatus {
  authenticated?: boolean;
  error?: string;
  user?: { username?: string; extra?: Record<string, string[] | undefined> };
  audiences?: string[];
}

function reviewUrl(host: string): string {
  const withScheme = /^https?:\/\//.test(host) ? host : `https://${host}`;
  return `${withScheme.replace(/\/+$/, '')}/apis/authentication.k8s.io/v1/tokenreviews`;
}

async function tokenReview(config: Record<string, unknown>, token: string): Promise<ReviewStatus> {
  const audience = configString(config, 'allowedAudience');
  const reviewer = configString(config, 'tokenReviewerJwt') || token;
  let result: { status: number; body: unknown };
  try {
    result = await fetchJson(reviewUrl(configString(config, 'kubernetesHost')), {
      method: 'POST',
      ca: configString(config, 'caCert'),
      verifyWithoutCa: true,
      headers: { authorization: `Bearer ${reviewer}` },
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { token, ...(audience ? { audiences: [audience] } : {}) },
      },
    });
  } catch (error) {
    throw badRequest(
      `Failed to reach the Kubernetes API server for the token review: ${describeFetchError(error)}`,
      'KubernetesTokenReviewRequestError',
    );
  }
  if (result.status === 401 || result.status === 403) {
    throw unauthorized(
      `Kubernetes API server rejected the token review request (status ${result.status}): check the token reviewer's credentials and its system:auth-delegator binding`,
      'KubernetesTokenReviewRequestError',
    );
  }
  const status = (result.body as { status?: ReviewStatus } | undefined)?.status;
  if (result.status >= 300 || !status) {
    throw badRequest(
      `Kubernetes token review failed with status ${result.status}`,
      'KubernetesTokenReviewRequestError',
    );
  }
  return status;
}

/** `system:serviceaccount:<ns>:<name>` → namespace and name (the service's extractK8sUsername). */
function serviceAccountOf(username: string): { namespace: string; name: string } {
  const parts = username.split(':');
  return { namespace: parts[2] ?? '', name: parts[3] ?? '' };
}

function allowedBy(list: string, value: string): boolean {
  return list
    .split(',')
    .map((entry) => entry.trim())
    .some((entry) => entry === value || globMatches(value, entry));
}

function checkAuthenticated(status: ReviewStatus): void {
  if (status.error) throw unauthorized(status.error, 'KubernetesTokenReviewError');
  if (!status.authenticated) {
    throw unauthorized('Kubernetes token not authenticated', 'KubernetesTokenReviewError');
  }
}

function checkReview(config: Record<string, unknown>, status: ReviewStatus): void {
  checkAuthenticated(status);
  const { namespace, name } = serviceAccountOf(status.user?.username ?? '');
  const namespaces = configString(config, 'allowedNamespaces');
  if (namespaces && !allowedBy(namespaces, namespace)) {
    throw unauthorized('Access denied: K8s namespace not allowed.');
  }
  const names = configString(config, 'allowedNames');
  if (names && !allowedBy(names, name)) throw unauthorized('Access denied: K8s name not allowed.');
  const audience = configString(config, 'allowedAudience');
  if (audience && !(status.audiences ?? []).includes(audience)) {
    throw unauthorized('Access denied: K8s audience not allowed.');
  }
}

async function login(app: DevApp, body: unknown): Promise<unknown> {
  const input = loginSchema.parse(body ?? {});
  const record: AuthMethodRecord | undefined = Object.values(app.state.authMethods).find(
    (m) => m.identityId === input.identityId && m.method === 'kubernetes-auth',
  );
  if (!record) {
    throw notFound('Kubernetes auth method not found for identity, did you configure Kubernetes auth?');
  }
  const identity = app.state.identities[record.identityId];
  if (!identity) throw unauthorized('Identity not found');
  const status = await tokenReview(record.config, input.jwt);
  // The method may have been revoked while the review was in flight.
  if (!app.state.authMethods[record.id]) {
    throw notFound('Kubernetes auth method not found for identity, did you configure Kubernetes auth?');
  }
  checkReview(record.config, status);
  identity.lastLoginAuthMethod = 'kubernetes-auth';
  identity.lastLoginTime = app.iso();
  const extra = status.user?.extra ?? {};
  app.recordKubernetesLogin({
    identityId: identity.id,
    time: identity.lastLoginTime,
    credentialId: extra['authentication.kubernetes.io/credential-id']?.[0] ?? '',
    podName: extra['authentication.kubernetes.io/pod-name']?.[0] ?? '',
  });
  const { record: token, jwt } = issueAccessToken(app, record);
  return tokenResponse(token, jwt);
}

/** The Kubernetes-auth login route. */
export function kubernetesLoginRoutes(app: DevApp): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/auth/kubernetes-auth/login',
      bucket: 'write',
      auth: false,
      write: false,
      handler: (ctx) => login(app, ctx.body),
    },
  ];
}
