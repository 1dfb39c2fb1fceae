import { describe, expect, it } from 'vitest';
import { errorFromResponse, serviceErrorFor } from './classify.ts';
import { isDeletionBlocked, isNotFound, isRefusal, serviceErrorKind, unlessNotFound } from './error-kinds.ts';
import { DeletionBlockedError, NetworkError, ResponseValidationError, TimeoutError } from './errors.ts';

const answer = (status: number, message: string) =>
  errorFromResponse({
    operation: 'projects.delete',
    status,
    headers: {},
    bodyText: JSON.stringify({ statusCode: status, message }),
    now: 0,
  });

describe('deletion protection', () => {
  it.each([
    { status: 400, message: 'Project has delete protection enabled' },
    { status: 403, message: 'Identity is protected from deletion' },
    { status: 409, message: 'Cannot delete: deletion-protected object' },
  ])('a $status saying "$message" is a DeletionBlockedError', ({ status, message }) => {
    const error = answer(status, message);
    expect(error).toBeInstanceOf(DeletionBlockedError);
    expect(error.status).toBe(status);
    expect(isDeletionBlocked(error)).toBe(true);
    expect(serviceErrorKind(error)).toBe('deletion-blocked');
  });

  it.each([
    { status: 400, message: 'Role is assigned to 2 memberships', kind: 'invalid' },
    { status: 500, message: 'delete protection failed', kind: 'unavailable' },
    { status: 404, message: 'Project with delete protection not found', kind: 'not-found' },
  ])('a $status saying "$message" is not ($kind)', ({ status, message, kind }) => {
    const error = answer(status, message);
    expect(isDeletionBlocked(error)).toBe(false);
    expect(serviceErrorKind(error)).toBe(kind);
  });
});

describe('serviceErrorKind', () => {
  it.each([
    { status: 400, kind: 'invalid' },
    { status: 401, kind: 'unauthorized' },
    { status: 403, kind: 'forbidden' },
    { status: 404, kind: 'not-found' },
    { status: 405, kind: 'rejected' },
    { status: 408, kind: 'unavailable' },
    { status: 409, kind: 'conflict' },
    { status: 413, kind: 'too-large' },
    { status: 415, kind: 'rejected' },
    { status: 422, kind: 'invalid' },
    { status: 429, kind: 'rate-limited' },
    { status: 502, kind: 'unavailable' },
  ])('an answer of $status is $kind', ({ status, kind }) => {
    expect(serviceErrorKind(serviceErrorFor({ operation: 'x', status, message: 'no' }))).toBe(kind);
  });

  it('sorts failures without an answer, unusable answers and foreign errors', () => {
    expect(serviceErrorKind(new NetworkError({ operation: 'x', status: 0, message: 'reset' }))).toBe(
      'unreachable',
    );
    expect(serviceErrorKind(new TimeoutError({ operation: 'x', status: 0, message: 'slow' }))).toBe(
      'unreachable',
    );
    const unusable = new ResponseValidationError({ operation: 'x', status: 200, message: 'bad body' });
    expect(serviceErrorKind(unusable)).toBe('unavailable');
    expect(serviceErrorKind(new Error('bug'))).toBeUndefined();
    expect(isNotFound(new Error('404'))).toBe(false);
  });

  it('counts every refusal but 408 as not performed', () => {
    const refusal = (status: number) => isRefusal(serviceErrorFor({ operation: 'x', status, message: 'no' }));
    expect([400, 404, 429, 413].map(refusal)).toEqual([true, true, true, true]);
    expect([408, 500].map(refusal)).toEqual([false, false]);
    expect(isRefusal(new NetworkError({ operation: 'x', status: 0, message: 'reset' }))).toBe(false);
  });
});

describe('unlessNotFound', () => {
  it('answers the result, undefined for a 404, and throws every other failure', async () => {
    await expect(unlessNotFound(Promise.resolve('found'))).resolves.toBe('found');
    await expect(unlessNotFound(Promise.reject(answer(404, 'Project not found')))).resolves.toBeUndefined();
    const refused = answer(403, 'Forbidden');
    await expect(unlessNotFound(Promise.reject(refused))).rejects.toBe(refused);
  });
});
