/**
 * A controller: a work queue, N workers, one `Reconciler`, and the informers that feed it.
 *
 * Each worker takes a key, calls the reconciler with a per-reconcile child logger, and applies
 * exactly one handling per outcome (the table in `errors.ts`):
 *
 * | outcome                  | queue                        | log                         |
 * |--------------------------|------------------------------|-----------------------------|
 * | done                     | forget                       | debug                       |
 * | `requeueAfterMs`         | forget + addAfter (deadline) | debug                       |
 * | TerminalError            | forget, no requeue           | info, with the reason       |
 * | WaitingError             | forget + addAfter(its delay) | debug                       |
 * | RateLimitedError         | addAfter(retryAfterMs)       | info                        |
 * | conflict (409)           | addRateLimited (first 5 ms)  | debug (silent)              |
 * | anything else            | addRateLimited (backoff)     | error                       |
 *
 * Conflicts use the rate limiter rather than a bare add so that a cache that lags behind a
 * write cannot cause a hot loop; the first retry is still only milliseconds away.
 */
import type { Logger } from 'pino';
import { systemClock, type Clock } from './clock.ts';
import { classifyError, RateLimitedError, ReconcileError, WaitingError } from './errors.ts';
import { requestForObject, type RequestMapper, type UpdatePredicate } from './event-sources.ts';
import type { Informer, KubeObject } from './informer.ts';
import { reconcileLogger } from './logger.ts';
import type { OperatorMetrics, ReconcileResultLabel } from './metrics.ts';
import { parseRequestKey, requestKey, type Reconciler, type Request, type Result } from './reconcile.ts';
import { WorkQueue, type WorkQueueOptions } from './work-queue.ts';

/** Requeue delay for a waiting-class error that does not carry its own. */
export const defaultWaitingRequeueMs = 10_000;

export interface ControllerOptions {
  /** Controller name for logs, metrics and the queue (e.g. `project`). */
  readonly name: string;
  /** Kind reconciled (e.g. `Project`), for logs and metrics. */
  readonly kind: string;
  readonly reconciler: Reconciler;
  readonly log: Logger;
  readonly metrics?: OperatorMetrics;
  /** Workers, i.e. reconciles running at once for different keys (default 1). */
  readonly maxConcurrentReconciles?: number;
  /** Backoff, rate limit and clock of the work queue. */
  readonly queue?: Omit<WorkQueueOptions, 'hooks'>;
}

export class Controller {
  readonly name: string;
  readonly kind: string;
  readonly queue: WorkQueue;
  private readonly o: ControllerOptions;
  private readonly clock: Clock;
  private readonly abort = new AbortController();
  private workers: Promise<void>[] = [];
  private readonly informers: Informer<KubeObject>[] = [];

  constructor(options: ControllerOptions) {
    this.name = options.name;
    this.kind = options.kind;
    this.o = options;
    this.clock = options.queue?.clock ?? systemClock;
    this.queue = new WorkQueue({ ...options.queue, hooks: options.metrics?.queueHooks(options.name) });
    options.metrics?.scheduledWork(`workqueue:${options.name}`, () => this.queue.nextDueAt());
  }

  /** Enqueues a reconcile of `request` now. */
  enqueue(request: Request): void {
    this.queue.add(requestKey(request));
  }

  /**
   * Enqueues `map(obj)` for every add, update and delete of `informer` (by default the object
   * itself). Updates pass `predicate` first; they enqueue for both the new and the old object,
   * so a reference that moved releases its old target too.
   */
  watches<T extends KubeObject>(
    informer: Informer<T>,
    map: RequestMapper<T> = requestForObject,
    predicate?: UpdatePredicate<T>,
  ): this {
    const enqueueAll = (requests: readonly Request[]): void => {
      for (const request of requests) this.enqueue(request);
    };
    informer.on('add', (obj) => enqueueAll(map(obj)));
    informer.on('update', (obj, old) => {
      if (predicate && !predicate(obj, old)) return;
      enqueueAll(map(obj));
      enqueueAll(map(old));
    });
    informer.on('delete', (obj) => enqueueAll(map(obj)));
    this.informers.push(informer);
    return this;
  }

  /** Informers registered with `watches` (the manager waits for them to sync). */
  watchedInformers(): readonly Informer<KubeObject>[] {
    return this.informers;
  }

  /** Starts the workers. Calling it twice is a no-op. */
  start(): void {
    if (this.workers.length > 0) return;
    const n = Math.max(1, this.o.maxConcurrentReconciles ?? 1);
    this.workers = Array.from({ length: n }, () => this.work());
  }

  /**
   * Stops taking work and waits up to `timeoutMs` for in-flight reconciles to finish. Returns
   * false when they did not finish in time; their signal is then aborted and they are abandoned.
   */
  async stop(timeoutMs: number): Promise<boolean> {
    this.queue.shutDown();
    let cancel = (): void => undefined;
    const timedOut = new Promise<false>((resolve) => {
      cancel = this.clock.setTimeout(() => resolve(false), timeoutMs);
    });
    const finished = await Promise.race([this.queue.drain().then(() => true as const), timedOut]);
    cancel();
    this.abort.abort(new Error(`controller ${this.name} stopped`));
    if (finished) await Promise.all(this.workers);
    return finished;
  }

  private async work(): Promise<void> {
    for (let key = await this.queue.get(); key !== undefined; key = await this.queue.get()) {
      await this.process(key);
    }
  }

  private async process(key: string): Promise<void> {
    const request = parseRequestKey(key);
    const log = reconcileLogger(this.o.log, { controller: this.name, kind: this.kind, ...request });
    const started = this.clock.now();
    let label: ReconcileResultLabel;
    try {
      const result = await this.o.reconciler(request, { signal: this.abort.signal, log });
      label = this.onSuccess(key, result, log);
    } catch (error) {
      label = this.onError(key, error, log);
    } finally {
      this.queue.done(key);
    }
    this.o.metrics?.observeReconcile(this.name, this.kind, label, this.clock.now() - started);
  }

  private onSuccess(key: string, result: Result, log: Logger): ReconcileResultLabel {
    this.queue.forget(key);
    const after = result.requeueAfterMs;
    if (after !== undefined && after > 0) {
      this.queue.addAfter(key, after, result.requeueBeforeMs);
      log.debug(
        { requeueAfterMs: after, requeueBeforeMs: result.requeueBeforeMs },
        'reconciled; requeue scheduled',
      );
      return 'requeue_after';
    }
    log.debug('reconciled');
    return 'success';
  }

  private onError(key: string, error: unknown, log: Logger): ReconcileResultLabel {
    const reason = error instanceof ReconcileError ? error.reason : undefined;
    const message = error instanceof Error ? error.message : String(error);
    switch (classifyError(error)) {
      case 'terminal':
        this.queue.forget(key);
        log.info({ reason, error: message }, 'reconcile stopped until the object changes');
        return 'terminal';
      case 'waiting': {
        const after = error instanceof WaitingError ? error.requeueAfterMs : defaultWaitingRequeueMs;
        this.queue.forget(key);
        this.queue.addAfter(key, after);
        log.debug({ reason, error: message, requeueAfterMs: after }, 'waiting');
        return 'waiting';
      }
      case 'rateLimited': {
        const after = error instanceof RateLimitedError ? error.retryAfterMs : this.queue.addRateLimited(key);
        this.queue.addAfter(key, after);
        log.info({ reason, retryAfterMs: after }, 'rate limited by the service; retrying later');
        return 'rate_limited';
      }
      case 'conflict':
        this.queue.addRateLimited(key);
        log.debug({ error: message }, 'write conflict; requeued');
        return 'conflict';
      case 'transient': {
        const retryInMs = this.queue.addRateLimited(key);
        log.error(
          { reason, err: error, retries: this.queue.numRequeues(key), retryInMs },
          'reconcile failed',
        );
        return 'transient';
      }
    }
  }
}
