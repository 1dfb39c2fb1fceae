/**
 * Per-route rate limiting (off unless configured): the domain's per-minute fixed windows per
 * client IP and bucket, turned into the pipeline's decision with the `x-ratelimit-*` headers.
 */
import { RateLimiter } from './domain/rate-limiter.ts';
import type { RateDecision } from './http/pipeline.ts';
import type { RateBucket } from './http/types.ts';

/** Requests per minute per client IP for each bucket; an omitted bucket is unlimited. */
export interface RateLimitOptions {
  read?: number;
  write?: number;
  secrets?: number;
}

/** The pipeline's rate check for `options`, on the server clock. */
export function createRateLimit(
  options: RateLimitOptions,
  now: () => number,
): (ip: string, bucket: RateBucket) => RateDecision {
  const limits = Object.fromEntries(
    Object.entries(options).filter(([, v]) => typeof v === 'number' && v > 0),
  );
  const limiter = new RateLimiter({ limits, now });
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
