// Turns a non-2xx HTTP answer into the matching typed error. The service's error body is
// `{reqId, statusCode, message, error, details?}`; `message` is an array of zod issues for 422.
import {
  AlreadyExistsError,
  DeletionBlockedError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ServerError,
  ServiceError,
  UnauthorizedError,
  type ServiceErrorInit,
  type ValidationIssue,
} from './errors.ts';

/** The parts of an HTTP answer the classifier needs. */
export interface ErrorResponse {
  operation: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The raw body text (may be empty or not JSON, e.g. from a proxy). */
  bodyText: string;
  /** Current time in ms, to turn an HTTP-date `Retry-After` into a duration. */
  now: number;
}

interface ErrorBody {
  reqId?: string;
  message?: unknown;
  error?: string;
  details?: unknown;
}

/** Builds the typed error for a non-2xx response. */
export function errorFromResponse(res: ErrorResponse): ServiceError {
  const body = parseErrorBody(res.bodyText);
  const issues = Array.isArray(body.message) ? toIssues(body.message) : undefined;
  const message = describeMessage(body, issues, res.status);
  return serviceErrorFor({
    operation: res.operation,
    status: res.status,
    message,
    reqId: body.reqId,
    errorName: body.error,
    details: body.details,
    issues,
    retryAfterMs: res.status === 429 ? retryAfterMs(res, message) : undefined,
  });
}

/** What the service says when it refuses to delete a protected object (any object type). */
const deletionProtection = /delet\w*[\s-]+protect|protected from delet/i;

/**
 * The typed error for a service answer with `status` (the one place statuses are read): also
 * for test doubles that stand in for the service.
 */
export function serviceErrorFor(
  init: ServiceErrorInit & { issues?: ValidationIssue[] | undefined; retryAfterMs?: number | undefined },
): ServiceError {
  const { issues, retryAfterMs: wait, ...rest } = init;
  if ([400, 403, 409].includes(init.status) && deletionProtection.test(init.message)) {
    return new DeletionBlockedError(rest);
  }
  if (init.status === 400 || init.status === 422)
    return new InvalidError({ ...rest, ...(issues ? { issues } : {}) });
  if (init.status === 429)
    return new RateLimitedError({ ...rest, ...(wait !== undefined ? { retryAfterMs: wait } : {}) });
  const ErrorClass = classByStatus[init.status] ?? (init.status >= 500 ? ServerError : ServiceError);
  return new ErrorClass(rest);
}

/** The errors that need nothing but the common fields. */
const classByStatus: Readonly<Record<number, new (init: ServiceErrorInit) => ServiceError>> = {
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  409: AlreadyExistsError,
  413: PayloadTooLargeError,
};

function parseErrorBody(text: string): ErrorBody {
  if (text.length === 0) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    const rec = parsed as Record<string, unknown>;
    return {
      reqId: typeof rec.reqId === 'string' ? rec.reqId : undefined,
      message: rec.message,
      error: typeof rec.error === 'string' ? rec.error : undefined,
      details: rec.details,
    };
  } catch {
    // A proxy's HTML error page, for example: classify by status alone.
    return {};
  }
}

/**
 * Keeps only code, path and message of each issue. Issue objects may carry the rejected
 * input (`input`, `received`), which could be a secret value, so those fields are dropped.
 */
export function toIssues(raw: unknown[]): ValidationIssue[] {
  return raw.map((item) => {
    const rec = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    const path = Array.isArray(rec.path)
      ? rec.path.filter((p): p is string | number => typeof p === 'string' || typeof p === 'number')
      : [];
    const issue: ValidationIssue = {
      path,
      message: typeof rec.message === 'string' ? rec.message : 'invalid value',
    };
    if (typeof rec.code === 'string') issue.code = rec.code;
    return issue;
  });
}

/** Renders issues as `path: message; path: message`. */
export function formatIssues(issues: ValidationIssue[]): string {
  return issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(root)'}: ${i.message}`).join('; ');
}

function describeMessage(body: ErrorBody, issues: ValidationIssue[] | undefined, status: number): string {
  if (issues) return `validation failed: ${formatIssues(issues)}`;
  if (typeof body.message === 'string' && body.message.length > 0) return body.message;
  return body.error ?? `HTTP ${status}`;
}

const BODY_WAIT = /try again in (\d+(?:\.\d+)?)\s*(second|minute)/i;

/**
 * The wait before retrying a 429: the `Retry-After` header (seconds or an HTTP date), else
 * the "try again in N seconds" text of the service's message; undefined when neither is present.
 */
export function retryAfterMs(res: ErrorResponse, message: string): number | undefined {
  const header = firstHeader(res.headers['retry-after']);
  if (header !== undefined) {
    const seconds = Number(header);
    if (header.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, date - res.now);
  }
  const match = BODY_WAIT.exec(message);
  if (match?.[1] !== undefined) {
    const factor = match[2]?.toLowerCase() === 'minute' ? 60_000 : 1000;
    return Math.ceil(Number(match[1]) * factor);
  }
  return undefined;
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
