/**
 * Classifies errors thrown by adapters into the runtime's reconcile error classes. Service-client
 * errors are recognised by duck-typing (a numeric HTTP `status`, 0 when no response arrived, and
 * `retryAfterMs` on 429), so this module does not depend on `src/client`.
 *
 * | service answer                     | class        | condition reason                   |
 * |------------------------------------|--------------|------------------------------------|
 * | 400, 422                           | terminal     | `Rejected` (service's message)     |
 * | 401                                | waiting      | `Unauthorized` (retry each poll)   |
 * | 403                                | waiting      | `Forbidden` (retry each poll)      |
 * | 404 (on anything but delete)       | terminal     | `NotFound`                         |
 * | 408                                | transient    | `ServiceUnavailable`               |
 * | 409                                | terminal     | `AlreadyExists`                    |
 * | 413                                | terminal     | `TooLarge` (what to do about it)   |
 * | 429                                | rate-limited | `RateLimited` (Retry-After)        |
 * | any other 4xx (405, 410, 415, ...) | terminal     | `Rejected` (the status named)      |
 * | 5xx                                | transient    | `ServiceUnavailable`               |
 * | no response (0), timeout           | transient    | `ServiceUnreachable`               |
 * | anything else (no HTTP status)     | transient    | `ReconcileError`                   |
 *
 * A 4xx says the request itself is wrong, so sending it again cannot help: only 5xx, 408,
 * timeouts and connection failures are retried with backoff. Terminal errors wait for the
 * resource to change (a new generation, or a watched source such as a Secret).
 * 401/403 are "waiting" rather than terminal because they are fixed outside the resource (a
 * rotated credential, a granted permission): retrying once per poll interval notices that
 * without a hot loop. Errors that are already `ReconcileError`s pass through unchanged.
 */
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

/** Default wait after a 429 without Retry-After. */
export const defaultRetryAfterMs = 30_000;

interface ServiceLike {
  readonly status: number;
  readonly message: string;
  readonly serviceMessage?: unknown;
  readonly retryAfterMs?: unknown;
}

/** True for an error carrying a numeric HTTP `status` (the service client's errors). */
export function isServiceError(error: unknown): error is ServiceLike {
  return error instanceof Error && typeof (error as { status?: unknown }).status === 'number';
}

/** The HTTP status of a service error, if it is one. */
export function serviceStatus(error: unknown): number | undefined {
  return isServiceError(error) ? error.status : undefined;
}

/** A short, stable description: the status and the service's message when available. */
export function describeError(error: unknown): string {
  if (isServiceError(error)) {
    const own = typeof error.serviceMessage === 'string' ? error.serviceMessage : undefined;
    if (own !== undefined && error.status > 0) return `service answered ${error.status}: ${own}`;
    return error.message;
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
export const TOO_LARGE = commonReasons.names.TooLarge;

/** Terminal reasons by status; any other 4xx (but 401, 403, 408, 429) is `Rejected`. */
const terminalReasons: Readonly<Record<number, Reason>> = {
  400: commonReasons.names.Rejected,
  404: commonReasons.names.NotFound,
  409: commonReasons.names.AlreadyExists,
  413: TOO_LARGE,
  422: commonReasons.names.Rejected,
};

/** What the user can do about a 413, appended to its message. */
const tooLargeHint =
  "the request is larger than the service's body limit (1 MiB by default); split the data " +
  'across several resources (e.g. several SecretBatches) or shorten the largest values';

function clientErrorMessage(status: number, message: string): string {
  return status === 413 ? `${message} (${tooLargeHint})` : message;
}

function isClientError(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408;
}

const waitingReasons: Readonly<Record<number, Reason>> = {
  401: commonReasons.names.Unauthorized,
  403: commonReasons.names.Forbidden,
};

/**
 * Maps any error thrown while `action`-ing (e.g. "create external object") to a ReconcileError
 * whose message reads `cannot <action>: <cause>`. `pollIntervalMs` is the requeue for 401/403.
 */
export function classifyServiceError(error: unknown, action: string, pollIntervalMs: number): ReconcileError {
  if (error instanceof ReconcileError) return error;
  const message = `cannot ${action}: ${describeError(error)}`;
  const options = { cause: error };
  const status = serviceStatus(error);
  if (status === undefined) return new TransientError(commonReasons.names.ReconcileError, message, options);
  if (status === 429) {
    const retry = (error as ServiceLike).retryAfterMs;
    const retryAfterMs = typeof retry === 'number' && retry >= 0 ? retry : defaultRetryAfterMs;
    return new RateLimitedError(commonReasons.names.RateLimited, message, retryAfterMs, options);
  }
  const waiting = waitingReasons[status];
  if (waiting) return new WaitingError(waiting, message, pollIntervalMs, options);
  if (isClientError(status)) {
    const reason = terminalReasons[status] ?? commonReasons.names.Rejected;
    return new TerminalError(reason, clientErrorMessage(status, message), options);
  }
  if (status === 0) return new TransientError(commonReasons.names.ServiceUnreachable, message, options);
  return new TransientError(commonReasons.names.ServiceUnavailable, message, options);
}

/**
 * True when an error means the service definitely did not perform a write (it answered 4xx other
 * than 408, or the adapter refused before calling). After such a create failure the
 * create-pending mark can be cleared; after anything else the object may exist.
 */
export function definitelyNotPerformed(error: unknown): boolean {
  if (error instanceof ReconcileError)
    return error.errorClass !== 'transient' && error.errorClass !== 'conflict';
  const status = serviceStatus(error);
  return status !== undefined && status >= 400 && status < 500 && status !== 408;
}

const deletionProtectionPattern = /delet\w*[\s-]+protect|protected from delet/i;

/** Default deletion-protection detection: a 400/403/409 whose message mentions delete protection. */
export function isDeletionProtectionError(error: unknown): boolean {
  const status = serviceStatus(error);
  if (status !== 400 && status !== 403 && status !== 409) return false;
  return deletionProtectionPattern.test(describeError(error));
}
