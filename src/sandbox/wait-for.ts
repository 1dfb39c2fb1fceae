// Polling instead of fixed sleeps: tests wait for a condition, never for a duration.
import { setTimeout as sleep } from 'node:timers/promises';

/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** Give up after this long (default 10 s). */
  readonly timeoutMs?: number;
  /** Pause between attempts (default 100 ms). */
  readonly intervalMs?: number;
  /** What is awaited, for the timeout error ("CRD x to be Established"). */
  readonly message?: string;
}

/**
 * Calls `fn` until it returns a truthy value (which is returned) or the timeout passes. A throw
 * (e.g. a failed `expect` or a 404) counts as "not yet"; on timeout the last error is the cause.
 */
export async function waitFor<T>(
  fn: () => T | Promise<T>,
  options: WaitForOptions = {},
): Promise<NonNullable<T>> {
  const { timeoutMs = 10_000, intervalMs = 100, message = 'condition' } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${message}${reason}`, {
        cause: lastError,
      });
    }
    await sleep(intervalMs);
  }
}
