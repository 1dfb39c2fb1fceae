/**
 * The error envelope the devserver answers with, and the HTTP-level errors that are not
 * domain outcomes (413, 415, 5xx, injected faults). Route code throws `DomainError` from
 * `../domain/errors.ts`; `toApiError` turns anything thrown into one `ApiError`.
 *
 * Every error body has the shape `{reqId, statusCode, message, error, details?}`, like the
 * real service's error handler; `message` is a string except for validation failures (422),
 * where it is the array of zod issues.
 */
import { ZodError } from 'zod';
import { DomainError, isDomainError } from '../domain/errors.ts';

/** An error that maps to one HTTP status and error name in the service's envelope. */
export class ApiError extends Error {
  readonly statusCode: number;
  readonly error: string;
  /** The envelope's `message`: a string, or the issue array for a 422. */
  readonly body: unknown;
  readonly details: unknown;
  readonly headers: Record<string, string>;

  constructor(
    statusCode: number,
    error: string,
    message: string,
    extra: { details?: unknown; body?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = statusCode;
    this.error = error;
    this.body = extra.body ?? message;
    this.details = extra.details;
    this.headers = extra.headers ?? {};
  }
}

/** The JSON error body for `err`, tagged with the request id. */
export function errorEnvelope(reqId: string, err: ApiError): Record<string, unknown> {
  const body: Record<string, unknown> = {
    reqId,
    statusCode: err.statusCode,
    message: err.body,
    error: err.error,
  };
  if (err.details !== undefined) body.details = err.details;
  return body;
}

/** 403 TokenError for a bad, expired or malformed JWT. */
export function tokenError(message: string): DomainError {
  return new DomainError({ status: 403, name: 'TokenError', message });
}

/** 500 for anything unexpected; the message never leaks internals. */
export function internalError(): ApiError {
  return new ApiError(500, 'InternalServerError', 'Something went wrong');
}

function fromDomainError(err: DomainError): ApiError {
  if (err.status === 422) {
    return new ApiError(422, err.name, err.message, { body: err.issues ?? [], details: err.details });
  }
  const headers: Record<string, string> = {};
  if (err.retryAfterSeconds !== undefined) headers['retry-after'] = String(err.retryAfterSeconds);
  // The service does not forward `details` on 400.
  const details = err.status === 400 ? undefined : err.details;
  return new ApiError(err.status, err.name, err.message, { details, headers });
}

/** Maps anything thrown by a handler to the envelope error; unknown errors become 500. */
export function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (isDomainError(err)) return fromDomainError(err);
  if (err instanceof ZodError) {
    return new ApiError(422, 'ValidationFailure', 'Request validation failed', { body: err.issues });
  }
  return undefined;
}
