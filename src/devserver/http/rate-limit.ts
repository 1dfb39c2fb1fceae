/**
 * Per-route rate limiting (off unless configured): the domain's per-minute fixed windows per
 * client IP and bucket, turned into the pipeline's decision with the `x-ratelimit-*` headers.
 */
import { RateLimiter } from '../domain/rate-limiter.ts';
import type { RateDecision } from './pipeline.ts';
import type { RateBucket } from './types.ts';

/** Requests per window per client IP for each bucket; an omitted bucket is unlimited. */
export interface RateLimitOptions {
  read?: number;
  write?: number;
  secrets?: number;
  /**
   * The window in ms (default 60,000: the real service's per-minute windows). Tests shorten it so
   * that a storm and its Retry-After play out in seconds.
   */
  windowMs?: number;
}

/** The pipeline's rate check for `options`, on the server clock. */
export function createRateLimit(
  options: RateLimitOptions,
  now: () => number,
): (ip: string, bucket: RateBucket) => RateDecision {
  const { windowMs, ...perBucket } = options;
  const limits = Object.fromEntries(
    Object.entries(perBucket).filter(([, v]) => typeof v === 'number' && v > 0),
  );
  const limiter = new RateLimiter({ limits, now, ...(windowMs ? { windowMs } : {}) });
  return (ip, bucket): RateDecision => {
    const d = limiter.check(bucket, ip);
    if (!Number.isFinite(d.limit)) return { allowed: true, headers: {}, retryAfterSeconds: 0 };
    return {
      allowed: d.allowed,
      headers: {
        'x-ratelimit-limit': String(d.limit),
        'x-ratelimit-remaining': String(d.remaining),
        'x-ratelimit-reset': String(d.resetSeconds),
      },
      retryAfterSeconds: d.retryAfterSeconds,
    };
  };
}
