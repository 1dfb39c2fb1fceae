/**
 * Fault injection for tests: added latency, a ratio of requests answered 500/503 in the
 * service's error envelope, and a ratio of connections dropped without an answer.
 */
import { z } from 'zod';
import { ApiError } from './errors.ts';

export const faultOptionsSchema = z.strictObject({
  latencyMs: z.number().int().min(0).max(600_000).optional(),
  errorRatio: z.number().min(0).max(1).optional(),
  dropRatio: z.number().min(0).max(1).optional(),
});

/** Faults applied to every API request (health and admin routes are exempt). */
export type FaultOptions = z.infer<typeof faultOptionsSchema>;

/** The current fault settings plus the random source deciding each request. */
export class FaultInjector {
  private settings: Required<FaultOptions>;
  private readonly random: () => number;

  constructor(initial: FaultOptions = {}, random: () => number = Math.random) {
    this.random = random;
    this.settings = { latencyMs: 0, errorRatio: 0, dropRatio: 0 };
    this.update(initial);
  }

  /** Replaces the given fields; omitted fields keep their value. */
  update(next: FaultOptions): void {
    this.settings = { ...this.settings, ...stripUndefined(next) };
  }

  get current(): Required<FaultOptions> {
    return { ...this.settings };
  }

  /** Resolves after the configured latency (immediately when none). */
  async delay(): Promise<void> {
    const ms = this.settings.latencyMs;
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
  }

  shouldDrop(): boolean {
    return this.settings.dropRatio > 0 && this.random() < this.settings.dropRatio;
  }

  /** The injected server error for this request, if one is drawn. */
  drawError(): ApiError | undefined {
    if (this.settings.errorRatio <= 0 || this.random() >= this.settings.errorRatio) return undefined;
    return this.random() < 0.5
      ? new ApiError(500, 'InternalServerError', 'Something went wrong')
      : new ApiError(503, 'ServiceUnavailable', 'Service temporarily unavailable (injected fault)');
  }
}

function stripUndefined(o: FaultOptions): Partial<Required<FaultOptions>> {
  const out: Partial<Required<FaultOptions>> = {};
  if (o.latencyMs !== undefined) out.latencyMs = o.latencyMs;
  if (o.errorRatio !== undefined) out.errorRatio = o.errorRatio;
  if (o.dropRatio !== undefined) out.dropRatio = o.dropRatio;
  return out;
}
