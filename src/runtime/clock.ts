/**
 * Time as a dependency, so queues, backoff and leader election can be tested without waiting.
 * Production code uses `systemClock`; tests use `ManualClock` and move time by hand.
 */

/** Cancels a scheduled callback; calling it after the callback ran is harmless. */
export type CancelTimer = () => void;

export interface Clock {
  /** Milliseconds since an arbitrary origin; only differences are meaningful. */
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

interface ManualTimer {
  readonly due: number;
  readonly seq: number;
  readonly fn: () => void;
}

/** A clock that only moves when `advance` is called; due timers then run in due-time order. */
export class ManualClock implements Clock {
  private current: number;
  private seq = 0;
  private timers: ManualTimer[] = [];

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): CancelTimer {
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

  private nextDue(limit: number): ManualTimer | undefined {
    let best: ManualTimer | undefined;
    for (const t of this.timers) {
      if (t.due <= limit && (!best || t.due < best.due || (t.due === best.due && t.seq < best.seq))) best = t;
    }
    return best;
  }
}
