/**
 * Time as a dependency, so queues, backoff, leader election and the service client's retries,
 * renewals and rate limiter can be tested without waiting. The one clock of the code base:
 * production code uses `systemClock`; tests use `ManualClock` and move time by hand (or let every
 * timer fire at once with `autoAdvance`).
 */

/** Cancels a scheduled callback; calling it after the callback ran is harmless. */
export type CancelTimer = () => void;

export interface Clock {
  /** Milliseconds since the epoch (`systemClock`) or the test's origin (`ManualClock`). */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds. Timers never keep the process alive on their own. */
  setTimeout(fn: () => void, ms: number): CancelTimer;
}

/** Wall-clock time (`Date.now`) and unref'd Node timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const timer = setTimeout(fn, Math.max(0, ms));
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** Resolves after `ms` on `clock`, or at once when `signal` is (or becomes) aborted; never rejects. */
export function sleepOn(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      cancel();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const cancel = clock.setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Resolves after `ms` on `clock`; rejects with the signal's reason when `signal` is (or becomes)
 * aborted first. The timer is cancelled either way.
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = (): void => {
      cancel();
      reject(signal?.reason as Error);
    };
    const cancel = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Options of a `ManualClock`. */
export interface ManualClockOptions {
  /** The time it starts at (default 0). */
  readonly start?: number;
  /**
   * Every timer moves time forward by its delay and fires at once (on a microtask), so code that
   * sleeps runs through without a test advancing it; `delays` shows what it waited.
   */
  readonly autoAdvance?: boolean;
}

interface ManualTimer {
  readonly due: number;
  readonly seq: number;
  readonly fn: () => void;
}

/** A clock that only moves when `advance` is called; due timers then run in due-time order. */
export class ManualClock implements Clock {
  /** The delay of every timer set, in order (what the code under test waited or would wait). */
  readonly delays: number[] = [];
  private current: number;
  private readonly autoAdvance: boolean;
  private seq = 0;
  private timers: ManualTimer[] = [];

  /** `options` may be just the start time. */
  constructor(options: number | ManualClockOptions = 0) {
    const { start = 0, autoAdvance = false } = typeof options === 'number' ? { start: options } : options;
    this.current = start;
    this.autoAdvance = autoAdvance;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): CancelTimer {
    this.delays.push(ms);
    if (this.autoAdvance) return this.fireAtOnce(fn, ms);
    const timer = { due: this.current + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Number of timers not yet run or cancelled. */
  pending(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, running every timer that falls due (including ones they add). */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const next = this.nextDue(target);
      if (!next) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.current = next.due;
      next.fn();
    }
    this.current = target;
  }

  private fireAtOnce(fn: () => void, ms: number): CancelTimer {
    this.current += Math.max(0, ms);
    let cancelled = false;
    queueMicrotask(() => {
      if (!cancelled) fn();
    });
    return () => {
      cancelled = true;
    };
  }

  private nextDue(limit: number): ManualTimer | undefined {
    let best: ManualTimer | undefined;
    for (const t of this.timers) {
      if (t.due <= limit && (!best || t.due < best.due || (t.due === best.due && t.seq < best.seq))) best = t;
    }
    return best;
  }
}
