/**
 * Error classes that decide how a failed reconcile is retried. Each class has one handling:
 *
 * | class        | example                          | handling                                         |
 * |--------------|----------------------------------|--------------------------------------------------|
 * | terminal     | invalid spec, service 400/422    | condition, Warning event; no retry until the     |
 * |              |                                  | object changes                                   |
 * | waiting      | a referenced object is not Ready | fixed requeue, no error log                      |
 * | rate-limited | service 429                      | requeue after the server's Retry-After           |
 * | conflict     | Kubernetes 409 on write          | silent immediate requeue                         |
 * | transient    | 5xx, network, timeout            | per-key exponential backoff                      |
 *
 * Anything that is not one of these classes is treated as transient.
 *
 * A reason is a declared {@link Reason} (see `reasons.ts`): an undeclared one does not compile.
 */
import type { Reason } from './reasons.ts';

export type ErrorClass = 'terminal' | 'waiting' | 'rateLimited' | 'conflict' | 'transient';

/** Base class carrying a stable, CamelCase `reason` for conditions and events. */
export abstract class ReconcileError extends Error {
  abstract readonly errorClass: ErrorClass;
  readonly reason: Reason;
  constructor(reason: Reason, message: string, options?: ErrorOptions) {
    super(message, options);
    this.reason = reason;
    this.name = new.target.name;
  }
}

/** Retrying cannot help until the user changes something (spec, referenced object). */
export class TerminalError extends ReconcileError {
  readonly errorClass = 'terminal';
}

/** A dependency is not ready yet; try again after `requeueAfterMs` without logging an error. */
export class WaitingError extends ReconcileError {
  readonly errorClass = 'waiting';
  readonly requeueAfterMs: number;
  constructor(reason: Reason, message: string, requeueAfterMs: number, options?: ErrorOptions) {
    super(reason, message, options);
    this.requeueAfterMs = requeueAfterMs;
  }
}

/** The service asked us to slow down; retry after `retryAfterMs`. */
export class RateLimitedError extends ReconcileError {
  readonly errorClass = 'rateLimited';
  readonly retryAfterMs: number;
  constructor(reason: Reason, message: string, retryAfterMs: number, options?: ErrorOptions) {
    super(reason, message, options);
    this.retryAfterMs = retryAfterMs;
  }
}

/** A Kubernetes write lost an optimistic-concurrency race (HTTP 409); requeue at once, silently. */
export class ConflictError extends ReconcileError {
  readonly errorClass = 'conflict';
}

/** Something that may succeed on retry (5xx, network, timeout); back off per key. */
export class TransientError extends ReconcileError {
  readonly errorClass = 'transient';
}

/** Classifies any thrown value. Kubernetes client 409s count as conflicts. */
export function classifyError(error: unknown): ErrorClass {
  if (error instanceof ReconcileError) return error.errorClass;
  if (isKubernetesConflict(error)) return 'conflict';
  return 'transient';
}

/** True for a @kubernetes/client-node ApiException (or similar) with HTTP status 409. */
export function isKubernetesConflict(error: unknown): boolean {
  return kubernetesStatus(error) === 409;
}

/** The HTTP status of a Kubernetes client error, when it has one. */
export function kubernetesStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code =
    (error as { code?: unknown; statusCode?: unknown }).code ??
    (error as { statusCode?: unknown }).statusCode;
  return typeof code === 'number' ? code : undefined;
}
