/**
 * What the operator can tell about its own cluster from its Kubernetes client, for configuring
 * the service's Kubernetes and JWT auth without copying anything by hand:
 *
 * - the API server it talks to and the CA it trusts for it (the kubeconfig's current cluster; in
 *   a pod, `https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT` and the mounted ca.crt);
 * - the ServiceAccount token issuer and its public keys, read from the API server's
 *   `/.well-known/openid-configuration` and `/openid/v1/jwks` with the operator's own credentials
 *   (the default ClusterRole `system:service-account-issuer-discovery` grants them to every
 *   ServiceAccount), as PEM in a stable order.
 *
 * Only public material: no token is read here.
 */
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';
import { HttpMethod, RequestContext } from '@kubernetes/client-node/dist/gen/http/http.js';
import { fetch } from 'undici';

/** The API server the operator talks to. */
export interface ApiServerAccess {
  readonly url: string;
  /** PEM CA the operator trusts for it; undefined when the kubeconfig names none (system roots). */
  readonly caCert?: string;
}

/** The cluster's ServiceAccount token issuer. */
export interface ServiceAccountIssuer {
  /** The `issuer` of the discovery document (the `iss` of every ServiceAccount token). */
  readonly issuer: string;
  /** The signing keys of `/openid/v1/jwks` as SPKI PEM, sorted. */
  readonly publicKeys: readonly string[];
}

/** Reads about the operator's own cluster (see the module comment). */
export interface ClusterIdentity {
  /** Throws when the kubeconfig has no current cluster. */
  apiServer(): ApiServerAccess;
  /** Throws when the API server does not publish its issuer or the operator may not read it. */
  serviceAccountIssuer(signal?: AbortSignal): Promise<ServiceAccountIssuer>;
}

/** The CA of the kubeconfig's current cluster as PEM, if it names one. */
function caOf(cluster: { caData?: string; caFile?: string }): string | undefined {
  if (cluster.caData) return Buffer.from(cluster.caData, 'base64').toString('utf8');
  if (cluster.caFile) return readFileSync(cluster.caFile, 'utf8');
  return undefined;
}

/** A JWKS as PEM public keys, sorted; entries node cannot read (or private parts) are skipped. */
export function jwksToPem(jwks: unknown): string[] {
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new Error('the JWKS has no keys list');
  const pems = keys.flatMap((key: unknown) => {
    try {
      const jwk = key as JsonWebKey;
      const pem = createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
      return [pem.toString().trim()];
    } catch {
      return [];
    }
  });
  if (pems.length === 0) throw new Error('the JWKS has no usable public key');
  return pems.sort();
}

/**
 * GETs `path` from the current cluster with the kubeconfig's credentials and `accept` (the JWKS
 * endpoint answers only `application/jwk-set+json`), as JSON.
 */
async function getJson(kubeConfig: KubeConfig, path: string, accept: string, signal?: AbortSignal) {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const url = cluster.server.replace(/\/+$/, '') + path;
  const context = new RequestContext(url, HttpMethod.GET);
  await kubeConfig.applySecurityAuthentication(context);
  const response = await fetch(url, {
    headers: { ...context.getHeaders(), accept },
    dispatcher: context.getDispatcher(),
    ...(signal ? { signal } : {}),
  });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`GET ${path} answered ${response.status}`);
  }
  return await response.json();
}

/** The {@link ClusterIdentity} of `kubeConfig`'s current cluster. */
export function clusterIdentity(kubeConfig: KubeConfig): ClusterIdentity {
  return {
    apiServer() {
      const cluster = kubeConfig.getCurrentCluster();
      if (!cluster) throw new Error('cannot name the API server: the kubeconfig has no current cluster');
      const caCert = caOf(cluster);
      return { url: cluster.server.replace(/\/+$/, ''), ...(caCert ? { caCert } : {}) };
    },
    async serviceAccountIssuer(signal) {
      const discovery = (await getJson(
        kubeConfig,
        '/.well-known/openid-configuration',
        'application/json',
        signal,
      )) as { issuer?: unknown } | undefined;
      if (typeof discovery?.issuer !== 'string' || discovery.issuer === '')
        throw new Error('the API server’s /.well-known/openid-configuration names no issuer');
      const jwks = await getJson(kubeConfig, '/openid/v1/jwks', 'application/jwk-set+json', signal);
      return { issuer: discovery.issuer, publicKeys: jwksToPem(jwks) };
    },
  };
}
