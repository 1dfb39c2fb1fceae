/**
 * Raw Kubernetes API requests with the kubeconfig's authentication (client certificates, bearer
 * tokens, exec plugins), for the calls the typed clients do not fit: paginated lists whose items
 * must stay plain JSON (the typed clients turn timestamps into `Date`s, while watch events are
 * plain JSON; one cache must not mix both), long-running watch streams, and the operator's
 * frequent writes, where the typed clients' conversions cost more CPU than the request itself.
 */
import { STATUS_CODES } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
// The module itself, not the package index: the index loads every generated API and model class
// (see kube-clients.ts); this one is small.
import { HttpMethod, RequestContext } from '@kubernetes/client-node/dist/gen/http/http.js';
import { request, type Dispatcher } from 'undici';

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
  /** The HTTP status again, under the name client-node's `ApiException` gives it. */
  readonly code: number;
  readonly reason?: string;
  /** The Status object the API server answered, when it answered one (read for its `message`). */
  readonly body?: unknown;
  constructor(message: string, statusCode: number, reason?: string, body?: unknown) {
    super(message);
    this.name = 'KubeHttpError';
    this.statusCode = statusCode;
    this.code = statusCode;
    this.reason = reason;
    this.body = body;
  }
}

/** The collection path, namespaced when `namespace` is given. */
export function collectionPath(resource: ResourceRef, namespace?: string): string {
  const root =
    resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  return namespace ? `${root}/namespaces/${namespace}/${resource.plural}` : `${root}/${resource.plural}`;
}

interface Authenticated {
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly dispatcher: Dispatcher | undefined;
}

/** The URL, headers and dispatcher of a request to the current cluster, as the kubeconfig says. */
async function authenticate(
  kubeConfig: KubeConfig,
  method: HttpMethod,
  path: string,
  query: Readonly<Record<string, string | undefined>>,
): Promise<Authenticated> {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('cannot reach the API server: the kubeconfig has no current cluster');
  const url = new URL(cluster.server.replace(/\/+$/, '') + path);
  for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
  const context = new RequestContext(url.toString(), method);
  await kubeConfig.applySecurityAuthentication(context);
  return { url, headers: context.getHeaders(), dispatcher: context.getDispatcher() };
}

/**
 * The body of a successful `kubeGet`: read it once, whole (`json`, `text`) or as a stream of
 * chunks (async iteration, for watches); ending an iteration early releases the connection.
 */
export interface KubeBody extends AsyncIterable<Uint8Array> {
  json(): Promise<unknown>;
  text(): Promise<string>;
}

/**
 * Sends an authenticated GET to the current cluster and resolves with the body of its 200 answer
 * (any other status throws a `KubeHttpError`); the caller consumes it. undici's `request`, as for
 * `kubeRequest`: lists and watch streams need no fetch machinery (web streams, `Response`),
 * which then is never loaded in the operator (`npm run bench:rest`, docs/benchmarks.md). Aborting `signal`
 * rejects the pending request or the body's reads.
 */
export async function kubeGet(
  kubeConfig: KubeConfig,
  path: string,
  query: Readonly<Record<string, string | undefined>>,
  signal: AbortSignal,
): Promise<KubeBody> {
  const { url, headers, dispatcher } = await authenticate(kubeConfig, HttpMethod.GET, path, query);
  const response = await request(url, {
    method: 'GET',
    headers: { ...headers, accept: 'application/json' },
    ...(dispatcher ? { dispatcher } : {}),
    signal,
  });
  if (response.statusCode !== 200) {
    let text = '';
    try {
      text = await response.body.text();
    } catch {
      // The status alone has to do.
    }
    throw httpError(`get ${path}`, response.statusCode, STATUS_CODES[response.statusCode] ?? '', text);
  }
  return response.body;
}

/** One request with an optional JSON body (see `kubeRequest`). */
export interface KubeRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  /** Sent as JSON. */
  readonly body?: unknown;
  /** The body's content type: `application/json` unless a patch names its strategy. */
  readonly contentType?: string;
  readonly signal?: AbortSignal;
}

const methods: Readonly<Record<KubeRequest['method'], HttpMethod>> = {
  GET: HttpMethod.GET,
  POST: HttpMethod.POST,
  PUT: HttpMethod.PUT,
  PATCH: HttpMethod.PATCH,
  DELETE: HttpMethod.DELETE,
};

/**
 * Sends one authenticated request to the current cluster and returns its JSON answer (undefined
 * for an empty one); any status outside 2xx throws a `KubeHttpError`. This is the operator's hot
 * write path (patches, status, events): undici's `request` on the kubeconfig's dispatcher, plain
 * JSON both ways, without the typed clients' model conversion or fetch's stream machinery.
 */
export async function kubeRequest(kubeConfig: KubeConfig, req: KubeRequest): Promise<unknown> {
  const { url, headers, dispatcher } = await authenticate(
    kubeConfig,
    methods[req.method],
    req.path,
    req.query ?? {},
  );
  const withBody = req.body !== undefined;
  const response = await request(url, {
    method: req.method,
    headers: {
      ...headers,
      accept: 'application/json',
      ...(withBody ? { 'content-type': req.contentType ?? 'application/json' } : {}),
    },
    ...(withBody ? { body: JSON.stringify(req.body) } : {}),
    ...(dispatcher ? { dispatcher } : {}),
    ...(req.signal ? { signal: req.signal } : {}),
  });
  const text = await response.body.text();
  if (response.statusCode < 200 || response.statusCode > 299) {
    throw httpError(`${req.method.toLowerCase()} ${req.path}`, response.statusCode, '', text);
  }
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

/** A `KubeHttpError` for `what` ("get /api/..."): the Status body's reason and message when it has one. */
function httpError(what: string, status: number, statusText: string, text: string): KubeHttpError {
  let body: { reason?: unknown; message?: unknown } | undefined;
  try {
    body = JSON.parse(text) as { reason?: unknown; message?: unknown };
  } catch {
    // Not a Status object; the HTTP status alone has to do.
  }
  const reason = typeof body?.reason === 'string' ? body.reason : undefined;
  const detail = typeof body?.message === 'string' ? body.message : statusText;
  return new KubeHttpError(`cannot ${what}: HTTP ${status} ${detail}`.trimEnd(), status, reason, body);
}
