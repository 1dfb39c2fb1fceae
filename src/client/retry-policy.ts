// The client's retry settings. The delay before retry n (0-based) is the shared full-jitter
// exponential backoff (`src/runtime/backoff.ts`): uniform in [0, min(maxDelayMs, baseDelayMs * 2^n)).
import { fullJitterDelay } from '../runtime/backoff.ts';

/** Retry settings of a client; every field has a default. */
export interface RetryOptions {
  /** Retries after the first attempt (default 3, so at most 4 attempts). */
  retries?: number;
  /** Backoff base (default 200 ms). */
  baseDelayMs?: number;
  /** Backoff cap (default 5 s). */
  maxDelayMs?: number;
  /**
   * Longest server-requested wait (429 `Retry-After`) the client sleeps through itself
   * (default 30 s); a longer wait is returned to the caller as a `RateLimitedError`.
   */
  maxRetryAfterMs?: number;
}

/** `RetryOptions` with defaults applied. */
export type RetryPolicy = Required<RetryOptions>;

export const defaultRetryPolicy: RetryPolicy = {
  retries: 3,
  baseDelayMs: 200,
  maxDelayMs: 5000,
  maxRetryAfterMs: 30_000,
};

/** Applies defaults and rejects nonsensical values. */
export function retryPolicy(options: RetryOptions | undefined): RetryPolicy {
  const policy = { ...defaultRetryPolicy, ...stripUndefined(options ?? {}) };
  for (const [key, value] of Object.entries(policy)) {
    if (!Number.isFinite(value) || value < 0) {
      throw new RangeError(`cannot configure retries: ${key} must be a non-negative number`);
    }
  }
  return policy;
}

function stripUndefined(options: RetryOptions): RetryOptions {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
}

/** The full-jitter delay before retry number `attempt` (0 for the first retry). */
export function backoffDelay(policy: RetryPolicy, attempt: number, random: () => number): number {
  return fullJitterDelay(attempt, policy.baseDelayMs, policy.maxDelayMs, random);
}
