/**
 * Per-route rate limiting (off unless configured).
 */
import type { RateDecision } from './http/pipeline.ts';
import type { RateBucket } from './http/types.ts';

/** Requests per minute per client IP for each bucket; an omitted bucket is unlimited. */
export interface RateLimitOptions {
  read?: number;
  write?: number;
  secrets?: number;
}

export function createRateLimit(
  options: RateLimitOptions,
  now: () => number,
): (ip: string, bucket: RateBucket) => RateDecision {
  const windows = new Map<string, { start: number; count: number }>();
  return (ip, bucket): RateDecision => {
    const limit = options[bucket];
    if (!limit) return { allowed: true, headers: {}, retryAfterSeconds: 0 };
    const t = now();
    const start = Math.floor(t / 60_000) * 60_000;
    const key = `${bucket}:${ip}`;
    let w = windows.get(key);
    if (!w || w.start !== start) {
      w = { start, count: 0 };
      windows.set(key, w);
    }
    w.count++;
    const reset = Math.max(1, Math.ceil((start + 60_000 - t) / 1000));
    return {
      allowed: w.count <= limit,
      headers: {
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(Math.max(0, limit - w.count)),
        'x-ratelimit-reset': String(reset),
      },
      retryAfterSeconds: reset,
    };
  };
}
