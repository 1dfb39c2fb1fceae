/**
 * A shared informer: a local cache of one resource kind kept current by list+watch, with indexes
 * and add/update/delete handlers.
 *
 * Contract:
 * - one `Reflector` per watched namespace (or one cluster-wide) feeds one store, so
 *   `--namespaces a,b` costs two watches and the cache still answers `list()` for both;
 * - the loops restart after any error with backoff and relist when a watch goes silent (see
 *   `reflector.ts`); `restarts` counts those restarts;
 * - `hasSynced()` turns true once every scope finished its first list, and stays true;
 * - handlers run synchronously, in event order; `update` is not called when the resourceVersion
 *   did not change (a relist re-delivering the same object); `delete` receives the last state;
 * - objects are cached as parsed from the wire (shared, read-only for callers), minus what only
 *   the API server and kubectl use: `metadata.managedFields` and the
 *   `kubectl.kubernetes.io/last-applied-configuration` annotation (a copy of the whole object as
 *   last applied client-side, which GitOps tools put on every resource) are dropped — the object
 *   gets a new `metadata` without them — unless `keepApplyBookkeeping` is set. Together they are
 *   often most of an object, and no controller reads them from the cache (a controller that
 *   writes a whole object back reads it from the API server first).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { BackoffOptions } from './backoff.ts';
import type { Clock } from './clock.ts';
import { collectionPath, type ResourceRef } from './kube-request.ts';
import type { KubeObject, WatchEvent } from './list-watch.ts';
import { ObjectStore, objectKey, type IndexFunc } from './object-store.ts';
import { Reflector } from './reflector.ts';

export type { IndexFunc } from './object-store.ts';
export type { KubeObject } from './list-watch.ts';

/** What an informer watches: a resource collection, namespaced or cluster-scoped. */
export interface InformerResource extends ResourceRef {
  readonly namespaced: boolean;
}

export interface InformerOptions<T extends KubeObject = KubeObject> {
  /** Short name for logs and metrics, e.g. `secrets` or `projects.coffer.dev`. */
  readonly name: string;
  readonly kubeConfig: KubeConfig;
  readonly resource: InformerResource;
  /** Namespaces to watch; empty or undefined means all (ignored for cluster-scoped resources). */
  readonly namespaces?: readonly string[];
  /** e.g. `app.kubernetes.io/managed-by=coffer`, so only Coffer's Secrets are cached. */
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly log: Logger;
  /** Cache `metadata.managedFields` and the last-applied annotation too (see the contract). */
  readonly keepApplyBookkeeping?: boolean;
  /**
   * Applied to every object before it is cached or handed to handlers (including the last state
   * of a deleted object), e.g. to keep only Secrets' metadata and a hash of their data so that a
   * cluster's Secrets do not sit in memory. Must be pure and must keep `metadata`.
   */
  // Method syntax keeps `Informer<V1Secret>` assignable to `Informer<KubeObject>` (bivariant).
  transform?(obj: T): T;
  /** See `ReflectorOptions`. */
  readonly watchdogMs?: number;
  readonly minWatchTimeoutSeconds?: number;
  readonly pageSize?: number;
  readonly backoff?: BackoffOptions;
  readonly clock?: Clock;
  /** Called on every restart, e.g. to count it in metrics. */
  readonly onRestart?: (reason: string) => void;
}

/** Handler signatures by event. */
// Method syntax keeps `Informer<V1Secret>` assignable to `Informer<KubeObject>` (bivariant).
export interface InformerHandlers<T> {
  add(obj: T): void;
  update(obj: T, old: T): void;
  delete(obj: T): void;
}

export class Informer<T extends KubeObject = KubeObject> {
  readonly name: string;
  private readonly o: InformerOptions<T>;
  private readonly store = new ObjectStore<T>();
  private readonly handlers: { [E in keyof InformerHandlers<T>]: InformerHandlers<T>[E][] } = {
    add: [],
    update: [],
    delete: [],
  };
  private readonly scopes: (string | undefined)[];
  private readonly syncedScopes = new Set<string | undefined>();
  private syncWaiters: (() => void)[] = [];
  private abort: AbortController | undefined;
  private running: Promise<void>[] = [];
  private restartCount = 0;

  constructor(options: InformerOptions<T>) {
    this.name = options.name;
    this.o = options;
    const namespaces = options.resource.namespaced ? (options.namespaces ?? []) : [];
    this.scopes = namespaces.length > 0 ? [...namespaces] : [undefined];
  }

  /** Registers a handler. Handlers added after start see only later events; use `list()` for the rest. */
  on<E extends keyof InformerHandlers<T>>(event: E, handler: InformerHandlers<T>[E]): void {
    (this.handlers[event] as InformerHandlers<T>[E][]).push(handler);
  }

  /** Adds an index (see `ObjectStore.addIndex`); objects already cached are indexed at once. */
  addIndex(name: string, fn: IndexFunc<T>): void {
    this.store.addIndex(name, fn);
  }

  /** Cached objects whose index `name` contains `value`. */
  byIndex(name: string, value: string): T[] {
    return this.store.byIndex(name, value);
  }

  /** The cached object, if any. Pass `undefined` namespace for cluster-scoped objects. */
  get(namespace: string | undefined, name: string): T | undefined {
    return this.store.get(namespace, name);
  }

  /** Cached objects, all or in one namespace. */
  list(namespace?: string): T[] {
    return this.store.list(namespace);
  }

  /** True once every watched scope finished its initial list. */
  hasSynced(): boolean {
    return this.syncedScopes.size === this.scopes.length;
  }

  /** Resolves once `hasSynced()`; rejects if `signal` aborts first. */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.hasSynced()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(new Error(`cannot sync informer ${this.name}: aborted`));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  /** List+watch restarts after errors or silent watches since start. */
  get restarts(): number {
    return this.restartCount;
  }

  /** Starts the list+watch loops. Calling it twice is a no-op. */
  start(): void {
    if (this.abort) return;
    const abort = new AbortController();
    this.abort = abort;
    this.running = this.scopes.map((scope) => this.reflectorFor(scope).run(abort.signal));
  }

  /** Stops every loop and waits for them to end. The cache keeps its last contents. */
  async stop(): Promise<void> {
    this.abort?.abort(new Error(`informer ${this.name} stopped`));
    await Promise.all(this.running);
    this.running = [];
  }

  private reflectorFor(scope: string | undefined): Reflector<T> {
    const log = this.o.log.child({ informer: this.name, ...(scope ? { scope } : {}) });
    return new Reflector<T>(
      {
        kubeConfig: this.o.kubeConfig,
        query: {
          path: collectionPath(this.o.resource, scope),
          labelSelector: this.o.labelSelector,
          fieldSelector: this.o.fieldSelector,
        },
        log,
        pageSize: this.o.pageSize,
        watchdogMs: this.o.watchdogMs,
        minWatchTimeoutSeconds: this.o.minWatchTimeoutSeconds,
        backoff: this.o.backoff,
        clock: this.o.clock,
      },
      {
        replace: (items) => this.replace(scope, items),
        event: (event) => this.apply(event),
        restarted: (reason) => {
          this.restartCount++;
          this.o.onRestart?.(reason);
        },
      },
    );
  }

  private replace(scope: string | undefined, items: T[]): void {
    const keep = new Set<string>();
    for (const item of items) {
      keep.add(objectKey(item));
      this.upsert(item);
    }
    for (const gone of this.store.missingFrom(scope, keep)) {
      this.store.remove(gone.metadata?.namespace, gone.metadata?.name ?? '');
      this.emit('delete', gone);
    }
    this.markSynced(scope);
  }

  private apply(event: WatchEvent<T>): void {
    if (event.type === 'DELETED') {
      const meta = event.object.metadata;
      this.store.remove(meta?.namespace, meta?.name ?? '');
      this.emit('delete', this.transformed(event.object));
      return;
    }
    this.upsert(event.object);
  }

  private upsert(received: T): void {
    const obj = this.transformed(received);
    if (!this.o.keepApplyBookkeeping) dropApplyBookkeeping(obj);
    const outcome = this.store.upsert(obj);
    if (outcome.kind === 'added') this.emit('add', obj);
    else if (outcome.kind === 'updated') this.emit('update', obj, outcome.old);
  }

  private transformed(obj: T): T {
    return this.o.transform ? this.o.transform(obj) : obj;
  }

  private emit<E extends keyof InformerHandlers<T>>(
    event: E,
    ...args: Parameters<InformerHandlers<T>[E]>
  ): void {
    for (const handler of this.handlers[event]) {
      try {
        (handler as (...a: unknown[]) => void)(...args);
      } catch (error) {
        this.o.log.error({ informer: this.name, event, err: error }, 'informer handler failed');
      }
    }
  }

  private markSynced(scope: string | undefined): void {
    if (this.syncedScopes.has(scope)) return;
    this.syncedScopes.add(scope);
    if (!this.hasSynced()) return;
    for (const waiter of this.syncWaiters.splice(0)) waiter();
  }
}

const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Replaces `obj.metadata` (an object just parsed, that nobody else holds) with one without
 * `managedFields` and the last-applied annotation, when it has either. A new object rather than
 * `delete`: deleting a property turns a V8 object into a slow dictionary, which costs several
 * times the memory for every cached object.
 */
function dropApplyBookkeeping(obj: KubeObject): void {
  const meta = obj.metadata;
  if (!meta) return;
  const annotations = meta.annotations;
  const hasLastApplied = annotations !== undefined && lastApplied in annotations;
  if (meta.managedFields === undefined && !hasLastApplied) return;
  const { managedFields: _managedFields, ...metadata } = meta;
  if (hasLastApplied) {
    const { [lastApplied]: _lastApplied, ...kept } = annotations;
    metadata.annotations = kept;
  }
  obj.metadata = metadata;
}
