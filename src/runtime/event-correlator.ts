/**
 * Decides, before an event is queued, whether it is written as is, written combined with similar
 * ones, or skipped: client-go's EventCorrelator (per-object spam filter and aggregation of
 * similar events) plus one budget shared by all objects for routine events, so a bulk apply of
 * thousands of resources does not write thousands of "created" events while the API server is
 * busiest.
 *
 * Contract, per `correlate(obj, event)`:
 * - the first occurrence of an event (object, type, reason, message) about an object is never
 *   skipped by the per-object filter; repeats of it (which only bump the stored Event's count) are
 *   limited per object by a token bucket (client-go: burst 25, then one per 5 minutes);
 * - similar events (same object, type and reason, a different message each time): from the
 *   `similarThreshold`-th distinct message within `similarWindowMs`, the message is replaced by
 *   `(combined from similar events): <message>`; the recorder folds every combined event of one
 *   (object, type, reason) into one Event, updating its message and count (client-go: 10 within
 *   10 minutes);
 * - routine events (`routine(event)`, e.g. Normal `CreatedExternal`): share one token bucket
 *   across all objects (`routineBurst`, `routineQps`); over it they are skipped and counted by
 *   reason (`skipped`). Warnings are never routine: a Warning is always written (its repeats at
 *   least as counts within the per-object filter).
 * State is bounded: at most `maxObjects` objects are remembered (least recently used forgotten).
 */
import { systemClock, type Clock } from './clock.ts';
import { COMBINED_PREFIX, type EventInput } from './events.ts';
import type { KubeObject } from './object-meta.ts';
import { TokenBucket } from './token-bucket.ts';

export interface EventCorrelatorOptions {
  readonly clock?: Clock;
  /** Repeats of one event per object: burst (default 25) and refill per second (default 1/300). */
  readonly objectBurst?: number;
  readonly objectQps?: number;
  /** Distinct messages of one (type, reason) per object before they are combined (default 10). */
  readonly similarThreshold?: number;
  /** Window in which similar messages are counted (default 10 minutes). */
  readonly similarWindowMs?: number;
  /** Which events share the budget across objects (default: none). Warnings never do. */
  readonly routine?: (event: EventInput) => boolean;
  /** The shared budget of routine events: burst (default 100) and refill per second (default 5). */
  readonly routineBurst?: number;
  readonly routineQps?: number;
  /** Objects remembered at most (default 4096). */
  readonly maxObjects?: number;
}

/** What to do with an event: write `record` (possibly with a combined message), or skip it. */
export type Correlation =
  { readonly record: EventInput } | { readonly skip: 'repeated-too-often' | 'routine-budget' };

/** The similar events of one (type, reason) about one object within the current window. */
interface Similar {
  /** Messages written as they are (at most `similarThreshold - 1`). */
  readonly messages: Set<string>;
  /** Whether a combined event was written in this window. */
  combined: boolean;
  readonly since: number;
}

interface ObjectState {
  readonly repeats: TokenBucket;
  readonly similar: Map<string, Similar>;
}

export class EventCorrelator {
  private readonly clock: Clock;
  private readonly options: Required<Omit<EventCorrelatorOptions, 'clock' | 'routine'>>;
  private readonly routine: (event: EventInput) => boolean;
  private readonly budget: TokenBucket;
  private readonly objects = new Map<string, ObjectState>();
  private readonly skippedByReason = new Map<string, number>();

  constructor(options: EventCorrelatorOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.options = {
      objectBurst: options.objectBurst ?? 25,
      objectQps: options.objectQps ?? 1 / 300,
      similarThreshold: options.similarThreshold ?? 10,
      similarWindowMs: options.similarWindowMs ?? 10 * 60_000,
      routineBurst: options.routineBurst ?? 100,
      routineQps: options.routineQps ?? 5,
      maxObjects: options.maxObjects ?? 4096,
    };
    this.routine = options.routine ?? (() => false);
    this.budget = new TokenBucket({
      qps: this.options.routineQps,
      burst: this.options.routineBurst,
      clock: this.clock,
    });
  }

  /** The verdict for `event` about `obj`; see the module comment. */
  correlate(obj: KubeObject, event: EventInput): Correlation {
    if (event.type !== 'Warning' && this.routine(event) && !take(this.budget)) {
      return this.withhold(event, 'routine-budget');
    }
    const state = this.stateOf(obj);
    const { event: written, repeat } = this.combine(state, event);
    if (repeat && !take(state.repeats)) return this.withhold(event, 'repeated-too-often');
    return { record: written };
  }

  /** Events skipped so far, by reason. */
  get skipped(): ReadonlyMap<string, number> {
    return this.skippedByReason;
  }

  private withhold(event: EventInput, why: 'repeated-too-often' | 'routine-budget'): Correlation {
    this.skippedByReason.set(event.reason, (this.skippedByReason.get(event.reason) ?? 0) + 1);
    return { skip: why };
  }

  /** The event to write (its message combined from the threshold on) and whether it repeats one. */
  private combine(state: ObjectState, event: EventInput): { event: EventInput; repeat: boolean } {
    const now = this.clock.now();
    const key = `${event.type}\0${event.reason}`;
    let similar = state.similar.get(key);
    if (!similar || now - similar.since >= this.options.similarWindowMs) {
      similar = { messages: new Set(), combined: false, since: now };
      state.similar.set(key, similar);
    }
    if (similar.messages.has(event.message)) return { event, repeat: true };
    if (similar.messages.size < this.options.similarThreshold - 1) {
      similar.messages.add(event.message);
      return { event, repeat: false };
    }
    const repeat = similar.combined;
    similar.combined = true;
    return { event: { ...event, message: `${COMBINED_PREFIX}${event.message}` }, repeat };
  }

  private stateOf(obj: KubeObject): ObjectState {
    const { uid, namespace, name } = obj.metadata ?? {};
    const key = uid ?? `${obj.kind ?? ''}/${namespace ?? ''}/${name ?? ''}`;
    let state = this.objects.get(key);
    if (state) {
      this.objects.delete(key); // re-inserted below: most recently used last
    } else {
      const { objectBurst: burst, objectQps: qps } = this.options;
      state = { repeats: new TokenBucket({ qps, burst, clock: this.clock }), similar: new Map() };
    }
    this.objects.set(key, state);
    if (this.objects.size > this.options.maxObjects) {
      const oldest = this.objects.keys().next().value;
      if (oldest !== undefined) this.objects.delete(oldest);
    }
    return state;
  }
}

/** Takes a token when one is available now; leaves the bucket as it was otherwise. */
function take(bucket: TokenBucket): boolean {
  if (bucket.reserve() === 0) return true;
  bucket.release();
  return false;
}
