/**
 * The kinds of service failure callers act on, read from the typed errors (`errors.ts`) that
 * `classify.ts` built from the answer: callers outside the client ask `serviceErrorKind(error)` or
 * a predicate such as `isNotFound(error)`, never an HTTP status or a message.
 *
 * | kind               | errors |
 * |--------------------|--------|
 * | `not-found`        | `NotFoundError` (404) |
 * | `conflict`         | `AlreadyExistsError` (409) |
 * | `unauthorized`     | `UnauthorizedError` (401) |
 * | `forbidden`        | `ForbiddenError` (403) |
 * | `rate-limited`     | `RateLimitedError` (429) |
 * | `invalid`          | `InvalidError` (400, 422, or refused locally) |
 * | `too-large`        | `PayloadTooLargeError` (413) |
 * | `deletion-blocked` | `DeletionBlockedError` (the object is protected from deletion) |
 * | `rejected`         | any other 4xx but 408 (405, 410, 415, ...): the request itself is wrong |
 * | `unavailable`      | `ServerError` (5xx), 408, a 2xx whose body is unusable: retrying may help |
 * | `unreachable`      | `NetworkError`, `TimeoutError`: no answer at all |
 */
import {
  AlreadyExistsError,
  DeletionBlockedError,
  ForbiddenError,
  InvalidError,
  NetworkError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ServerError,
  ServiceError,
  TimeoutError,
  UnauthorizedError,
} from './errors.ts';

export type ServiceErrorKind =
  | 'not-found'
  | 'conflict'
  | 'unauthorized'
  | 'forbidden'
  | 'rate-limited'
  | 'invalid'
  | 'too-large'
  | 'deletion-blocked'
  | 'rejected'
  | 'unavailable'
  | 'unreachable';

type ServiceErrorClass = abstract new (...args: never[]) => ServiceError;

/** First match wins: `DeletionBlockedError` before the rest, subclasses before their bases. */
const kindsByClass: readonly (readonly [ServiceErrorClass, ServiceErrorKind])[] = [
  [DeletionBlockedError, 'deletion-blocked'],
  [NotFoundError, 'not-found'],
  [AlreadyExistsError, 'conflict'],
  [UnauthorizedError, 'unauthorized'],
  [ForbiddenError, 'forbidden'],
  [RateLimitedError, 'rate-limited'],
  [InvalidError, 'invalid'],
  [PayloadTooLargeError, 'too-large'],
  [ServerError, 'unavailable'],
  [NetworkError, 'unreachable'],
  [TimeoutError, 'unreachable'],
];

/** The kind of a service-client error; undefined for anything else (a bug, a Kubernetes error). */
export function serviceErrorKind(error: unknown): ServiceErrorKind | undefined {
  if (!(error instanceof ServiceError)) return undefined;
  const match = kindsByClass.find(([errorClass]) => error instanceof errorClass);
  if (match) return match[1];
  if (error.status === 0) return 'unreachable';
  if (error.status >= 400 && error.status < 500 && error.status !== 408) return 'rejected';
  return 'unavailable';
}

/** The object addressed does not exist (404). */
export function isNotFound(error: unknown): boolean {
  return error instanceof NotFoundError;
}

/**
 * `call`'s result, or undefined when the service answered 404 (the object addressed does not
 * exist); every other failure is thrown as is.
 */
export async function unlessNotFound<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** The service refused the request as invalid (400, 422). */
export function isInvalid(error: unknown): boolean {
  return error instanceof InvalidError;
}

/** The service refused a delete because the object is protected from deletion. */
export function isDeletionBlocked(error: unknown): boolean {
  return error instanceof DeletionBlockedError;
}

/**
 * True when the service certainly did not perform the request: it answered, and the answer is a
 * refusal (every 4xx but 408). After anything else a write may have happened.
 */
export function isRefusal(error: unknown): boolean {
  const kind = serviceErrorKind(error);
  return kind !== undefined && kind !== 'unavailable' && kind !== 'unreachable';
}
