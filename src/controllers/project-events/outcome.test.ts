import { describe, expect, it } from 'vitest';
import {
  ForbiddenError,
  InvalidError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  TimeoutError,
} from '../../client/index.ts';
import { WaitingError } from '../../runtime/errors.ts';
import { outcomeOf, sameState } from './outcome.ts';
import { managedReasons } from '../../managed/reasons.ts';

const timing = { refusedRetryMs: 600_000, tooManyRetryMs: 60_000 };
const op = 'events.subscribe';

describe('outcomeOf', () => {
  it.each([
    [
      '400: the plan lacks events',
      new InvalidError({ operation: op, status: 400, message: 'no plan' }),
      'EventsNotSupported',
      600_000,
    ],
    [
      '404: no such route',
      new NotFoundError({ operation: op, status: 404, message: 'Route not found' }),
      'EventsNotSupported',
      600_000,
    ],
    [
      '403: no permission',
      new ForbiddenError({ operation: op, status: 403, message: 'You are not allowed' }),
      'Forbidden',
      600_000,
    ],
    [
      '429 without Retry-After',
      new RateLimitedError({ operation: op, status: 429, message: 'Too many active connections' }),
      'TooManyStreams',
      60_000,
    ],
    [
      '429 with a longer Retry-After',
      new RateLimitedError({ operation: op, status: 429, message: 'x', retryAfterMs: 90_000 }),
      'TooManyStreams',
      90_000,
    ],
  ])('%s → Unavailable', (_reason, error, reason, retryMs) => {
    const outcome = outcomeOf(error, timing);
    expect(outcome.state.state).toBe('Unavailable');
    expect(outcome.state.reason).toBe(reason);
    expect(outcome.state.message).toContain('poll interval');
    expect(outcome.retryMs).toBe(retryMs);
  });

  it.each([
    [
      'a dead stream',
      new TimeoutError({ operation: op, status: 0, message: 'event stream went idle' }),
      'StreamIdle',
    ],
    ['a broken connection', new NetworkError({ operation: op, status: 0, message: 'reset' }), 'Disconnected'],
    [
      'a connection that is not Ready',
      new WaitingError(managedReasons.names.ReferenceNotReady, 'Connection x is not Ready', 1000),
      'ConnectionNotReady',
    ],
  ])('%s → Connecting with backoff', (_reason, error, reason) => {
    const outcome = outcomeOf(error, timing);
    expect(outcome.state).toMatchObject({ state: 'Connecting', reason });
    expect(outcome.retryMs).toBeUndefined();
  });

  it('treats a 403 token error as a reconnect, not a refusal', () => {
    const error = new ForbiddenError({
      operation: op,
      status: 403,
      message: 'expired',
      errorName: 'TokenError',
    });
    expect(error.isTokenError).toBe(true);
    expect(outcomeOf(error, timing).state).toMatchObject({ state: 'Connecting', reason: 'Disconnected' });
  });
});

describe('sameState', () => {
  it('compares state, reason and message', () => {
    expect(sameState({ state: 'Active' }, { state: 'Active' })).toBe(true);
    expect(sameState({ state: 'Unavailable', reason: 'A' }, { state: 'Unavailable', reason: 'B' })).toBe(
      false,
    );
  });
});
