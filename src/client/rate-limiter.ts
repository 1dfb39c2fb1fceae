// A token bucket shared by every caller of one base URL, so many resources reconciling at
// once cannot stampede a rate-limited service. Callers wait for a token rather than fail.
import { sleep, type Clock } from '../runtime/clock.ts';
import { TokenBucket } from '../runtime/token-bucket.ts';

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
 * The request budget of one connection: a token bucket by reservation (`TokenBucket`, shared
 * with the work queue) refilled at `requestsPerMinute`. A caller whose token is not there yet
 * sleeps until it would have been refilled; an aborted caller gives its reservation back so later
 * callers are not charged for it.
 */
export class BucketRateLimiter implements RateLimiter {
  private readonly clock: Clock;
  private readonly bucket: TokenBucket;

  constructor(options: { requestsPerMinute: number; burst?: number | undefined; clock: Clock }) {
    const { requestsPerMinute: rpm } = options;
    if (!Number.isFinite(rpm) || rpm <= 0) {
      throw new RangeError('cannot create rate limiter: requestsPerMinute must be a positive number');
    }
    this.clock = options.clock;
    const burst = Math.max(1, options.burst ?? Math.ceil(rpm / 60));
    this.bucket = new TokenBucket({ qps: rpm / 60, burst, clock: options.clock });
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const waitMs = this.bucket.reserve();
    if (waitMs === 0) return;
    try {
      await sleep(this.clock, waitMs, signal);
    } catch (err) {
      this.bucket.release();
      throw err;
    }
  }
}

/** The limiter for the given options: a `BucketRateLimiter`, or `unlimited` when no rate is set. */
export function createRateLimiter(options: RateLimitOptions | undefined, clock: Clock): RateLimiter {
  const rpm = options?.requestsPerMinute;
  if (rpm === undefined || rpm === 0 || rpm === Number.POSITIVE_INFINITY) return unlimited;
  return new BucketRateLimiter({ requestsPerMinute: rpm, burst: options?.burst, clock });
}
