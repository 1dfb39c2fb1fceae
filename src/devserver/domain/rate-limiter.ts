/**
 * Per-minute request limits the way the service applies them: a fixed window per bucket and
 * client IP that opens with the first request and lasts one minute; once the count passes the
 * bucket's limit, requests fail with 429 "Rate limit exceeded. Please try again in N seconds"
 * until the window ends. Buckets without a configured limit are unlimited. The clock is
 * injectable; expired windows are swept lazily.
 */
import { rateLimitExceeded } from './errors.ts';

/** The service's instance defaults per minute for the buckets the devserver uses. */
export const SERVICE_DEFAULT_LIMITS: Readonly<Record<string, number>> = { read: 60, write: 200, secrets: 60 };

export interface RateLimitDecision {
  allowed: boolean;
  /** The bucket's limit per window (`Infinity` for an unlimited bucket: send no headers). */
  limit: number;
  /** Requests left in the current window (never negative). */
  remaining: number;
  /** Whole seconds until the window resets (`x-ratelimit-reset`). */
  resetSeconds: number;
  /** Whole seconds to wait when refused (`Retry-After`); 0 when allowed. */
  retryAfterSeconds: number;
}

export interface RateLimiterOptions {
  /** Limits per bucket name (requests per window). */
  limits: Readonly<Record<string, number>>;
  windowMs?: number;
  now?: () => number;
}

interface Window {
  start: number;
  count: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly limits: Readonly<Record<string, number>>;
  private readonly windowMs: number;
  private readonly now: () => number;
  private lastSweep: number;

  constructor(options: RateLimiterOptions) {
    this.limits = { ...options.limits };
    this.windowMs = options.windowMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.lastSweep = this.now();
  }

  /** Counts one request of `clientIp` against `bucket` and says whether it may proceed. */
  check(bucket: string, clientIp: string): RateLimitDecision {
    const limit = Object.hasOwn(this.limits, bucket) ? (this.limits[bucket] ?? Infinity) : Infinity;
    if (!Number.isFinite(limit)) {
      return { allowed: true, limit: Infinity, remaining: Infinity, resetSeconds: 0, retryAfterSeconds: 0 };
    }
    const now = this.now();
    this.sweep(now);
    const key = `${bucket}\u0000${clientIp}`;
    let window = this.windows.get(key);
    if (!window || now - window.start >= this.windowMs) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    const resetSeconds = Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000));
    const allowed = window.count <= limit;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - window.count),
      resetSeconds,
      retryAfterSeconds: allowed ? 0 : resetSeconds,
    };
  }

  /** {@link check}, throwing the service's 429 when the request is refused. */
  consume(bucket: string, clientIp: string): RateLimitDecision {
    const decision = this.check(bucket, clientIp);
    if (!decision.allowed) throw rateLimitExceeded(decision.retryAfterSeconds);
    return decision;
  }

  /** Forgets every window. */
  reset(): void {
    this.windows.clear();
  }

  /** Number of live windows (for tests and metrics). */
  get size(): number {
    return this.windows.size;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const [key, window] of this.windows) {
      if (now - window.start >= this.windowMs) this.windows.delete(key);
    }
  }
}

/**
 * Parses `read=N,write=N,secrets=N` (any subset, any bucket names of letters, digits and `-`)
 * into limits; N must be a positive integer. Throws a plain Error naming the bad part.
 */
export function parseRateLimitSpec(spec: string): Record<string, number> {
  const limits: Record<string, number> = {};
  for (const part of spec.split(',').map((p) => p.trim())) {
    if (part === '') continue;
    const match = /^([A-Za-z][A-Za-z0-9-]*)=([1-9]\d*)$/.exec(part);
    if (!match) throw new Error(`cannot parse rate limit "${part}": expected name=positive-integer`);
    limits[match[1] as string] = Number(match[2]);
  }
  return limits;
}
