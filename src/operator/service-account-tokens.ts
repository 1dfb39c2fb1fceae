/**
 * `ServiceAccountTokenService` over the Kubernetes API: TokenRequest
 * (`POST /api/v1/namespaces/{ns}/serviceaccounts/{name}/token`, RBAC `serviceaccounts/token`
 * create), TokenReview (`POST /apis/authentication.k8s.io/v1/tokenreviews`, RBAC `tokenreviews`
 * create) and the projected token file (only from the projected-token directory:
 * `projected-token-file.ts`). Errors name the ServiceAccount or file and the API
 * server's own message; tokens are never put in errors or logs (the API server does not echo them).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { ServiceAccountTokenService } from '../managed/kind-services.ts';
import { ServiceAccountTokenError } from '../managed/connections/service-account-token.ts';
import { kubernetesStatus } from '../runtime/errors.ts';
import { kubeRequest } from '../runtime/kube-request.ts';
import { readProjectedTokenFile } from './projected-token-file.ts';

const enc = encodeURIComponent;

/** The API server's Status message of a failed request, when it sent one. */
function statusMessage(error: unknown): string {
  const body = (error as { body?: unknown } | null)?.body;
  const message = (body as { message?: unknown } | undefined)?.message;
  if (typeof message === 'string' && message.length > 0) return message;
  const status = kubernetesStatus(error);
  return status === undefined ? 'no answer from the Kubernetes API server' : `HTTP ${status}`;
}

function unavailable(what: string, error: unknown, hint = ''): ServiceAccountTokenError {
  const status = kubernetesStatus(error);
  const rbac = status === 403 ? ` (the operator needs RBAC ${hint || 'for this request'})` : '';
  return new ServiceAccountTokenError(
    'ServiceAccountTokenUnavailable',
    `${what}: ${statusMessage(error)}${rbac}`,
  );
}

/**
 * The service over `kubeConfig` (the operator's own credentials); projected token files are read
 * only from `projectedTokenDir` (`--projected-token-dir`).
 */
export function serviceAccountTokens(
  kubeConfig: KubeConfig,
  projectedTokenDir: string,
): ServiceAccountTokenService {
  return {
    async request(namespace, name, options) {
      let answer: unknown;
      try {
        answer = await kubeRequest(kubeConfig, {
          method: 'POST',
          path: `/api/v1/namespaces/${enc(namespace)}/serviceaccounts/${enc(name)}/token`,
          body: {
            apiVersion: 'authentication.k8s.io/v1',
            kind: 'TokenRequest',
            spec: { audiences: [...options.audiences], expirationSeconds: options.expirationSeconds },
          },
        });
      } catch (error) {
        throw unavailable(
          `cannot request a token for ServiceAccount ${namespace}/${name}`,
          error,
          'create on serviceaccounts/token',
        );
      }
      const token = (answer as { status?: { token?: unknown } } | undefined)?.status?.token;
      if (typeof token !== 'string' || token.length === 0) {
        throw new ServiceAccountTokenError(
          'ServiceAccountTokenUnavailable',
          `the TokenRequest for ServiceAccount ${namespace}/${name} returned no token`,
        );
      }
      return token;
    },

    readProjected(path) {
      return readProjectedTokenFile(path, projectedTokenDir);
    },

    async acceptedByApiServer(token) {
      let answer: unknown;
      try {
        answer = await kubeRequest(kubeConfig, {
          method: 'POST',
          path: '/apis/authentication.k8s.io/v1/tokenreviews',
          body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
        });
      } catch (error) {
        throw unavailable(
          'cannot check the ServiceAccount token with a TokenReview',
          error,
          'create on tokenreviews',
        );
      }
      return (answer as { status?: { authenticated?: unknown } } | undefined)?.status?.authenticated === true;
    },
  };
}
