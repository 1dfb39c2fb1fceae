/**
 * Records Kubernetes events in the background, so a reconcile never waits for the API server to
 * store one (client-go's event broadcaster is asynchronous for the same reason).
 *
 * Contract:
 * - `record` returns at once; the event is handed to the wrapped recorder later.
 * - Events about one object are written in the order they were recorded, one at a time (an
 *   object always maps to the same lane), so the wrapped recorder's folding of repeated events
 *   sees them in order. At most `lanes` events are being written at once.
 * - At most `maxQueued` events wait; further events are dropped (counted through `onDropped`,
 *   logged once per burst), as client-go drops events when its queue is full: events are best
 *   effort and must not grow memory without bound while the API server is slow or away.
 * - `flush` resolves when every event recorded before the call was written or given up.
 * - With a `correlator`, each event is first put to it (synchronously, at record time): skipped
 *   events never enter the queue (counted through `onSkipped`), combined ones enter with their
 *   combined message (see `EventCorrelator`).
 */
import type { Logger } from 'pino';
import type { EventCorrelator } from './event-correlator.ts';
import type { EventInput, EventRecorder } from './events.ts';
import type { KubeObject } from './object-meta.ts';

export interface EventQueueOptions {
  /** Events written at once (default 1: one after the other, as client-go's broadcaster does). */
  readonly lanes?: number;
  /** Events waiting at most (default 1000); more are dropped. */
  readonly maxQueued?: number;
  /** Called for every dropped event (a metric). */
  readonly onDropped?: () => void;
  /** Decides first whether an event is written, combined or skipped (default: every event written). */
  readonly correlator?: EventCorrelator;
  /** Called for every event the correlator skipped, with its reason (a metric). */
  readonly onSkipped?: (reason: string) => void;
  readonly log?: Logger;
}

/** An EventRecorder whose `record` does not wait; see the module comment. */
export interface QueuedEventRecorder extends EventRecorder {
  /** Resolves when every event recorded so far was written or given up. */
  flush(): Promise<void>;
  /** Events recorded and not yet written (waiting or being written). */
  readonly pending: number;
}

/** What an Event names of its object: a waiting event does not keep the whole object alive. */
function involvedObject(obj: KubeObject): KubeObject {
  const { name, namespace, uid, resourceVersion } = obj.metadata ?? {};
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: { name, namespace, uid, resourceVersion },
  };
}

function laneIndex(obj: KubeObject, lanes: number): number {
  const key = obj.metadata?.uid ?? `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
  let hash = 0;
  for (let i = 0; i < key.length; i++) hash = (hash * 31 + key.charCodeAt(i)) | 0;
  return Math.abs(hash) % lanes;
}

/** Wraps `inner` (usually `createEventRecorder`) in a bounded background queue. */
export function queueEvents(inner: EventRecorder, options: EventQueueOptions = {}): QueuedEventRecorder {
  const laneCount = Math.max(1, options.lanes ?? 1);
  const maxQueued = Math.max(1, options.maxQueued ?? 1000);
  // Each lane is a promise chain: an event is written when the one before it in its lane is.
  const tails: Promise<void>[] = Array.from({ length: laneCount }, () => Promise.resolve());
  let pending = 0;
  let dropping = false;

  async function write(obj: KubeObject, event: EventInput): Promise<void> {
    try {
      await inner.record(obj, event);
    } catch (error) {
      // The wrapped recorder should not throw; a bug there must not break the lane.
      options.log?.warn({ err: error, reason: event.reason }, 'cannot record event');
    } finally {
      pending -= 1;
      if (pending === 0) dropping = false;
    }
  }

  return {
    get pending() {
      return pending;
    },
    record(obj, original) {
      const verdict = options.correlator?.correlate(obj, original) ?? { record: original };
      if (!('record' in verdict)) {
        options.onSkipped?.(original.reason);
        return Promise.resolve();
      }
      const event = verdict.record;
      if (pending >= maxQueued) {
        options.onDropped?.();
        if (!dropping) {
          dropping = true;
          options.log?.warn(
            { reason: event.reason, maxQueued },
            'event queue full: dropping events until the API server catches up',
          );
        }
        return Promise.resolve();
      }
      pending += 1;
      const index = laneIndex(obj, laneCount);
      const about = involvedObject(obj);
      tails[index] = (tails[index] ?? Promise.resolve()).then(() => write(about, event));
      return Promise.resolve();
    },
    async flush() {
      await Promise.all(tails);
    },
  };
}
