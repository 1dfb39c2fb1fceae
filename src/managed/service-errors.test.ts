import { describe, expect, it } from 'vitest';
import { fakeServiceError } from '../../test/support/test-kind.ts';
import { ConflictError, TerminalError } from '../runtime/errors.ts';
import {
  classifyServiceError,
  defaultRetryAfterMs,
  definitelyNotPerformed,
  describeError,
} from './service-errors.ts';
import { commonReasons } from '../runtime/common-reasons.ts';
import { testReason } from '../runtime/reasons.ts';

describe('classifyServiceError', () => {
  it.each([
    { reason: 'validation failure', status: 400, errorClass: 'terminal', conditionReason: 'Rejected' },
    { reason: 'zod issues', status: 422, errorClass: 'terminal', conditionReason: 'Rejected' },
    { reason: 'bad credentials', status: 401, errorClass: 'waiting', conditionReason: 'Unauthorized' },
    { reason: 'missing permission', status: 403, errorClass: 'waiting', conditionReason: 'Forbidden' },
    { reason: 'missing object on write', status: 404, errorClass: 'terminal', conditionReason: 'NotFound' },
    { reason: 'duplicate', status: 409, errorClass: 'terminal', conditionReason: 'AlreadyExists' },
    { reason: 'body over the limit', status: 413, errorClass: 'terminal', conditionReason: 'TooLarge' },
    {
      reason: 'request timeout',
      status: 408,
      errorClass: 'transient',
      conditionReason: 'ServiceUnavailable',
    },
    { reason: 'method not allowed', status: 405, errorClass: 'terminal', conditionReason: 'Rejected' },
    { reason: 'gone', status: 410, errorClass: 'terminal', conditionReason: 'Rejected' },
    { reason: 'length required', status: 411, errorClass: 'terminal', conditionReason: 'Rejected' },
    { reason: 'precondition failed', status: 412, errorClass: 'terminal', conditionReason: 'Rejected' },
    { reason: 'URI too long', status: 414, errorClass: 'terminal', conditionReason: 'Rejected' },
    { reason: 'media type', status: 415, errorClass: 'terminal', conditionReason: 'Rejected' },
    { reason: 'headers too large', status: 431, errorClass: 'terminal', conditionReason: 'Rejected' },
    { reason: 'rate limit', status: 429, errorClass: 'rateLimited', conditionReason: 'RateLimited' },
    { reason: 'server error', status: 500, errorClass: 'transient', conditionReason: 'ServiceUnavailable' },
    {
      reason: 'gateway timeout',
      status: 504,
      errorClass: 'transient',
      conditionReason: 'ServiceUnavailable',
    },
    { reason: 'no response', status: 0, errorClass: 'transient', conditionReason: 'ServiceUnreachable' },
  ])('$reason ($status) is $errorClass / $conditionReason', ({ status, errorClass, conditionReason }) => {
    const classified = classifyServiceError(
      fakeServiceError(status, 'nope'),
      'update external object',
      60_000,
    );
    expect(classified.errorClass).toBe(errorClass);
    expect(classified.reason).toBe(conditionReason);
    expect(classified.message.startsWith('cannot update external object: ')).toBe(true);
  });

  it('names the status of an unlisted 4xx in the message', () => {
    const classified = classifyServiceError(fakeServiceError(415, 'Unsupported Media Type'), 'x', 1);
    expect(classified.message).toBe('cannot x: service answered 415: Unsupported Media Type');
  });

  it('tells the user what to do about a 413', () => {
    const classified = classifyServiceError(
      fakeServiceError(413, 'Request body is too large'),
      'update external object',
      1,
    );
    expect(classified.message).toMatch(
      /^cannot update external object: service answered 413: Request body is too large \(.*body limit.*split/,
    );
  });

  it('uses Retry-After, or a default', () => {
    expect(classifyServiceError(fakeServiceError(429, 'slow down', 1_500), 'x', 1)).toMatchObject({
      retryAfterMs: 1_500,
    });
    expect(classifyServiceError(fakeServiceError(429, 'slow down'), 'x', 1)).toMatchObject({
      retryAfterMs: defaultRetryAfterMs,
    });
  });

  it('passes reconcile errors through and treats unknown errors as transient', () => {
    const terminal = new TerminalError(testReason('Expired'), 'gone');
    expect(classifyServiceError(terminal, 'x', 1)).toBe(terminal);
    expect(classifyServiceError(new TypeError('boom'), 'observe external object', 1)).toMatchObject({
      errorClass: 'transient',
      reason: 'ReconcileError',
      message: 'cannot observe external object: boom',
    });
  });

  it('describes Kubernetes API errors by their Status message only', () => {
    const kube = Object.assign(new Error('HTTP-Code: 403 Headers: {"date":"..."}'), {
      code: 403,
      body: JSON.stringify({ kind: 'Status', message: 'secrets is forbidden' }),
    });
    expect(describeError(kube)).toBe('Kubernetes API answered 403: secrets is forbidden');
  });
});

describe('definitelyNotPerformed', () => {
  it.each([
    { reason: 'a 400', error: fakeServiceError(400, 'x'), expected: true },
    { reason: 'a 429', error: fakeServiceError(429, 'x'), expected: true },
    { reason: 'a 408 may have been processed', error: fakeServiceError(408, 'x'), expected: false },
    { reason: 'a 502 may have been processed', error: fakeServiceError(502, 'x'), expected: false },
    { reason: 'no answer may have been processed', error: fakeServiceError(0, 'x'), expected: false },
    { reason: 'an adapter refusal', error: new TerminalError(testReason('Bad'), 'x'), expected: true },
    {
      reason: 'a Kubernetes conflict',
      error: new ConflictError(commonReasons.names.Conflict, 'x'),
      expected: false,
    },
    { reason: 'an unknown error', error: new Error('x'), expected: false },
  ])('$reason → $expected', ({ error, expected }) => {
    expect(definitelyNotPerformed(error)).toBe(expected);
  });
});
