/**
 * Raw Kubernetes API requests with the kubeconfig's authentication (client certificates, bearer
 * tokens, exec plugins), for the two calls the typed clients do not fit: paginated lists whose
 * items must stay plain JSON (the typed clients turn timestamps into `Date`s, while watch events
 * are plain JSON; one cache must not mix both), and long-running watch streams.
 */
import { HttpMethod, RequestContext, type KubeConfig } from '@kubernetes/client-node';
import { fetch, type Response } from 'undici';

/** Identifies a resource collection, e.g. `{ group: '', version: 'v1', plural: 'configmaps' }`. */
export interface ResourceRef {
  /** API group; `''` for the core group. */
  readonly group: string;
  readonly version: string;
  readonly plural: string;
}

/** An HTTP error from the API server, carrying its status (and the Status reason when given). */
export class KubeHttpError extends Error {
  readonly statusCode: number;
  readonly reason?: string;
  constructor(message: string, statusCode: number, reason?: string) {
    super(message);
    this.name = 'KubeHttpError';
    this.statusCode = statusCode;
    this.reason = reason;
  }
}

/** The collection path, namespaced when `namespace` is given. */
export function collectionPath(resource: ResourceRef, namespace?: string): string {
  const root =
    resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  return namespace ? `${root}/namespaces/${namespace}/${resource.plural}` : `${root}/${resource.plural}`;
}

/** Sends an authenticated GET to the current cluster; the caller consumes or cancels the body. */
export async function kubeGet(
  kubeConfig: KubeConfig,
  path: string,
  query: Readonly<Record<string, string | undefined>>,
  signal: AbortSignal,
): Promise<Response> {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('cannot reach the API server: the kubeconfig has no current cluster');
  const url = new URL(cluster.server.replace(/\/+$/, '') + path);
  for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
  const context = new RequestContext(url.toString(), HttpMethod.GET);
  await kubeConfig.applySecurityAuthentication(context);
  const response = await fetch(url, {
    method: 'GET',
    headers: { ...context.getHeaders(), accept: 'application/json' },
    dispatcher: context.getDispatcher(),
    signal,
  });
  if (response.status !== 200) throw await httpError(response, path);
  return response;
}

async function httpError(response: Response, path: string): Promise<KubeHttpError> {
  let reason: string | undefined;
  let detail = response.statusText;
  try {
    const status = (await response.json()) as { reason?: string; message?: string };
    reason = status.reason;
    detail = status.message ?? detail;
  } catch {
    // Not a Status object; the HTTP status alone has to do.
  }
  return new KubeHttpError(`cannot get ${path}: HTTP ${response.status} ${detail}`, response.status, reason);
}
