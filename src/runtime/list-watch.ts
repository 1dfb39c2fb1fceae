/**
 * The two API calls behind an informer: a paginated list (one consistent snapshot) and a watch
 * stream from a resource version. Objects are returned exactly as parsed from the wire.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeGet, KubeHttpError } from './kube-request.ts';

/**
 * The fields of a Kubernetes object the runtime relies on. Objects from informers are plain
 * wire JSON, so timestamps are strings; `Date` is allowed only so that client-node's model types
 * (`V1Secret`, ...) can be used as type parameters.
 */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }[];
    deletionTimestamp?: string | Date;
    finalizers?: string[];
    managedFields?: unknown;
  };
}

/** One event of a watch stream. `ERROR` carries a `Status` object. */
export interface WatchEvent<T> {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: T;
}

/** What to list and watch. Selectors are Kubernetes selector strings. */
export interface ListWatchQuery {
  readonly path: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

/** A consistent snapshot: all items and the resource version to watch from. */
export interface ListResult<T> {
  readonly items: T[];
  readonly resourceVersion: string;
}

/** Lists every page of `query.path` (`limit` items per request). Throws `KubeHttpError` on failure. */
export async function listAll<T extends KubeObject>(
  kubeConfig: KubeConfig,
  query: ListWatchQuery,
  pageSize: number,
  signal: AbortSignal,
): Promise<ListResult<T>> {
  const items: T[] = [];
  let resourceVersion = '';
  let continueToken: string | undefined;
  do {
    const body = await kubeGet(
      kubeConfig,
      query.path,
      {
        limit: String(pageSize),
        continue: continueToken,
        labelSelector: query.labelSelector,
        fieldSelector: query.fieldSelector,
      },
      signal,
    );
    const page = (await body.json()) as {
      items?: T[];
      metadata?: { resourceVersion?: string; continue?: string };
    };
    for (const item of page.items ?? []) items.push(item);
    resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    continueToken = page.metadata?.continue || undefined;
  } while (continueToken);
  return { items, resourceVersion };
}

/**
 * Opens a watch from `resourceVersion` (with bookmarks) and calls `onEvent` for each event, in
 * order, synchronously as lines arrive. Resolves when the server ends the stream (its
 * `timeoutSeconds` elapsed); rejects on HTTP or network errors, and with a 410 `KubeHttpError`
 * when the server reports the resource version as expired. Aborting `signal` ends it.
 */
export async function watchFrom<T extends KubeObject>(
  kubeConfig: KubeConfig,
  query: ListWatchQuery & { readonly resourceVersion: string; readonly timeoutSeconds: number },
  onEvent: (event: WatchEvent<T>) => void,
  signal: AbortSignal,
): Promise<void> {
  const body = await kubeGet(
    kubeConfig,
    query.path,
    {
      watch: 'true',
      allowWatchBookmarks: 'true',
      resourceVersion: query.resourceVersion,
      timeoutSeconds: String(query.timeoutSeconds),
      labelSelector: query.labelSelector,
      fieldSelector: query.fieldSelector,
    },
    signal,
  );
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.trim()) deliver(line, query.path, onEvent);
      newline = buffered.indexOf('\n');
    }
  }
}

function deliver<T>(line: string, path: string, onEvent: (event: WatchEvent<T>) => void): void {
  const event = JSON.parse(line) as WatchEvent<T>;
  if (event.type === 'ERROR') {
    const status = event.object as { code?: number; reason?: string; message?: string };
    throw new KubeHttpError(
      `cannot watch ${path}: ${status.message ?? 'error event'}`,
      status.code ?? 500,
      status.reason,
    );
  }
  onEvent(event);
}
