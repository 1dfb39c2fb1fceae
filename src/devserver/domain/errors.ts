/**
 * The one error type the devserver's domain modules throw. It carries exactly what the HTTP layer
 * needs to render the service's error envelope `{reqId, statusCode, message, error, details?}`:
 *
 * - `status`: the HTTP status (400, 401, 403, 404, 422 or 429; the service has no 409);
 * - `name`: the envelope's `error` value ("BadRequest", "NotFound", "PermissionDenied", ...);
 * - `message`: the envelope's message. For 422 the envelope message is an array of issues: those
 *   are in `issues`, and `message` is only a summary for logs;
 * - `details`: optional envelope `details` (for example the relevant rules of a permission
 *   failure). The service does not forward `details` on 400, so neither should the HTTP layer.
 *
 * Messages never contain secret values or tokens.
 */
export type DomainStatus = 400 | 401 | 403 | 404 | 422 | 429;

/** One validation issue, in the shape zod reports it (path, message, code). */
export interface DomainIssue {
  readonly code: string;
  readonly path: ReadonlyArray<string | number>;
  readonly message: string;
}

export interface DomainErrorInit {
  readonly status: DomainStatus;
  readonly name: string;
  readonly message: string;
  readonly details?: unknown;
  readonly issues?: readonly DomainIssue[];
  readonly retryAfterSeconds?: number;
  readonly cause?: unknown;
}

export class DomainError extends Error {
  readonly status: DomainStatus;
  /** The envelope's `error` value. `Error.name` is kept in sync so stack traces show it. */
  override readonly name: string;
  readonly details: unknown;
  readonly issues: readonly DomainIssue[] | undefined;
  /** Set on 429s: seconds the caller should wait (the HTTP layer turns it into `Retry-After`). */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: DomainErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.name = init.name;
    this.details = init.details;
    this.issues = init.issues;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/** True when `error` is a {@link DomainError}. */
export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}

/** 400 with the service's default name "BadRequest" (routes may pass a custom name). */
export function badRequest(message: string, name = 'BadRequest'): DomainError {
  return new DomainError({ status: 400, name, message });
}

/** 401 "UnauthorizedError". */
export function unauthorized(message: string, name = 'UnauthorizedError'): DomainError {
  return new DomainError({ status: 401, name, message });
}

/** 404 with the service's default name "NotFound". */
export function notFound(message: string, name = 'NotFound'): DomainError {
  return new DomainError({ status: 404, name, message });
}

/** 403 "ForbiddenError" (a non-CASL refusal, e.g. a plan or ownership check). */
export function forbidden(message: string, name = 'ForbiddenError', details?: unknown): DomainError {
  return new DomainError({ status: 403, name, message, details });
}

/**
 * 403 "PermissionDenied" as a failed permission check renders it:
 * "You are not allowed to {action} on {subject}", `details` = the relevant rules.
 */
export function permissionDenied(
  action: string,
  subject: string,
  relevantRules: unknown[] = [],
): DomainError {
  return new DomainError({
    status: 403,
    name: 'PermissionDenied',
    message: `You are not allowed to ${action} on ${subject}`,
    details: relevantRules,
  });
}

/** 422 "ValidationFailure"; the envelope's `message` must be `issues`. */
export function validationFailure(issues: readonly DomainIssue[]): DomainError {
  const summary = issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  return new DomainError({
    status: 422,
    name: 'ValidationFailure',
    message: `Validation failed: ${summary}`,
    issues,
  });
}

/** 429 "RateLimitExceeded" with the service's message and the wait in seconds. */
export function rateLimitExceeded(retryAfterSeconds: number): DomainError {
  return new DomainError({
    status: 429,
    name: 'RateLimitExceeded',
    message: `Rate limit exceeded. Please try again in ${retryAfterSeconds} seconds`,
    retryAfterSeconds,
  });
}
