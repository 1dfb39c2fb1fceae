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
 * - **three priorities**: first keys with a deadline (`addAfter` with `beforeMs`: a lease must be
 *   renewed before it expires), once their delay has passed and while their deadline is ahead,
 *   earliest deadline first; then keys added now (`add`: a watch event, an event from the
 *   service); then keys whose delay passed (polls, retries). So a change is not stuck behind a
 *   backlog of polls when the operator is saturated, and a deadline is not missed behind either;
 *   a key whose deadline passed before it was handed out joins the keys added now (it is overdue,
 *   and no longer ahead of changes). A waiting key that
 *   is added with a higher priority moves up (still held once). Within the last two priorities,
 *   keys leave in the order they came;
 * - **rate-limited adds** (`addRateLimited`): the delay is the larger of the key's exponential
 *   backoff and a reservation on the shared token bucket; `forget` resets the key's backoff;
 * - **shutdown**: `shutDown` stops handing out work (pending and future `get` calls resolve to
 *   `undefined`, adds are ignored); `drain` waits until in-flight keys are `done`.
 */
import { ExponentialBackoff, type BackoffOptions } from './backoff.ts';
import { systemClock, type CancelTimer, type Clock } from './clock.ts';
import { DelayHeap } from './delay-heap.ts';
import { TokenBucket } from './token-bucket.ts';

/** The longest delay a Node timer honours (about 24.8 days). */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;
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
  /** Number of keys handed out by `get` and not yet `done` (reported whenever it changes). */
  inFlight?(count: number): void;
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
  /** The deadline (clock ms) of each key scheduled or queued with one, until it is handed out. */
  private readonly deadlines = new Map<string, number>();
  /** Keys ready to hand out, by priority (see {@link FifoLane}, {@link DeadlineLane}). */
  private readonly beforeDeadline = new DeadlineLane((key) => this.deadlines.get(key) ?? 0);
  private readonly urgent = new FifoLane();
  private readonly routine = new FifoLane();
  /** The lane each dirty key is (or, while processing, will be) queued in. */
  private readonly laneOf = new Map<string, Lane>();
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

  /** Marks `key` as needing a reconcile now, ahead of delayed keys. Ignored after `shutDown`. */
  add(key: string): void {
    this.enqueue(key, this.urgent);
  }

  private enqueue(key: string, lane: Lane): void {
    if (this.shuttingDown) return;
    this.hooks.added?.();
    if (this.dirty.has(key)) {
      // Already waiting: only a move up to a higher lane changes anything.
      if (this.rank(lane) > this.rank(this.laneOf.get(key))) this.place(key, lane);
      return;
    }
    this.dirty.set(key, this.clock.now());
    if (this.processing.has(key)) {
      this.laneOf.set(key, lane);
      return;
    }
    this.place(key, lane);
  }

  /** Queues `key` in `lane`; an entry left in the other lane is skipped when reached. */
  private place(key: string, lane: Lane): void {
    this.laneOf.set(key, lane);
    if (!this.processing.has(key)) lane.push(key);
    this.reportDepth();
    this.dispatch();
  }

  /**
   * Adds `key` after `delayMs` (at once when `delayMs <= 0`). With `beforeMs`, the run is due
   * before that many ms from now: it goes ahead of other keys until then (the earlier of two
   * deadlines wins). Ignored after `shutDown`.
   */
  addAfter(key: string, delayMs: number, beforeMs?: number): void {
    if (this.shuttingDown) return;
    if (beforeMs !== undefined) {
      const at = this.clock.now() + beforeMs;
      this.deadlines.set(key, Math.min(at, this.deadlines.get(key) ?? at));
    }
    if (delayMs <= 0) {
      this.enqueue(key, this.laneWhenDue(key));
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
    this.hooks.inFlight?.(this.processing.size);
    if (this.dirty.has(key) && !this.shuttingDown) this.place(key, this.laneOf.get(key) ?? this.urgent);
    if (this.processing.size === 0) this.resolveDrain();
  }

  /** Keys waiting to be handed out now. */
  len(): number {
    let inFlightAndDirty = 0;
    for (const key of this.processing) if (this.dirty.has(key)) inFlightAndDirty += 1;
    return this.dirty.size - inFlightAndDirty;
  }

  /** Keys handed out and not yet `done`. */
  inFlight(): number {
    return this.processing.size;
  }

  /** Keys waiting for a delay to pass. */
  delayedLen(): number {
    return this.delayed.size;
  }

  /** When (clock ms) the earliest delayed key is due; undefined when none waits (or after `shutDown`). */
  nextDueAt(): number | undefined {
    return this.delayed.peekTime();
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
    this.deadlines.clear();
    this.beforeDeadline.clear();
    this.urgent.clear();
    this.routine.clear();
    this.laneOf.clear();
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
    while (this.waiters.length > 0) {
      const key = this.nextBeforeDeadline() ?? this.next(this.urgent) ?? this.next(this.routine);
      if (key === undefined) break;
      const addedAt = this.dirty.get(key) ?? this.clock.now();
      this.dirty.delete(key);
      this.laneOf.delete(key);
      this.deadlines.delete(key);
      this.processing.add(key);
      this.hooks.inFlight?.(this.processing.size);
      this.hooks.queueWait?.(this.clock.now() - addedAt);
      this.waiters.shift()!(key);
    }
    this.reportDepth();
  }

  /** The key with the earliest deadline still ahead; keys whose deadline passed join the changes. */
  private nextBeforeDeadline(): string | undefined {
    const now = this.clock.now();
    for (let key = this.next(this.beforeDeadline); key !== undefined; key = this.next(this.beforeDeadline)) {
      if ((this.deadlines.get(key) ?? 0) > now) return key;
      this.deadlines.delete(key);
      this.laneOf.set(key, this.urgent);
      this.urgent.push(key);
    }
    return undefined;
  }

  /**
   * The lane a key whose delay has passed joins: by its deadline when one is ahead, with the
   * changes when its deadline has passed (overdue work is a change: a lease has lapsed), else
   * with the polls.
   */
  private laneWhenDue(key: string): Lane {
    const deadline = this.deadlines.get(key);
    if (deadline === undefined) return this.routine;
    if (deadline > this.clock.now()) return this.beforeDeadline;
    this.deadlines.delete(key);
    return this.urgent;
  }

  private rank(lane: Lane | undefined): number {
    if (lane === this.beforeDeadline) return 3;
    if (lane === this.urgent) return 2;
    return lane === this.routine ? 1 : 0;
  }

  /** The next key of `lane` that is still waiting there (stale entries are dropped). */
  private next(lane: Lane): string | undefined {
    for (let key = lane.shift(); key !== undefined; key = lane.shift()) {
      if (this.laneOf.get(key) === lane && this.dirty.has(key) && !this.processing.has(key)) return key;
    }
    return undefined;
  }

  private armDelayTimer(): void {
    const at = this.delayed.peekTime();
    if (at === undefined || (this.delayTimer && this.delayTimer.at <= at)) return;
    this.delayTimer?.cancel();
    // Node fires a delay over 2^31-1 ms after 1 ms: wait at most that long, then re-arm.
    const delay = Math.min(at - this.clock.now(), MAX_TIMER_DELAY_MS);
    const cancel = this.clock.setTimeout(() => this.onDelayTimer(), delay);
    this.delayTimer = { at, cancel };
  }

  private onDelayTimer(): void {
    this.delayTimer = undefined;
    for (const key of this.delayed.popDue(this.clock.now())) this.enqueue(key, this.laneWhenDue(key));
    this.armDelayTimer();
  }

  private resolveDrain(): void {
    for (const resolve of this.drainWaiters.splice(0)) resolve();
  }

  private reportDepth(): void {
    this.hooks.depth?.(this.len());
  }
}

/** Keys ready to hand out in some order; a key may be left in a lane it moved out of (skipped). */
interface Lane {
  push(key: string): void;
  shift(): string | undefined;
  clear(): void;
}

/** A FIFO of keys; `head` indexes the next one, so taking one is O(1) (compacted as it drains). */
class FifoLane implements Lane {
  private items: string[] = [];
  private head = 0;

  push(key: string): void {
    this.items.push(key);
  }

  shift(): string | undefined {
    if (this.head >= this.items.length) return undefined;
    const key = this.items[this.head++];
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return key;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

/** Keys by deadline, earliest first (a key pushed twice keeps its earlier deadline). */
class DeadlineLane implements Lane {
  private readonly heap = new DelayHeap();
  private readonly deadlineOf: (key: string) => number;

  constructor(deadlineOf: (key: string) => number) {
    this.deadlineOf = deadlineOf;
  }

  push(key: string): void {
    this.heap.schedule(key, this.deadlineOf(key));
  }

  shift(): string | undefined {
    return this.heap.shift();
  }

  clear(): void {
    this.heap.clear();
  }
}
