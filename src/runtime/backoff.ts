/**
 * Exponential backoff, the one of the code base: retry number `attempt` (0-based) waits about
 * `baseMs * 2^attempt`, never more than `maxMs`, with jitter so retries of many callers that
 * failed together (for example while the service was down) do not come back as one burst.
 *
 * - `ExponentialBackoff`: per-key failure counts for failed reconciles and list/watch restarts,
 *   jitter of ±a fraction of the delay; `forget` (after a success) starts a key over.
 * - `fullJitterDelay`: uniform in [0, delay), for the service client's request retries.
 */

/** The delay of retry `attempt` (0-based) before jitter: `baseMs * 2^attempt`, capped at `maxMs`. */
export function exponentialDelay(attempt: number, baseMs: number, maxMs: number): number {
  // Beyond 2^40 the cap has long been reached; stop growing the exponent to avoid Infinity.
  return Math.min(baseMs * 2 ** Math.min(attempt, 40), maxMs);
}

/** "Full jitter": a whole number of ms uniform in [0, exponentialDelay(...)). */
export function fullJitterDelay(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: () => number,
): number {
  return Math.floor(random() * exponentialDelay(attempt, baseMs, maxMs));
}

export interface BackoffOptions {
  /** Delay of the first retry (default 5 ms, as controller-runtime). */
  readonly baseMs?: number;
  /** Upper bound of any delay (default 5 minutes). */
  readonly maxMs?: number;
  /** Fraction of the delay added or removed at random: 0.1 means ±10 % (default 0.1). */
  readonly jitter?: number;
  /** Source of randomness in [0, 1); injectable for tests. */
  readonly random?: () => number;
}

export const defaultBackoff = { baseMs: 5, maxMs: 300_000, jitter: 0.1 } as const;

export class ExponentialBackoff {
  private readonly failures = new Map<string, number>();
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly jitter: number;
  private readonly random: () => number;

  constructor(options: BackoffOptions = {}) {
    this.baseMs = options.baseMs ?? defaultBackoff.baseMs;
    this.maxMs = options.maxMs ?? defaultBackoff.maxMs;
    this.jitter = options.jitter ?? defaultBackoff.jitter;
    this.random = options.random ?? Math.random;
  }

  /** Records one more failure of `key` and returns how long to wait before retrying it. */
  next(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    const raw = exponentialDelay(n, this.baseMs, this.maxMs);
    const jittered = raw * (1 + this.jitter * (2 * this.random() - 1));
    return Math.min(Math.max(0, Math.round(jittered)), this.maxMs);
  }

  /** Consecutive failures recorded for `key` since the last `forget`. */
  retries(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** Clears the failure count of `key` (after a successful reconcile or when it is deleted). */
  forget(key: string): void {
    this.failures.delete(key);
  }
}
