/**
 * Kubernetes events (core/v1, what `kubectl describe` shows) for things that happened: an
 * external object created, updated, deleted, adopted, or an attempt that failed.
 *
 * Contract: callers record only when something happened; the recorder additionally folds an
 * identical (type, reason, message) for the same object within `windowMs` into the existing Event
 * by incrementing its `count`, as the client-go correlator does. Recording never throws (events
 * are best effort). Messages must never contain secret values: callers build them from names,
 * ids and service error messages only; the recorder caps their length.
 */
import type { CoreV1Event, KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { kubeRequest } from './kube-request.ts';
import type { KubeObject } from './object-meta.ts';

export type EventType = 'Normal' | 'Warning';

/** One event to record about an object. */
export interface EventInput {
  readonly type: EventType;
  /** CamelCase verb phrase, e.g. `CreatedExternal`, `CannotCreateExternal`. */
  readonly reason: string;
  readonly message: string;
}

/** Records events about objects. */
export interface EventRecorder {
  record(obj: KubeObject, event: EventInput): Promise<void>;
}

/** Where the recorder writes core/v1 Events: `kubeEventsApi` in production, a fake in unit tests. */
export interface EventsApi {
  /** Creates `event` in `namespace`. */
  create(namespace: string, event: CoreV1Event): Promise<void>;
  /** Applies a JSON merge patch to the Event `namespace/name`; rejects when it is gone. */
  mergePatch(namespace: string, name: string, patch: object): Promise<void>;
}

/** An `EventsApi` over plain JSON requests to the kubeconfig's cluster (`kubeRequest`). */
export function kubeEventsApi(kubeConfig: KubeConfig): EventsApi {
  const events = (namespace: string) => `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`;
  return {
    async create(namespace, event) {
      await kubeRequest(kubeConfig, { method: 'POST', path: events(namespace), body: event });
    },
    async mergePatch(namespace, name, patch) {
      const path = `${events(namespace)}/${encodeURIComponent(name)}`;
      await kubeRequest(kubeConfig, {
        method: 'PATCH',
        path,
        body: patch,
        contentType: 'application/merge-patch+json',
      });
    },
  };
}

export interface EventRecorderOptions {
  readonly api: EventsApi;
  /** `source.component` / `reportingComponent`, e.g. `coffer`. */
  readonly component: string;
  /** `reportingInstance`, e.g. the pod name. */
  readonly instance?: string;
  /** Identical events within this window are folded into one (default 10 minutes). */
  readonly windowMs?: number;
  /** Remembered recent events (default 4096); the oldest is forgotten first. */
  readonly maxEntries?: number;
  readonly now?: () => Date;
  readonly log?: Logger;
}

/**
 * The prefix of a message combined from similar events (client-go's wording; see
 * `EventCorrelator`): every combined event of one (object, type, reason) folds into one Event,
 * whose message becomes the latest one.
 */
export const COMBINED_PREFIX = '(combined from similar events): ';

/** Kubernetes limits event messages to 1 KiB in practice (`kubectl` truncates the rest). */
const maxMessageLength = 1024;

interface Seen {
  readonly namespace: string;
  readonly name: string;
  count: number;
  lastSeen: number;
}

interface EventPlacement {
  readonly name: string;
  readonly namespace: string;
  readonly time: Date;
  readonly component: string;
  readonly instance: string;
}

function capped(message: string): string {
  return message.length > maxMessageLength ? `${message.slice(0, maxMessageLength - 3)}...` : message;
}

function eventBody(obj: KubeObject, event: EventInput, at: EventPlacement): CoreV1Event {
  const message = capped(event.message);
  return {
    metadata: { name: at.name, namespace: at.namespace },
    involvedObject: {
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      name: obj.metadata?.name,
      namespace: obj.metadata?.namespace,
      uid: obj.metadata?.uid,
      resourceVersion: obj.metadata?.resourceVersion,
    },
    type: event.type,
    reason: event.reason,
    message,
    count: 1,
    firstTimestamp: at.time,
    lastTimestamp: at.time,
    source: { component: at.component },
    reportingComponent: at.component,
    reportingInstance: at.instance,
  };
}

/** An EventRecorder writing core/v1 Events. */
export function createEventRecorder(options: EventRecorderOptions): EventRecorder {
  const windowMs = options.windowMs ?? 10 * 60_000;
  const maxEntries = options.maxEntries ?? 4096;
  const now = options.now ?? (() => new Date());
  const { component } = options;
  const instance = options.instance ?? component;
  const seen = new Map<string, Seen>();
  let sequence = 0;

  function remember(key: string, entry: Seen): void {
    seen.delete(key);
    seen.set(key, entry);
    if (seen.size > maxEntries) {
      const oldest = seen.keys().next().value;
      if (oldest !== undefined) seen.delete(oldest);
    }
  }

  async function increment(entry: Seen, time: Date, message: string | undefined): Promise<boolean> {
    try {
      const body = {
        count: entry.count + 1,
        lastTimestamp: time.toISOString(),
        ...(message === undefined ? {} : { message: capped(message) }),
      };
      await options.api.mergePatch(entry.namespace, entry.name, body);
      entry.count += 1;
      entry.lastSeen = time.getTime();
      return true;
    } catch {
      // The Event expired (TTL) or was deleted: fall back to a new one.
      return false;
    }
  }

  async function create(obj: KubeObject, event: EventInput, time: Date): Promise<Seen> {
    const namespace = obj.metadata?.namespace ?? 'default';
    const name = `${obj.metadata?.name ?? 'unknown'}.${(BigInt(time.getTime()) * 1_000_000n + BigInt(sequence++ % 1_000_000)).toString(16)}`;
    await options.api.create(
      namespace,
      eventBody(obj, event, { name, namespace, time, component, instance }),
    );
    return { namespace, name, count: 1, lastSeen: time.getTime() };
  }

  return {
    async record(obj, event) {
      const time = now();
      const combined = event.message.startsWith(COMBINED_PREFIX);
      const message = combined ? COMBINED_PREFIX : event.message;
      const key = [obj.metadata?.uid ?? obj.metadata?.name, event.type, event.reason, message].join('\u0000');
      const previous = seen.get(key);
      try {
        const fresh = previous && time.getTime() - previous.lastSeen < windowMs;
        if (fresh && (await increment(previous, time, combined ? event.message : undefined))) {
          remember(key, previous);
          return;
        }
        remember(key, await create(obj, event, time));
      } catch (error) {
        options.log?.warn({ err: error, reason: event.reason }, 'cannot record event');
      }
    },
  };
}
