/**
 * Typed errors of the service client. Every failure of a client call is a `ServiceError`
 * (or the caller's own abort reason), so callers can classify without parsing messages:
 *
 * | class                     | when |
 * |---------------------------|------|
 * | `InvalidError`            | 400, 422 (zod issues in `issues`), or a body refused locally (`RequestValidationError`) |
 * | `UnauthorizedError`       | 401 (token missing, revoked, or expired identity token) |
 * | `ForbiddenError`          | 403; `isTokenError` when the service said `TokenError` |
 * | `DeletionBlockedError`    | 400, 403 or 409 whose message says the object is protected from deletion |
 * | `NotFoundError`           | 404 |
 * | `AlreadyExistsError`      | 409 (the real service has none; a proxy or another API version may) |
 * | `PayloadTooLargeError`    | 413: the request body exceeds the service's body limit |
 * | `RateLimitedError`        | 429, with `retryAfterMs` |
 * | `ServerError`             | 5xx |
 * | `ServiceError`            | any other status (e.g. 405, 408, 410, 415): the base class itself |
 * | `NetworkError`            | no HTTP answer (refused, reset, DNS) |
 * | `TimeoutError`            | the per-request timeout elapsed |
 * | `ResponseValidationError` | a 2xx answer whose body does not match the schema |
 * | `ApprovalRequiredError`   | a secret write became a change request awaiting approval |
 *
 * Messages carry the operation name, the status and the service's own message; never a
 * token, a client secret, a secret value or a request body. `error-kinds.ts` sorts them into the
 * few kinds callers act on (`serviceErrorKind`, `isNotFound`, ...).
 */

/** One zod issue as reported by the service (422) or by local validation, without input values. */
export interface ValidationIssue {
  code?: string;
  path: (string | number)[];
  message: string;
}

/** Fields shared by every service error. */
export interface ServiceErrorInit {
  operation: string;
  status: number;
  message: string;
  reqId?: string;
  /** The `error` field of the service's error body (e.g. `TokenError`, `PermissionDenied`). */
  errorName?: string;
  details?: unknown;
  cause?: unknown;
  /** The failure was detected locally (nothing was sent): the message does not cite the service. */
  local?: boolean;
}

/** Base class: `status` is the HTTP status, or 0 when no response was received. */
export class ServiceError extends Error {
  readonly operation: string;
  readonly status: number;
  readonly reqId: string | undefined;
  readonly errorName: string | undefined;
  readonly details: unknown;
  /** The service's own message (or a local description), without the operation prefix. */
  readonly serviceMessage: string;

  constructor(init: ServiceErrorInit) {
    const prefix = init.local === true ? '' : describeStatus(init.status);
    super(`cannot call ${init.operation}: ${prefix}${init.message}`, {
      cause: init.cause,
    });
    this.name = new.target.name;
    this.operation = init.operation;
    this.status = init.status;
    this.reqId = init.reqId;
    this.errorName = init.errorName;
    this.details = init.details;
    this.serviceMessage = init.message;
  }
}

function describeStatus(status: number): string {
  return status > 0 ? `service answered ${status}: ` : '';
}

/** 404: the addressed object does not exist (or is not visible to the caller). */
export class NotFoundError extends ServiceError {}

/** 409: the object (or its natural key) already exists. */
export class AlreadyExistsError extends ServiceError {}

/**
 * 413: the request body is larger than the service accepts (its HTTP framework's body limit,
 * 1 MiB by default). Sending the same request again cannot succeed.
 */
export class PayloadTooLargeError extends ServiceError {}

/**
 * A delete the service refused because the object has deletion protection turned on (it answers
 * 400, 403 or 409 depending on the object type, with a message saying so). The object stays until
 * someone turns the protection off.
 */
export class DeletionBlockedError extends ServiceError {}

/** 400 or 422: the service rejected the request; `issues` lists zod issues for 422. */
export class InvalidError extends ServiceError {
  readonly issues: ValidationIssue[];
  constructor(init: ServiceErrorInit & { issues?: ValidationIssue[] }) {
    super(init);
    this.issues = init.issues ?? [];
  }
}

/**
 * The request body or a parameter failed validation before anything was sent. `status` is
 * 422, as if the service had rejected it, so callers need no special case.
 */
export class RequestValidationError extends InvalidError {}

/** 401: no token, or the identity token is unknown, revoked or used up. */
export class UnauthorizedError extends ServiceError {}

/** 403: permission denied; `isTokenError` when the token itself was rejected (expired, malformed). */
export class ForbiddenError extends ServiceError {
  get isTokenError(): boolean {
    return this.errorName === 'TokenError';
  }
}

/** 429: the service's rate limit; wait `retryAfterMs` before the next attempt. */
export class RateLimitedError extends ServiceError {
  readonly retryAfterMs: number | undefined;
  constructor(init: ServiceErrorInit & { retryAfterMs?: number }) {
    super(init);
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** 5xx: the service failed; retrying may help. */
export class ServerError extends ServiceError {}

/** No HTTP response: connection refused or reset, DNS failure, TLS failure. */
export class NetworkError extends ServiceError {
  /** The system or undici error code (e.g. `ECONNREFUSED`), when known. */
  readonly code: string | undefined;
  constructor(init: ServiceErrorInit & { code?: string }) {
    super(init);
    this.code = init.code;
  }
}

/** The per-request timeout elapsed before the response was complete. */
export class TimeoutError extends ServiceError {}

/** A successful status whose body did not match the expected schema (or was not JSON). */
export class ResponseValidationError extends ServiceError {
  readonly issues: ValidationIssue[];
  constructor(init: ServiceErrorInit & { issues?: ValidationIssue[] }) {
    super(init);
    this.issues = init.issues ?? [];
  }
}

/**
 * A secret write was turned into a change request by an approval policy: nothing was
 * written yet. `approvalId` names the pending request.
 */
export class ApprovalRequiredError extends ServiceError {
  readonly approvalId: string;
  constructor(init: ServiceErrorInit & { approvalId: string }) {
    super(init);
    this.approvalId = init.approvalId;
  }
}

/** True for errors where a retry later may succeed (429, 5xx, network, timeout). */
export function isTransientServiceError(err: unknown): boolean {
  return (
    err instanceof RateLimitedError ||
    err instanceof ServerError ||
    err instanceof NetworkError ||
    err instanceof TimeoutError
  );
}
