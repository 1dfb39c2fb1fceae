import { describe, expect, it } from 'vitest';
import { errorFromResponse, retryAfterMs } from './classify.ts';
import {
  AlreadyExistsError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ServerError,
  ServiceError,
  UnauthorizedError,
} from './errors.ts';

const NOW = Date.parse('2025-01-01T00:00:00Z');

function answer(status: number, body: unknown, headers: Record<string, string> = {}): ServiceError {
  return errorFromResponse({
    operation: 'projects.get',
    status,
    headers,
    bodyText: typeof body === 'string' ? body : JSON.stringify(body),
    now: NOW,
  });
}

function envelope(statusCode: number, error: string, message: unknown, details?: unknown) {
  return { reqId: 'req-abcdefghijklmn', statusCode, error, message, details };
}

describe('errorFromResponse', () => {
  it.each([
    { status: 400, type: InvalidError, error: 'BadRequest' },
    { status: 401, type: UnauthorizedError, error: 'UnauthorizedError' },
    { status: 403, type: ForbiddenError, error: 'PermissionDenied' },
    { status: 404, type: NotFoundError, error: 'NotFound' },
    { status: 409, type: AlreadyExistsError, error: 'Conflict' },
    { status: 413, type: PayloadTooLargeError, error: 'Payload Too Large' },
    { status: 429, type: RateLimitedError, error: 'RateLimitExceeded' },
    { status: 500, type: ServerError, error: 'InternalServerError' },
    { status: 503, type: ServerError, error: 'ServiceUnavailable' },
    { status: 410, type: ServiceError, error: 'Gone' },
  ])('maps $status to $type.name', ({ status, type, error }) => {
    const err = answer(status, envelope(status, error, 'the service said no', { rule: 1 }));
    expect(err).toBeInstanceOf(type);
    expect(err.status).toBe(status);
    expect(err.reqId).toBe('req-abcdefghijklmn');
    expect(err.errorName).toBe(error);
    expect(err.details).toEqual({ rule: 1 });
    expect(err.operation).toBe('projects.get');
    expect(err.serviceMessage).toBe('the service said no');
    expect(err.message).toBe(`cannot call projects.get: service answered ${status}: the service said no`);
  });

  it('marks a 403 TokenError as a token error and a permission failure as not', () => {
    const token = answer(403, envelope(403, 'TokenError', 'Your token has expired. Please re-authenticate.'));
    const denied = answer(403, envelope(403, 'PermissionDenied', 'You are not allowed to read on secrets'));
    expect(token).toBeInstanceOf(ForbiddenError);
    expect((token as ForbiddenError).isTokenError).toBe(true);
    expect((denied as ForbiddenError).isTokenError).toBe(false);
  });

  it('turns a 422 issue list into issues without the rejected input values', () => {
    const issues = [
      {
        code: 'too_small',
        path: ['slug'],
        message: 'Slug field must be at least 1 lowercase character(s)',
        input: 's3cr3t',
      },
      { code: 'invalid_type', path: ['accessTokenTTL'], message: 'Expected number', received: 'hunter2' },
    ];
    const err = answer(422, envelope(422, 'ValidationFailure', issues));
    expect(err).toBeInstanceOf(InvalidError);
    expect((err as InvalidError).issues).toEqual([
      { code: 'too_small', path: ['slug'], message: 'Slug field must be at least 1 lowercase character(s)' },
      { code: 'invalid_type', path: ['accessTokenTTL'], message: 'Expected number' },
    ]);
    expect(err.message).toContain('slug: Slug field must be at least 1');
    expect(err.message).not.toContain('s3cr3t');
    expect(err.message).not.toContain('hunter2');
  });

  it('classifies by status alone when the body is not JSON', () => {
    const err = answer(502, '<html>Bad gateway</html>');
    expect(err).toBeInstanceOf(ServerError);
    expect(err.reqId).toBeUndefined();
    expect(err.message).toBe('cannot call projects.get: service answered 502: HTTP 502');
  });

  it('keeps the error name when the message is missing (Fastify 404 for unknown routes)', () => {
    const err = answer(404, { statusCode: 404, error: 'Not Found' });
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.serviceMessage).toBe('Not Found');
  });
});

describe('retryAfterMs', () => {
  const res = (headers: Record<string, string>) => ({
    operation: 'x',
    status: 429,
    headers,
    bodyText: '',
    now: NOW,
  });

  it('reads Retry-After in seconds', () => {
    expect(retryAfterMs(res({ 'retry-after': '7' }), '')).toBe(7000);
  });

  it('reads Retry-After as an HTTP date', () => {
    const date = new Date(NOW + 12_000).toUTCString();
    expect(retryAfterMs(res({ 'retry-after': date }), '')).toBe(12_000);
  });

  it('falls back to the "try again in N seconds" text of the message', () => {
    expect(retryAfterMs(res({}), 'Rate limit exceeded. Please try again in 42 seconds')).toBe(42_000);
    expect(retryAfterMs(res({}), 'Rate limit exceeded. Please try again in 1 minute')).toBe(60_000);
  });

  it('is undefined when neither says how long to wait', () => {
    expect(retryAfterMs(res({}), 'Rate limit exceeded')).toBeUndefined();
  });

  it('prefers the header and puts the wait on the RateLimitedError', () => {
    const err = answer(429, envelope(429, 'RateLimitExceeded', 'Please try again in 50 seconds'), {
      'retry-after': '3',
    });
    expect((err as RateLimitedError).retryAfterMs).toBe(3000);
    const fromBody = answer(
      429,
      envelope(429, 'RateLimitExceeded', 'Rate limit exceeded. Please try again in 9 seconds'),
    );
    expect((fromBody as RateLimitedError).retryAfterMs).toBe(9000);
  });
});
