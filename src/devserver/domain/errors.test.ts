import { describe, expect, it } from 'vitest';
import {
  badRequest,
  DomainError,
  forbidden,
  isDomainError,
  notFound,
  permissionDenied,
  rateLimitExceeded,
  unauthorized,
  validationFailure,
} from './errors.ts';

describe('DomainError factories', () => {
  it.each([
    [badRequest('dup'), 400, 'BadRequest', 'dup'],
    [badRequest('dup', 'CreateEnvironment'), 400, 'CreateEnvironment', 'dup'],
    [unauthorized('Token missing'), 401, 'UnauthorizedError', 'Token missing'],
    [notFound('gone'), 404, 'NotFound', 'gone'],
    [forbidden('no'), 403, 'ForbiddenError', 'no'],
    [permissionDenied('edit', 'secrets'), 403, 'PermissionDenied', 'You are not allowed to edit on secrets'],
    [rateLimitExceeded(42), 429, 'RateLimitExceeded', 'Rate limit exceeded. Please try again in 42 seconds'],
  ])('%#: builds status %d, name %s', (error, status, name, message) => {
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toBeInstanceOf(Error);
    expect(isDomainError(error)).toBe(true);
    expect(error.status).toBe(status);
    expect(error.name).toBe(name);
    expect(error.message).toBe(message);
  });

  it('carries the relevant rules of a permission failure as details', () => {
    const rules = [{ action: ['read'], subject: 'secrets', inverted: false }];
    expect(permissionDenied('edit', 'secrets', rules).details).toEqual(rules);
  });

  it('carries issues for 422 and the wait for 429', () => {
    const issues = [{ code: 'too_small', path: ['slug'], message: 'too short' }];
    const error = validationFailure(issues);
    expect(error.status).toBe(422);
    expect(error.name).toBe('ValidationFailure');
    expect(error.issues).toEqual(issues);
    expect(error.message).toContain('slug: too short');
    expect(rateLimitExceeded(7).retryAfterSeconds).toBe(7);
  });

  it('keeps a cause', () => {
    const cause = new Error('root');
    expect(new DomainError({ status: 400, name: 'X', message: 'm', cause }).cause).toBe(cause);
  });

  it('is false for other values', () => {
    expect(isDomainError(new Error('x'))).toBe(false);
    expect(isDomainError({ status: 400 })).toBe(false);
  });
});
