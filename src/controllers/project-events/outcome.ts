/**
 * How a project event stream ended, and what to show and when to try again.
 *
 * | cause                                   | state       | reason             | retry            |
 * |-----------------------------------------|-------------|--------------------|------------------|
 * | 400 (plan lacks events), 404, 422        | Unavailable | EventsNotSupported | `refusedRetryMs` |
 * | 403 (no `secret-events` permission)      | Unavailable | Forbidden          | `refusedRetryMs` |
 * | 429 (too many streams)                   | Unavailable | TooManyStreams     | Retry-After, at least `tooManyRetryMs` |
 * | no frame for the idle timeout (no ping)  | Connecting  | StreamIdle         | backoff          |
 * | closed by the service, network, 5xx, 401 | Connecting  | Disconnected       | backoff          |
 * | the connection is not Ready              | Connecting  | ConnectionNotReady | backoff          |
 *
 * While not Active, resources fall back to their poll interval.
 */
import { ForbiddenError, RateLimitedError, serviceErrorKind, TimeoutError } from '../../client/index.ts';
import { describeError } from '../../managed/service-errors.ts';
import { ReconcileError } from '../../runtime/errors.ts';

/** The subscription state reported in the status of the resources it serves. */
export interface EventStreamState {
  readonly state: 'Active' | 'Connecting' | 'Unavailable';
  readonly reason?: string;
  readonly message?: string;
}

/** Delays of the reconnect policy. */
export interface RetryTiming {
  /** Wait after a refusal (400/403/404/422). */
  readonly refusedRetryMs: number;
  /** Least wait after a 429. */
  readonly tooManyRetryMs: number;
}

/** A state plus the wait before the next attempt (undefined: exponential backoff). */
export interface Outcome {
  readonly state: EventStreamState;
  readonly retryMs?: number;
}

const polling = 'changes made in the service are picked up on the poll interval';

function unavailable(reason: string, what: string, error: unknown, retryMs: number): Outcome {
  return {
    state: { state: 'Unavailable', reason, message: `${what} (${describeError(error)}); ${polling}` },
    retryMs,
  };
}

function refused(error: unknown, timing: RetryTiming): Outcome | undefined {
  const kind = serviceErrorKind(error);
  if (kind === 'invalid' || kind === 'not-found')
    return unavailable(
      'EventsNotSupported',
      'the service refuses event subscriptions (the plan may lack them)',
      error,
      timing.refusedRetryMs,
    );
  if (error instanceof ForbiddenError && !error.isTokenError)
    return unavailable(
      'Forbidden',
      'the identity may not subscribe to secret events of this project',
      error,
      timing.refusedRetryMs,
    );
  if (error instanceof RateLimitedError) {
    const retryMs = Math.max(error.retryAfterMs ?? 0, timing.tooManyRetryMs);
    return unavailable(
      'TooManyStreams',
      'the service has too many event streams open for this project',
      error,
      retryMs,
    );
  }
  return undefined;
}

/** The outcome of a subscription that failed to open or broke. */
export function outcomeOf(error: unknown, timing: RetryTiming): Outcome {
  const refusal = refused(error, timing);
  if (refusal) return refusal;
  if (error instanceof ReconcileError)
    return { state: { state: 'Connecting', reason: 'ConnectionNotReady', message: error.message } };
  if (error instanceof TimeoutError)
    return {
      state: {
        state: 'Connecting',
        reason: 'StreamIdle',
        message: 'no event or ping arrived in time; reconnecting',
      },
    };
  return { state: { state: 'Connecting', reason: 'Disconnected', message: describeError(error) } };
}

/** The outcome of a stream the service closed (e.g. after a failed permission refresh). */
export const closedByService: Outcome = {
  state: { state: 'Connecting', reason: 'Disconnected', message: 'the service closed the event stream' },
};

/** Whether two states read the same in status. */
export function sameState(a: EventStreamState, b: EventStreamState): boolean {
  return a.state === b.state && a.reason === b.reason && a.message === b.message;
}
