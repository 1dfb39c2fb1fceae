// "Nothing happens" by a signal instead of a sleep. The operator is idle when every work queue is
// empty with nothing in flight and no queue is due to act on its own (a poll, a requeue, a retry
// after backoff) within a horizon: read from the operator's metrics registry, the numbers a user
// reads on /metrics (`coffer_workqueue_depth`, `coffer_workqueue_in_flight`,
// `coffer_next_wakeup_timestamp_seconds`; see src/runtime/metrics.ts).
//
// A test that asserts that something did NOT happen waits for this first, then checks its
// counters: had the operator been about to act (a retry loop, a requeue that reads the service
// again, a reconcile still running), the operator would not have been idle, the helper would
// have waited for that work, and the counters would have moved.
import type { OperatorMetrics } from '../../src/runtime/metrics.ts';
import { waitFor } from './wait-for.ts';

export interface IdleOptions {
  /**
   * Nothing may be scheduled sooner than this from now (default 10 s): work due within it
   * (a waiting requeue, a retry with a short backoff) is awaited first.
   */
  readonly horizonMs?: number;
  /** Give up after this long (default 60 s): an operator that never settles fails the test. */
  readonly timeoutMs?: number;
  /**
   * Only the queues of these controllers (e.g. `secretbatch`); default every queue and every
   * other source of scheduled work (the project event hubs' folder checks).
   */
  readonly queues?: readonly string[];
}

/** What the metrics said when the operator was found idle. */
export interface IdleState {
  /** Queue names seen. */
  readonly queues: readonly string[];
  /** Earliest scheduled work of those sources (ms since the epoch); undefined when none. */
  readonly nextWakeupAt: number | undefined;
  /** Scheduled work by source (`workqueue:<name>`, `project-events`; ms since the epoch). */
  readonly wakeups: Readonly<Record<string, number>>;
}

interface Sample {
  readonly name: string;
  readonly values: readonly { readonly labels: Record<string, string | number>; readonly value: number }[];
}

/** Per queue (depth, in flight) and per source (next wake-up, ms; 0 = none), from one scrape. */
async function scrape(metrics: OperatorMetrics) {
  const samples = (await metrics.registry.getMetricsAsJSON()) as unknown as Sample[];
  const series = (metric: string, label: string) =>
    new Map(
      (samples.find((s) => s.name === metric)?.values ?? []).map((v) => [String(v.labels[label]), v.value]),
    );
  const inFlight = series('coffer_workqueue_in_flight', 'name');
  const queues = [...series('coffer_workqueue_depth', 'name')].map(([name, depth]) => ({
    name,
    depth,
    inFlight: inFlight.get(name) ?? 0,
  }));
  const wakeups = [...series('coffer_next_wakeup_timestamp_seconds', 'source')].map(([source, at]) => ({
    source,
    at: at * 1000,
  }));
  return { queues, wakeups };
}

/** Why the operator is not idle, or undefined when it is. */
function busy(state: Awaited<ReturnType<typeof scrape>>, horizonMs: number): string | undefined {
  for (const q of state.queues) {
    if (q.depth > 0 || q.inFlight > 0) return `queue ${q.name}: ${q.depth} waiting, ${q.inFlight} in flight`;
  }
  const until = Date.now() + horizonMs;
  for (const w of state.wakeups) {
    if (w.at > 0 && w.at < until) return `${w.source}: work due in ${Math.max(0, w.at - Date.now())} ms`;
  }
  return undefined;
}

/** Only the queues named (and their wake-ups), when `names` is given; throws for an unknown name. */
function only(state: Awaited<ReturnType<typeof scrape>>, names: readonly string[] | undefined) {
  if (!names) return state;
  const unknown = names.filter((name) => !state.queues.some((q) => q.name === name));
  if (unknown.length > 0) throw new Error(`no queue ${unknown.join(', ')}`);
  return {
    queues: state.queues.filter((q) => names.includes(q.name)),
    wakeups: state.wakeups.filter((w) => names.some((name) => w.source === `workqueue:${name}`)),
  };
}

/**
 * Resolves once the operator is idle (see the module comment) on two scrapes in a row (100 ms
 * apart, so that a watch event the last reconcile caused on loopback has been delivered);
 * throws after `timeoutMs`, naming the last queue that was busy.
 */
export async function waitForOperatorIdle(
  operator: { readonly manager: { readonly metrics: OperatorMetrics } },
  options: IdleOptions = {},
): Promise<IdleState> {
  const { horizonMs = 10_000, timeoutMs = 60_000 } = options;
  let streak = 0;
  let reason = 'no scrape yet';
  const check = async (): Promise<IdleState | undefined> => {
    const state = only(await scrape(operator.manager.metrics), options.queues);
    reason = busy(state, horizonMs) ?? '';
    streak = reason ? 0 : streak + 1;
    if (streak < 2) return undefined;
    const wakeups = state.wakeups.map((w) => w.at).filter((at) => at > 0);
    return {
      queues: state.queues.map((q) => q.name),
      nextWakeupAt: wakeups.length > 0 ? Math.min(...wakeups) : undefined,
      wakeups: Object.fromEntries(state.wakeups.filter((w) => w.at > 0).map((w) => [w.source, w.at])),
    };
  };
  try {
    return await waitFor(check, { timeoutMs, intervalMs: 100, message: 'the operator to be idle' });
  } catch (error) {
    throw new Error(`${(error as Error).message} (last: ${reason})`, { cause: error });
  }
}
