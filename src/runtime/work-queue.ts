/**
 * The work queue between informers and reconcile workers, keyed by `namespace/name`
 * (client-go workqueue semantics):
 *
 * - **dedup**: a key waiting in the queue is held once however often it is added;
 * - **one in flight per key**: a key handed out by `get` is "processing" until `done`; adding it
 *   meanwhile marks it dirty and it is queued again by `done`, so two workers never reconcile
 *   the same object at once and no change is lost;
 * - **delayed adds** (`addAfter`): the key joins the queue when the delay has passed; an earlier
 *   pending time wins over a later one;
 * - **rate-limited adds** (`addRateLimited`): the delay is the larger of the key's exponential
 *   backoff and a reservation on the shared token bucket; `forget` resets the key's backoff;
 * - **shutdown**: `shutDown` stops handing out work (pending and future `get` calls resolve to
 *   `undefined`, adds are ignored); `drain` waits until in-flight keys are `done`.
 */
import { ExponentialBackoff, type BackoffOptions } from './backoff.ts';
import { systemClock, type CancelTimer, type Clock } from './clock.ts';
import { DelayHeap } from './delay-heap.ts';
import { TokenBucket } from './token-bucket.ts';

/** Optional observers for metrics; each is called synchronously and must not throw. */
export interface WorkQueueHooks {
  /** Number of keys waiting to be handed out (not counting delayed or in-flight keys). */
  depth?(depth: number): void;
  /** Time a key spent queued, from its add to the `get` that handed it out. */
  queueWait?(ms: number): void;
  /** Called for every `add` that was not ignored (including adds of keys already queued). */
  added?(): void;
  /** Called for every `addRateLimited`. */
  retried?(): void;
}

export interface WorkQueueOptions {
  /** Per-key backoff for `addRateLimited` (default 5 ms doubling to 5 min, ±10 % jitter). */
  readonly backoff?: BackoffOptions;
  /** Shared bucket for `addRateLimited` (default 10 qps, burst 100). */
  readonly rateLimit?: { readonly qps: number; readonly burst: number };
  readonly clock?: Clock;
  readonly hooks?: WorkQueueHooks;
}

export const defaultRateLimit = { qps: 10, burst: 100 } as const;

export class WorkQueue {
  private readonly clock: Clock;
  private readonly hooks: WorkQueueHooks;
  private readonly backoff: ExponentialBackoff;
  private readonly bucket: TokenBucket;
  private readonly delayed = new DelayHeap();
  private delayTimer: { at: number; cancel: CancelTimer } | undefined;
  /** Keys ready to hand out, in order; `head` is the index of the next one (no O(n) shift). */
  private ready: string[] = [];
  private head = 0;
  /** Keys that need processing: queued, or changed while processing. Value: first add time. */
  private readonly dirty = new Map<string, number>();
  private readonly processing = new Set<string>();
  private waiters: ((key: string | undefined) => void)[] = [];
  private drainWaiters: (() => void)[] = [];
  private shuttingDown = false;

  constructor(options: WorkQueueOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.hooks = options.hooks ?? {};
    this.backoff = new ExponentialBackoff({ ...options.backoff });
    this.bucket = new TokenBucket({ ...(options.rateLimit ?? defaultRateLimit), clock: this.clock });
  }

  /** Marks `key` as needing a reconcile now. Ignored after `shutDown`. */
  add(key: string): void {
    if (this.shuttingDown) return;
    this.hooks.added?.();
    if (this.dirty.has(key)) return;
    this.dirty.set(key, this.clock.now());
    if (this.processing.has(key)) return;
    this.ready.push(key);
    this.reportDepth();
    this.dispatch();
  }

  /** Adds `key` after `delayMs` (at once when `delayMs <= 0`). Ignored after `shutDown`. */
  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    if (this.delayed.schedule(key, this.clock.now() + delayMs)) this.armDelayTimer();
  }

  /** Adds `key` after its next backoff delay (or the shared bucket's wait, if longer); returns that delay. */
  addRateLimited(key: string): number {
    this.hooks.retried?.();
    const delay = Math.max(this.backoff.next(key), this.bucket.reserve());
    this.addAfter(key, delay);
    return delay;
  }

  /** Resets the backoff of `key` (call after a successful reconcile). */
  forget(key: string): void {
    this.backoff.forget(key);
  }

  /** Consecutive rate-limited adds of `key` since the last `forget`. */
  numRequeues(key: string): number {
    return this.backoff.retries(key);
  }

  /**
   * Waits for the next key to process and marks it in flight; the caller must call `done(key)`
   * afterwards. Resolves to `undefined` once the queue is shut down.
   */
  get(): Promise<string | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.dispatch();
    });
  }

  /** Ends processing of `key`; if it was added meanwhile, it is queued again. */
  done(key: string): void {
    if (!this.processing.delete(key)) return;
    if (this.dirty.has(key) && !this.shuttingDown) {
      this.ready.push(key);
      this.reportDepth();
      this.dispatch();
    }
    if (this.processing.size === 0) this.resolveDrain();
  }

  /** Keys waiting to be handed out now. */
  len(): number {
    return this.ready.length - this.head;
  }

  /** Keys handed out and not yet `done`. */
  inFlight(): number {
    return this.processing.size;
  }

  /** Keys waiting for a delay to pass. */
  delayedLen(): number {
    return this.delayed.size;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Stops handing out work and drops queued and delayed keys. In-flight keys may still call `done`. */
  shutDown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    this.delayTimer?.cancel();
    this.delayTimer = undefined;
    this.delayed.clear();
    this.ready = [];
    this.head = 0;
    this.dirty.clear();
    this.reportDepth();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
    if (this.processing.size === 0) this.resolveDrain();
  }

  /** Resolves when no key is in flight (immediately if none is). */
  drain(): Promise<void> {
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private dispatch(): void {
    while (this.waiters.length > 0 && this.head < this.ready.length) {
      const key = this.ready[this.head++]!;
      const addedAt = this.dirty.get(key) ?? this.clock.now();
      this.dirty.delete(key);
      this.processing.add(key);
      this.hooks.queueWait?.(this.clock.now() - addedAt);
      this.waiters.shift()!(key);
    }
    if (this.head > 1024 && this.head * 2 > this.ready.length) {
      this.ready = this.ready.slice(this.head);
      this.head = 0;
    }
    this.reportDepth();
  }

  private armDelayTimer(): void {
    const at = this.delayed.peekTime();
    if (at === undefined || (this.delayTimer && this.delayTimer.at <= at)) return;
    this.delayTimer?.cancel();
    const cancel = this.clock.setTimeout(() => this.onDelayTimer(), at - this.clock.now());
    this.delayTimer = { at, cancel };
  }

  private onDelayTimer(): void {
    this.delayTimer = undefined;
    for (const key of this.delayed.popDue(this.clock.now())) this.add(key);
    this.armDelayTimer();
  }

  private resolveDrain(): void {
    for (const resolve of this.drainWaiters.splice(0)) resolve();
  }

  private reportDepth(): void {
    this.hooks.depth?.(this.len());
  }
}
