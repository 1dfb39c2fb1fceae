/**
 * A token bucket that hands out reservations: `reserve()` always succeeds and returns how long
 * the caller must wait before acting, so a burst is smoothed to `qps` after the first `burst`
 * requests (the semantics of Go's `rate.Limiter.Reserve`). Callers are thus served in arrival
 * order without a queue or a timer loop. The one bucket of the code base: the work queue's
 * overall rate and the service client's per-connection request budget (`src/client/rate-limiter.ts`).
 */
import { systemClock, type Clock } from './clock.ts';

export interface TokenBucketOptions {
  /** Sustained rate in requests per second. */
  readonly qps: number;
  /** Requests allowed at once before the rate applies. */
  readonly burst: number;
  readonly clock?: Clock;
}

export class TokenBucket {
  private readonly perMs: number;
  private readonly burst: number;
  private readonly clock: Clock;
  private tokens: number;
  private last: number;

  constructor(options: TokenBucketOptions) {
    if (!(options.qps > 0) || !(options.burst >= 1)) {
      throw new Error(
        `cannot create token bucket: qps must be > 0 and burst >= 1 (got ${options.qps}/${options.burst})`,
      );
    }
    this.perMs = options.qps / 1000;
    this.burst = options.burst;
    this.clock = options.clock ?? systemClock;
    this.tokens = options.burst;
    this.last = this.clock.now();
  }

  /** Takes one token and returns the wait in milliseconds before it may be used (0 if available). */
  reserve(): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + Math.max(0, now - this.last) * this.perMs);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil(-this.tokens / this.perMs);
  }

  /** Gives back the token of a reservation that will not be used (its caller gave up waiting). */
  release(): void {
    this.tokens += 1;
  }
}
