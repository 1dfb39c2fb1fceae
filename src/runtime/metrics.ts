/**
 * Prometheus metrics of one manager, in its own `Registry` (never prom-client's global one, so
 * tests and several managers in one process do not collide).
 *
 * | metric                                        | type      | labels                      |
 * |-----------------------------------------------|-----------|-----------------------------|
 * | coffer_reconcile_total                        | counter   | controller, kind, result    |
 * | coffer_reconcile_duration_seconds             | histogram | controller, kind            |
 * | coffer_workqueue_depth                        | gauge     | name                        |
 * | coffer_workqueue_in_flight                    | gauge     | name                        |
 * | coffer_next_wakeup_timestamp_seconds          | gauge     | source                      |
 * | coffer_workqueue_queue_duration_seconds       | histogram | name                        |
 * | coffer_workqueue_adds_total                   | counter   | name                        |
 * | coffer_workqueue_retries_total                | counter   | name                        |
 * | coffer_informer_restarts_total                | counter   | informer                    |
 * | coffer_informer_synced                        | gauge     | informer                    |
 * | coffer_service_requests_total                 | counter   | operation, status           |
 * | coffer_service_request_duration_seconds       | histogram | operation                   |
 * | coffer_leader_election_status                 | gauge     | name                        |
 * | coffer_events_dropped_total                   | counter   |                             |
 * | coffer_events_skipped_total                   | counter   | reason                      |
 * | coffer_cached_secret_values                   | gauge     |                             |
 *
 * `result` is `success`, `requeue_after`, or the error class (`terminal`, `waiting`,
 * `rate_limited`, `conflict`, `transient`). `status` is the HTTP status, or `error` when no
 * response arrived.
 *
 * Idle: the operator has nothing to do when, for every queue, `coffer_workqueue_depth` and
 * `coffer_workqueue_in_flight` are 0; it next acts on its own (a poll, a requeue, a retry after
 * backoff, an event stream reconnect, a folder check) at the earliest `coffer_next_wakeup_timestamp_seconds` (Unix time; 0
 * while nothing is scheduled; `source` is `workqueue:<name>` per work queue, or a part registered
 * with `scheduledWork`, e.g. `project-events`). Until then only a change (a watch event, a
 * service event) makes it work.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { startHttpServer, type ListenAddress, type RunningServer } from './http-server.ts';
import type { WorkQueueHooks } from './work-queue.ts';

/** Outcome label of one reconcile. */
export type ReconcileResultLabel =
  'success' | 'requeue_after' | 'terminal' | 'waiting' | 'rate_limited' | 'conflict' | 'transient';

/** One service API call attempt, as reported by the service client's `onRequest` hook. */
export interface ServiceRequestInfo {
  readonly operation: string;
  /** HTTP status; 0 means no response arrived. */
  readonly status: number;
  readonly durationMs: number;
}

export interface OperatorMetricsOptions {
  /** Also collect Node process metrics (memory, event loop lag, ...). Default true. */
  readonly processMetrics?: boolean;
}

const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const waitBuckets = [0.001, 0.01, 0.1, 0.5, 1, 5, 10, 30, 60, 300];

/** The two counters of Kubernetes events not written: dropped (queue full) and skipped (correlation). */
function eventCounters(registers: Registry[]): [Counter, Counter<'reason'>] {
  const dropped = new Counter({
    name: 'coffer_events_dropped_total',
    help: 'Kubernetes events dropped because too many were waiting to be written.',
    registers,
  });
  const skipped = new Counter({
    name: 'coffer_events_skipped_total',
    help: 'Routine or repeated Kubernetes events not written (event correlation), by event reason.',
    labelNames: ['reason'],
    registers,
  });
  return [dropped, skipped];
}

/**
 * The gauges that tell whether the operator is idle (see the module comment): queue depth, keys
 * in flight, and `coffer_next_wakeup_timestamp_seconds`, read from `wakeups` at each scrape.
 */
function idleGauges(
  registers: Registry[],
  wakeups: Map<string, () => number | undefined>,
): [Gauge<'name'>, Gauge<'name'>] {
  const depth = new Gauge({
    name: 'coffer_workqueue_depth',
    help: 'Keys waiting in the work queue.',
    labelNames: ['name'],
    registers,
  });
  const inFlight = new Gauge({
    name: 'coffer_workqueue_in_flight',
    help: 'Keys being reconciled (handed to a worker and not finished).',
    labelNames: ['name'],
    registers,
  });
  new Gauge({
    name: 'coffer_next_wakeup_timestamp_seconds',
    help: 'When the source next does scheduled work (a poll, a requeue, a retry), Unix time; 0 when nothing is scheduled.',
    labelNames: ['source'],
    registers,
    collect() {
      for (const [source, nextAt] of wakeups) this.set({ source }, (nextAt() ?? 0) / 1000);
    },
  });
  return [depth, inFlight];
}

export class OperatorMetrics {
  readonly registry = new Registry();
  private readonly reconciles: Counter<'controller' | 'kind' | 'result'>;
  private readonly reconcileDuration: Histogram<'controller' | 'kind'>;
  private readonly queueDepth: Gauge<'name'>;
  private readonly queueInFlight: Gauge<'name'>;
  /** Per source, when it next does scheduled work (ms since the epoch), see `scheduledWork`. */
  private readonly wakeups = new Map<string, () => number | undefined>();
  private readonly queueWait: Histogram<'name'>;
  private readonly queueAdds: Counter<'name'>;
  private readonly queueRetries: Counter<'name'>;
  private readonly informerRestarts: Counter<'informer'>;
  private readonly informerSynced: Gauge<'informer'>;
  private readonly serviceRequests: Counter<'operation' | 'status'>;
  private readonly serviceDuration: Histogram<'operation'>;
  private readonly leader: Gauge<'name'>;
  private readonly eventsDropped: Counter;
  private readonly eventsSkipped: Counter<'reason'>;
  private secretValueCount: (() => number) | undefined;

  constructor(options: OperatorMetricsOptions = {}) {
    const registers = [this.registry];
    this.reconciles = new Counter({
      name: 'coffer_reconcile_total',
      help: 'Reconciles by controller, kind and result.',
      labelNames: ['controller', 'kind', 'result'],
      registers,
    });
    this.reconcileDuration = new Histogram({
      name: 'coffer_reconcile_duration_seconds',
      help: 'Time spent in one reconcile.',
      labelNames: ['controller', 'kind'],
      buckets: durationBuckets,
      registers,
    });
    [this.queueDepth, this.queueInFlight] = idleGauges(registers, this.wakeups);
    this.queueWait = new Histogram({
      name: 'coffer_workqueue_queue_duration_seconds',
      help: 'Time a key waited in the work queue before a worker took it.',
      labelNames: ['name'],
      buckets: waitBuckets,
      registers,
    });
    this.queueAdds = new Counter({
      name: 'coffer_workqueue_adds_total',
      help: 'Adds to the work queue.',
      labelNames: ['name'],
      registers,
    });
    this.queueRetries = new Counter({
      name: 'coffer_workqueue_retries_total',
      help: 'Rate-limited re-adds (backoff).',
      labelNames: ['name'],
      registers,
    });
    this.informerRestarts = new Counter({
      name: 'coffer_informer_restarts_total',
      help: 'Informer list/watch restarts after an error or a silent watch.',
      labelNames: ['informer'],
      registers,
    });
    this.informerSynced = new Gauge({
      name: 'coffer_informer_synced',
      help: '1 once the informer finished its initial list.',
      labelNames: ['informer'],
      registers,
    });
    this.serviceRequests = new Counter({
      name: 'coffer_service_requests_total',
      help: 'Service API request attempts by operation and HTTP status ("error" when no response).',
      labelNames: ['operation', 'status'],
      registers,
    });
    this.serviceDuration = new Histogram({
      name: 'coffer_service_request_duration_seconds',
      help: 'Service API request attempt latency.',
      labelNames: ['operation'],
      buckets: durationBuckets,
      registers,
    });
    this.leader = new Gauge({
      name: 'coffer_leader_election_status',
      help: '1 while this replica holds the Lease.',
      labelNames: ['name'],
      registers,
    });
    [this.eventsDropped, this.eventsSkipped] = eventCounters(registers);
    const held = () => this.secretValueCount?.() ?? 0;
    new Gauge({
      name: 'coffer_cached_secret_values',
      help: 'Secrets whose values the operator holds in memory (the sources SecretBatches reference).',
      registers,
      collect() {
        this.set(held());
      },
    });
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** Records one finished reconcile. */
  observeReconcile(controller: string, kind: string, result: ReconcileResultLabel, durationMs: number): void {
    this.reconciles.inc({ controller, kind, result });
    this.reconcileDuration.observe({ controller, kind }, durationMs / 1000);
  }

  /** Hooks to pass to a `WorkQueue` named `name` (usually the controller name). */
  queueHooks(name: string): WorkQueueHooks {
    // Bind label sets once: these run on every add/get.
    const depth = this.queueDepth.labels({ name });
    const wait = this.queueWait.labels({ name });
    const adds = this.queueAdds.labels({ name });
    const retries = this.queueRetries.labels({ name });
    const inFlight = this.queueInFlight.labels({ name });
    depth.set(0);
    inFlight.set(0);
    return {
      depth: (d) => depth.set(d),
      inFlight: (n) => inFlight.set(n),
      queueWait: (ms) => wait.observe(ms / 1000),
      added: () => adds.inc(),
      retried: () => retries.inc(),
    };
  }

  /**
   * Reports when `source` next does work on its own: `nextAt` returns that time (ms since the
   * epoch) or undefined when nothing is scheduled; it is read at each scrape.
   */
  scheduledWork(source: string, nextAt: () => number | undefined): void {
    this.wakeups.set(source, nextAt);
  }

  /**
   * Reports how many Secrets' values the operator holds in memory (`coffer_cached_secret_values`);
   * `count` is read at each scrape.
   */
  cachedSecretValues(count: () => number): void {
    this.secretValueCount = count;
  }

  /** Counts one restart of the informer `informer`. */
  informerRestarted(informer: string): void {
    this.informerRestarts.inc({ informer });
  }

  /** Sets whether `informer` has synced. */
  setInformerSynced(informer: string, synced: boolean): void {
    this.informerSynced.set({ informer }, synced ? 1 : 0);
  }

  /** Records one service API attempt; pass this as (or from) the service client's `onRequest`. */
  readonly serviceRequest = (info: ServiceRequestInfo): void => {
    const status = info.status > 0 ? String(info.status) : 'error';
    this.serviceRequests.inc({ operation: info.operation, status });
    this.serviceDuration.observe({ operation: info.operation }, info.durationMs / 1000);
  };

  /** Sets the leader gauge for the Lease `name`. */
  setLeader(name: string, isLeader: boolean): void {
    this.leader.set({ name }, isLeader ? 1 : 0);
  }

  /** Counts one Kubernetes event dropped by the event queue. */
  readonly eventDropped = (): void => {
    this.eventsDropped.inc();
  };

  /** Counts one Kubernetes event the event correlator skipped. */
  readonly eventSkipped = (reason: string): void => {
    this.eventsSkipped.inc({ reason });
  };

  /** The exposition text (Prometheus text format). */
  async text(): Promise<string> {
    return this.registry.metrics();
  }
}

/** Serves `GET /metrics` from `metrics` on `address`. */
export function serveMetrics(metrics: OperatorMetrics, address: ListenAddress): Promise<RunningServer> {
  return startHttpServer(address, {
    '/metrics': async () => ({
      status: 200,
      body: await metrics.text(),
      contentType: metrics.registry.contentType,
    }),
  });
}
