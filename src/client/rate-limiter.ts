// A token bucket shared by every caller of one base URL, so many resources reconciling at
// once cannot stampede a rate-limited service. Callers wait for a token rather than fail.
import type { Clock } from './clock.ts';

/** Rate-limit settings; `requestsPerMinute` undefined or 0 means unlimited. */
export interface RateLimitOptions {
  requestsPerMinute?: number;
  /**
   * Tokens that may be spent at once after an idle period (default: one second's worth,
   * at least 1). Keep rpm a little below the service's per-minute limit: a bucket admits up
   * to `burst` requests beyond the steady rate in any minute.
   */
  burst?: number;
}

/** Waits for permission to send one request. */
export interface RateLimiter {
  /** Resolves when a request may be sent; rejects with the signal's reason if it aborts first. */
  acquire(signal?: AbortSignal): Promise<void>;
}

/** A limiter that never waits. */
export const unlimited: RateLimiter = { acquire: () => Promise.resolve() };

/**
 * Token bucket by reservation: each caller takes a token at once, possibly driving the
 * balance negative, and sleeps until its token would have been refilled. Callers are thus
 * served in arrival order without a queue or a timer loop.
 */
export class TokenBucket implements RateLimiter {
  private readonly clock: Clock;
  private readonly ratePerMs: number;
  private readonly capacity: number;
  private tokens: number;
  private last: number;

  constructor(options: { requestsPerMinute: number; burst?: number; clock: Clock }) {
    const { requestsPerMinute: rpm } = options;
    if (!Number.isFinite(rpm) || rpm <= 0) {
      throw new RangeError('cannot create rate limiter: requestsPerMinute must be a positive number');
    }
    this.clock = options.clock;
    this.ratePerMs = rpm / 60_000;
    this.capacity = Math.max(1, options.burst ?? Math.ceil(rpm / 60));
    this.tokens = this.capacity;
    this.last = options.clock.now();
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.refill();
    this.tokens -= 1;
    if (this.tokens >= 0) return;
    const waitMs = Math.ceil(-this.tokens / this.ratePerMs);
    try {
      await this.clock.sleep(waitMs, signal);
    } catch (err) {
      // An aborted caller gives its reservation back so later callers are not charged for it.
      this.tokens += 1;
      throw err;
    }
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    this.tokens = Math.min(this.capacity, this.tokens + elapsed * this.ratePerMs);
  }
}

/** The limiter for the given options: a `TokenBucket`, or `unlimited` when no rate is set. */
export function createRateLimiter(options: RateLimitOptions | undefined, clock: Clock): RateLimiter {
  const rpm = options?.requestsPerMinute;
  if (rpm === undefined || rpm === 0 || rpm === Number.POSITIVE_INFINITY) return unlimited;
  return new TokenBucket({ requestsPerMinute: rpm, burst: options?.burst, clock });
}
