/**
 * One project event subscription (per connection and project): opens the stream with the
 * current registrations, hands `secret:*` changes to the hub, reopens it at once when the
 * registrations change (after a short debounce), and reconnects with backoff when it breaks.
 * At most one stream is open at any time: the next attempt starts only after the previous one
 * ended.
 */
import type { Logger } from 'pino';
import type { SecretChange, ServiceClient, SseFrame } from '../../client/index.ts';
import { parseSecretEvent } from '../../client/index.ts';
import {
  closedByService,
  outcomeOf,
  sameState,
  type EventStreamState,
  type Outcome,
  type RetryTiming,
} from './outcome.ts';
import {
  covers,
  registrationKey,
  SECRET_EVENTS,
  type EventScope,
  type Registration,
} from './registrations.ts';

/** Timing of a stream (all in ms). */
export interface StreamTiming extends RetryTiming {
  /** A stream without any frame (pings come every 15 s) for this long is dead. */
  readonly idleTimeoutMs: number;
  readonly minBackoffMs: number;
  readonly maxBackoffMs: number;
  /** Wait for registrations to settle before reopening. */
  readonly debounceMs: number;
}

/** What a stream asks of its hub. */
export interface StreamHooks {
  /** The registrations wanted now (empty: nothing to watch, the stream stops). */
  registrations(): Registration[];
  /** The current client of the connection (may change when credentials rotate). */
  client(): Promise<ServiceClient>;
  /** Changes announced by a `secret:*` event. */
  changed(changes: readonly SecretChange[]): void;
  /**
   * A stream opened (first time, after a break, or with new registrations): events are not
   * replayed, so whatever changed while no stream was open must be looked at now.
   */
  opened(): void;
  /** The state changed. */
  stateChanged(state: EventStreamState): void;
}

const watched = new Set<string>(SECRET_EVENTS);

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

function errorMessage(frame: SseFrame): string {
  try {
    const parsed = JSON.parse(frame.data ?? '{}') as { message?: unknown };
    return typeof parsed.message === 'string' ? parsed.message : 'unknown error';
  } catch {
    return 'unreadable error frame';
  }
}

export class ProjectStream {
  readonly projectId: string;
  private readonly hooks: StreamHooks;
  private readonly timing: StreamTiming;
  private readonly log: Logger;
  private readonly stopper = new AbortController();
  private current: { readonly abort: AbortController; readonly key: string } | undefined;
  private debounce: NodeJS.Timeout | undefined;
  /** When the pending debounce, or the sleep before the next attempt, ends (ms since the epoch). */
  private debounceAt: number | undefined;
  private retryAt: number | undefined;
  private running = false;
  private stateNow: EventStreamState = { state: 'Connecting' };
  /** Counts the subscriptions opened; a change of epoch means events may have been missed. */
  private epochNow = 0;
  /** The registrations of the subscription open now (undefined while none is). */
  private openRegistrations: readonly Registration[] | undefined;

  constructor(projectId: string, hooks: StreamHooks, timing: StreamTiming, log: Logger) {
    this.projectId = projectId;
    this.hooks = hooks;
    this.timing = timing;
    this.log = log;
  }

  get state(): EventStreamState {
    return this.stateNow;
  }

  /** Identifies the subscription open now (or the last one): increases on every open. */
  get epoch(): number {
    return this.epochNow;
  }

  /**
   * The epoch of the open subscription when it delivers every secret event of `scope`, else
   * undefined (no subscription open, or one registered for other folders).
   */
  coveringEpoch(scope: EventScope): number | undefined {
    const open = this.openRegistrations;
    return open && this.stateNow.state === 'Active' && covers(open, scope) ? this.epochNow : undefined;
  }

  /**
   * When the stream next acts on its own (ms since the epoch): now while it connects, the end of
   * a pending debounce or of the wait before reconnecting; undefined while open and settled.
   */
  nextActionAt(): number | undefined {
    if (!this.running) return undefined;
    const connecting = this.current !== undefined && this.openRegistrations === undefined;
    const times = [connecting ? Date.now() : undefined, this.debounceAt, this.retryAt];
    const due = times.filter((t) => t !== undefined);
    return due.length > 0 ? Math.min(...due) : undefined;
  }

  /** Starts the connect loop (once); it ends when `signal` aborts or on `close()`. */
  start(signal: AbortSignal): void {
    if (this.running) return;
    this.running = true;
    const both = AbortSignal.any([signal, this.stopper.signal]);
    void this.loop(both).finally(() => {
      this.running = false;
    });
  }

  /** The registrations may have changed: reopen the stream (debounced) if they did. */
  refresh(): void {
    clearTimeout(this.debounce);
    this.debounceAt = Date.now() + this.timing.debounceMs;
    this.debounce = setTimeout(() => {
      this.debounceAt = undefined;
      const current = this.current;
      if (current && current.key !== registrationKey(this.hooks.registrations())) current.abort.abort();
    }, this.timing.debounceMs);
    this.debounce.unref();
  }

  /** Stops the stream for good. */
  close(): void {
    clearTimeout(this.debounce);
    this.debounceAt = undefined;
    this.stopper.abort();
  }

  private setState(next: EventStreamState): void {
    if (sameState(this.stateNow, next)) return;
    this.stateNow = next;
    this.hooks.stateChanged(next);
  }

  private async loop(signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      const register = this.hooks.registrations();
      if (register.length === 0) return;
      const attempt = new AbortController();
      this.current = { abort: attempt, key: registrationKey(register) };
      const healthy = { value: false };
      const outcome = await this.attempt(register, AbortSignal.any([signal, attempt.signal]), healthy);
      this.current = undefined;
      if (signal.aborted) return;
      if (attempt.signal.aborted) continue; // registrations changed: reopen now
      failures = healthy.value ? 1 : failures + 1;
      this.setState(outcome.state);
      const backoff = Math.min(this.timing.maxBackoffMs, this.timing.minBackoffMs * 2 ** (failures - 1));
      this.log.info(
        { projectId: this.projectId, reason: outcome.state.reason, message: outcome.state.message },
        'project event stream ended; reconnecting later',
      );
      const retryMs = outcome.retryMs ?? backoff;
      this.retryAt = Date.now() + retryMs;
      await sleep(retryMs, signal);
      this.retryAt = undefined;
    }
  }

  /** One subscription, from opening to its end. `healthy` turns true once a frame arrived. */
  private async attempt(
    register: Registration[],
    signal: AbortSignal,
    healthy: { value: boolean },
  ): Promise<Outcome> {
    try {
      const client = await this.hooks.client();
      const subscription = await client.events.subscribe(
        { projectId: this.projectId, register },
        { signal, idleTimeoutMs: this.timing.idleTimeoutMs },
      );
      this.log.debug(
        { projectId: this.projectId, registrations: register.length },
        'project event stream open',
      );
      this.epochNow += 1;
      this.openRegistrations = register;
      this.setState({ state: 'Active' });
      this.hooks.opened();
      for await (const frame of subscription) {
        healthy.value = true;
        this.handle(frame);
      }
      return closedByService;
    } catch (error) {
      return outcomeOf(error, this.timing);
    } finally {
      this.openRegistrations = undefined;
    }
  }

  private handle(frame: SseFrame): void {
    if (frame.event === 'ping') return;
    if (frame.event === 'error') {
      this.log.warn(
        { projectId: this.projectId, message: errorMessage(frame) },
        'project event stream error',
      );
      return;
    }
    const event = parseSecretEvent(frame);
    if (event && watched.has(event.eventType)) this.hooks.changed(event.changes);
  }
}
