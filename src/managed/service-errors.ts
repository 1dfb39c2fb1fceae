/**
 * Maps errors thrown by adapters to the runtime's reconcile error classes. The service client
 * classified each answer once into a kind (`serviceErrorKind`, `src/client/error-kinds.ts`); this
 * is the one place those kinds become reconcile classes and condition reasons:
 *
 * | kind (service answer)                   | class        | condition reason                   |
 * |-----------------------------------------|--------------|------------------------------------|
 * | `invalid` (400, 422)                    | terminal     | `Rejected` (service's message)     |
 * | `unauthorized` (401)                    | waiting      | `Unauthorized` (retry each poll)   |
 * | `forbidden` (403)                       | waiting      | `Forbidden` (retry each poll)      |
 * | `deletion-blocked`                      | waiting      | `DeletionBlocked` (retry each poll)|
 * | `not-found` (on anything but delete)    | terminal     | `NotFound`                         |
 * | `conflict` (409)                        | terminal     | `AlreadyExists`                    |
 * | `too-large` (413)                       | terminal     | `TooLarge` (what to do about it)   |
 * | `rate-limited` (429)                    | rate-limited | `RateLimited` (Retry-After)        |
 * | `rejected` (405, 410, 415, ...)         | terminal     | `Rejected` (the status named)      |
 * | `unavailable` (5xx, 408)                | transient    | `ServiceUnavailable`               |
 * | `unreachable` (no response, timeout)    | transient    | `ServiceUnreachable`               |
 * | anything else (not a service error)     | transient    | `ReconcileError`                   |
 *
 * A 4xx says the request itself is wrong, so sending it again cannot help: only 5xx, 408,
 * timeouts and connection failures are retried with backoff. Terminal errors wait for the
 * resource to change (a new generation, or a watched source such as a Secret).
 * 401/403 are "waiting" rather than terminal because they are fixed outside the resource (a
 * rotated credential, a granted permission): retrying once per poll interval notices that
 * without a hot loop. Errors that are already `ReconcileError`s pass through unchanged.
 */
import {
  isRefusal,
  RateLimitedError as ServiceRateLimitedError,
  ServiceError,
  serviceErrorKind,
  type ServiceErrorKind,
} from '../client/index.ts';
import {
  kubernetesStatus,
  RateLimitedError,
  ReconcileError,
  TerminalError,
  TransientError,
  WaitingError,
} from '../runtime/errors.ts';
import type { Reason } from '../runtime/reasons.ts';
import { commonReasons } from '../runtime/common-reasons.ts';
import { managedReasons } from './reasons.ts';

/** Default wait after a 429 without Retry-After. */
export const defaultRetryAfterMs = 30_000;

/** A short, stable description: the status and the service's message when available. */
export function describeError(error: unknown): string {
  if (error instanceof ServiceError) {
    return error.status > 0 ? `service answered ${error.status}: ${error.serviceMessage}` : error.message;
  }
  const kubeStatus = kubernetesStatus(error);
  if (kubeStatus !== undefined) return `Kubernetes API answered ${kubeStatus}: ${kubernetesMessage(error)}`;
  return error instanceof Error ? error.message : String(error);
}

/** The `message` of a Kubernetes Status body, without headers or request details. */
function kubernetesMessage(error: unknown): string {
  const body = (error as { body?: unknown }).body;
  try {
    const parsed: unknown = typeof body === 'string' ? JSON.parse(body) : body;
    const message = (parsed as { message?: unknown } | null)?.message;
    if (typeof message === 'string') return message;
  } catch {
    // Not JSON: fall through to the generic text.
  }
  return 'request failed';
}

/** Condition reason for a request the service refused as too large (413). */
export const TOO_LARGE = managedReasons.names.TooLarge;

/** What the user can do about a 413, appended to its message. */
const tooLargeHint =
  "the request is larger than the service's body limit (1 MiB by default); split the data " +
  'across several resources (e.g. several SecretBatches) or shorten the largest values';

/** Kinds fixed outside the resource (a credential, a permission, a protection): retried each poll. */
const waitingReasons: Partial<Readonly<Record<ServiceErrorKind, Reason>>> = {
  unauthorized: managedReasons.names.Unauthorized,
  forbidden: managedReasons.names.Forbidden,
  'deletion-blocked': managedReasons.names.DeletionBlocked,
};

/** Kinds where sending the same request again cannot help: they wait for the resource to change. */
const terminalReasons: Partial<Readonly<Record<ServiceErrorKind, Reason>>> = {
  invalid: managedReasons.names.Rejected,
  'not-found': managedReasons.names.NotFound,
  conflict: managedReasons.names.AlreadyExists,
  'too-large': TOO_LARGE,
  rejected: managedReasons.names.Rejected,
};

const transientReasons: Partial<Readonly<Record<ServiceErrorKind, Reason>>> = {
  unavailable: managedReasons.names.ServiceUnavailable,
  unreachable: managedReasons.names.ServiceUnreachable,
};

/**
 * Maps any error thrown while `action`-ing (e.g. "create external object") to a ReconcileError
 * whose message reads `cannot <action>: <cause>`. `pollIntervalMs` is the requeue for 401/403.
 */
export function classifyServiceError(error: unknown, action: string, pollIntervalMs: number): ReconcileError {
  if (error instanceof ReconcileError) return error;
  const message = `cannot ${action}: ${describeError(error)}`;
  const options = { cause: error };
  const kind = serviceErrorKind(error);
  if (kind === undefined) return new TransientError(commonReasons.names.ReconcileError, message, options);
  if (kind === 'rate-limited') {
    const retry = error instanceof ServiceRateLimitedError ? error.retryAfterMs : undefined;
    const retryAfterMs = retry !== undefined && retry >= 0 ? retry : defaultRetryAfterMs;
    return new RateLimitedError(managedReasons.names.RateLimited, message, retryAfterMs, options);
  }
  const waiting = waitingReasons[kind];
  if (waiting) return new WaitingError(waiting, message, pollIntervalMs, options);
  const terminal = terminalReasons[kind];
  if (terminal) {
    return new TerminalError(
      terminal,
      kind === 'too-large' ? `${message} (${tooLargeHint})` : message,
      options,
    );
  }
  return new TransientError(
    transientReasons[kind] ?? managedReasons.names.ServiceUnavailable,
    message,
    options,
  );
}

/**
 * True when an error means the service definitely did not perform a write (it answered 4xx other
 * than 408, or the adapter refused before calling). After such a create failure the
 * create-pending mark can be cleared; after anything else the object may exist.
 */
export function definitelyNotPerformed(error: unknown): boolean {
  if (error instanceof ReconcileError)
    return error.errorClass !== 'transient' && error.errorClass !== 'conflict';
  return isRefusal(error);
}
