/**
 * One list+watch loop that never dies silently (one per watched namespace, or one cluster-wide).
 *
 * Contract:
 * - lists (paginated), hands the snapshot to `replace`, then watches from the list's resource
 *   version with bookmarks, handing each event to `event`;
 * - a watch the server ends normally (its timeout) is resumed from the last resource version;
 * - after ANY error (HTTP, network, expired resource version, malformed event) it relists;
 *   expired versions (410) relist at once, other errors after a per-loop exponential backoff
 *   with jitter, reset once a watch delivers an event;
 * - a watchdog aborts a watch that delivered nothing (not even a bookmark) for `watchdogMs` and
 *   relists: with bookmarks enabled, silence means a dead connection;
 * - every restart after an error or watchdog calls `restarted` (for metrics).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { ExponentialBackoff, type BackoffOptions } from './backoff.ts';
import { sleepOn, systemClock, type Clock } from './clock.ts';
import { KubeHttpError } from './kube-request.ts';
import { listAll, watchFrom, type KubeObject, type ListWatchQuery, type WatchEvent } from './list-watch.ts';

export interface ReflectorCallbacks<T> {
  /** A full snapshot of the scope; objects not in it are gone. */
  replace(items: T[]): void;
  /** One ADDED, MODIFIED or DELETED event. */
  event(event: WatchEvent<T>): void;
  /** Called after an error or a silent watch forced a relist. */
  restarted(reason: string): void;
}

export interface ReflectorOptions {
  readonly kubeConfig: KubeConfig;
  readonly query: ListWatchQuery;
  readonly log: Logger;
  /** Items per list page (default 500). */
  readonly pageSize?: number;
  /**
   * Relist when a watch is silent this long (default 150 s). kube-apiserver sends every
   * watcher a bookmark about once a minute, so 150 s tolerates one lost bookmark.
   */
  readonly watchdogMs?: number;
  /** Server-side watch timeout; each watch picks a random value in [min, 2 × min) (default 300 s). */
  readonly minWatchTimeoutSeconds?: number;
  /** Backoff between restarts after errors (default 1 s doubling to 30 s, ±20 %). */
  readonly backoff?: BackoffOptions;
  readonly clock?: Clock;
  readonly random?: () => number;
}

export const defaultWatchdogMs = 150_000;

/** Thrown internally when the watchdog ends a silent watch. */
class SilentWatchError extends Error {}

export class Reflector<T extends KubeObject> {
  private readonly o: ReflectorOptions;
  private readonly callbacks: ReflectorCallbacks<T>;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly backoff: ExponentialBackoff;
  private resourceVersion = '';

  constructor(options: ReflectorOptions, callbacks: ReflectorCallbacks<T>) {
    this.o = options;
    this.callbacks = callbacks;
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.backoff = new ExponentialBackoff({
      baseMs: 1_000,
      maxMs: 30_000,
      jitter: 0.2,
      random: this.random,
      ...options.backoff,
    });
  }

  /** Runs until `signal` is aborted; never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.listAndWatch(signal);
      } catch (error) {
        if (signal.aborted) return;
        await this.recover(error, signal);
      }
    }
  }

  private async listAndWatch(signal: AbortSignal): Promise<void> {
    if (!this.resourceVersion) {
      const list = await listAll<T>(this.o.kubeConfig, this.o.query, this.o.pageSize ?? 500, signal);
      this.callbacks.replace(list.items);
      this.resourceVersion = list.resourceVersion;
    }
    await this.watchWithWatchdog(signal);
  }

  private async watchWithWatchdog(signal: AbortSignal): Promise<void> {
    const attempt = new AbortController();
    const onAbort = (): void => attempt.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const watchdog = startWatchdog(this.clock, this.o.watchdogMs ?? defaultWatchdogMs, (silentFor) =>
      attempt.abort(new SilentWatchError(`no event or bookmark for ${silentFor} ms`)),
    );
    const minTimeout = this.o.minWatchTimeoutSeconds ?? 300;
    try {
      await watchFrom<T>(
        this.o.kubeConfig,
        {
          ...this.o.query,
          resourceVersion: this.resourceVersion,
          timeoutSeconds: Math.floor(minTimeout * (1 + this.random())),
        },
        (event) => {
          watchdog.touch();
          this.backoff.forget('watch');
          this.onEvent(event);
        },
        attempt.signal,
      );
    } catch (error) {
      // An abort by the watchdog surfaces as an AbortError; report the watchdog's reason instead.
      throw attempt.signal.aborted && !signal.aborted ? attempt.signal.reason : error;
    } finally {
      watchdog.cancel();
      signal.removeEventListener('abort', onAbort);
    }
  }

  private onEvent(event: WatchEvent<T>): void {
    const rv = event.object.metadata?.resourceVersion;
    if (event.type !== 'BOOKMARK') this.callbacks.event(event);
    if (rv) this.resourceVersion = rv;
  }

  private async recover(error: unknown, signal: AbortSignal): Promise<void> {
    this.resourceVersion = '';
    if (error instanceof KubeHttpError && error.statusCode === 410) {
      // The watch fell behind etcd's compaction window: relist now, as client-go does.
      this.o.log.debug({ path: this.o.query.path }, 'watch expired; relisting');
      return;
    }
    const reason = error instanceof SilentWatchError ? 'silent watch' : 'error';
    const delay = this.backoff.next('watch');
    this.o.log.warn(
      { path: this.o.query.path, err: describe(error), retryInMs: delay },
      reason === 'silent watch'
        ? 'watch went silent; relisting'
        : 'list/watch failed; relisting after backoff',
    );
    this.callbacks.restarted(reason);
    await this.sleep(reason === 'silent watch' ? 0 : delay, signal);
  }

  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    // No timer for a zero delay: the restart after a silent watch happens at once.
    return ms <= 0 ? Promise.resolve() : sleepOn(this.clock, ms, signal);
  }
}

/** Calls `onSilent` once no `touch` happened for `silenceMs`; checks only as often as needed. */
function startWatchdog(
  clock: Clock,
  silenceMs: number,
  onSilent: (silentFor: number) => void,
): { touch(): void; cancel(): void } {
  let last = clock.now();
  let cancelTimer = (): void => undefined;
  const check = (): void => {
    const silentFor = clock.now() - last;
    if (silentFor >= silenceMs) onSilent(silentFor);
    else cancelTimer = clock.setTimeout(check, silenceMs - silentFor);
  };
  cancelTimer = clock.setTimeout(check, silenceMs);
  return {
    touch: () => {
      last = clock.now();
    },
    cancel: () => cancelTimer(),
  };
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
