// A controllable `Clock` for tests of code built on the client (retries, renewals, the rate
// limiter): time moves only when the test says so, or on every sleep with `autoAdvance`.
import type { Clock } from './clock.ts';

interface Waiter {
  at: number;
  resolve: () => void;
}

/** Fake time starting at `start`; `sleeps` records every requested sleep in ms. */
export class FakeClock implements Clock {
  readonly sleeps: number[] = [];
  private t: number;
  private readonly autoAdvance: boolean;
  private waiters: Waiter[] = [];

  /** With `autoAdvance`, a sleep moves time forward by its length and resolves at once. */
  constructor(options: { start?: number; autoAdvance?: boolean } = {}) {
    this.t = options.start ?? 1_700_000_000_000;
    this.autoAdvance = options.autoAdvance ?? false;
  }

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.autoAdvance) {
      this.t += ms;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { at: this.t + ms, resolve };
      this.waiters.push(waiter);
      signal?.addEventListener(
        'abort',
        () => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          reject(signal.reason as Error);
        },
        { once: true },
      );
    });
  }

  /** Number of sleeps not yet due. */
  get pending(): number {
    return this.waiters.length;
  }

  /** Moves time forward and wakes every sleeper whose deadline passed, earliest first. */
  advance(ms: number): void {
    this.t += ms;
    const due = this.waiters.filter((w) => w.at <= this.t).sort((a, b) => a.at - b.at);
    this.waiters = this.waiters.filter((w) => w.at > this.t);
    for (const w of due) w.resolve();
  }
}
