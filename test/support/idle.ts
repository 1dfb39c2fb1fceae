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
  /** Only the queues of these controllers (e.g. `secretbatch`); default every queue. */
  readonly queues?: readonly string[];
}

/** What the metrics said when the operator was found idle. */
export interface IdleState {
  /** Queue names seen. */
  readonly queues: readonly string[];
  /** Earliest scheduled work over those queues (ms since the epoch); undefined when none. */
  readonly nextWakeupAt: number | undefined;
}

interface Sample {
  readonly name: string;
  readonly values: readonly { readonly labels: Record<string, string | number>; readonly value: number }[];
}

/** Per queue: depth, in flight, next wake-up (ms; 0 = none), from one scrape. */
async function queueStates(metrics: OperatorMetrics) {
  const samples = (await metrics.registry.getMetricsAsJSON()) as unknown as Sample[];
  const series = (metric: string, label: string) =>
    new Map(
      (samples.find((s) => s.name === metric)?.values ?? []).map((v) => [String(v.labels[label]), v.value]),
    );
  const wakeups = series('coffer_next_wakeup_timestamp_seconds', 'source');
  const inFlight = series('coffer_workqueue_in_flight', 'name');
  return [...series('coffer_workqueue_depth', 'name')].map(([name, depth]) => ({
    name,
    depth,
    inFlight: inFlight.get(name) ?? 0,
    wakeupAt: (wakeups.get(`workqueue:${name}`) ?? 0) * 1000,
  }));
}

/** Why the queues are not idle, or undefined when they are. */
function busy(states: Awaited<ReturnType<typeof queueStates>>, horizonMs: number): string | undefined {
  const until = Date.now() + horizonMs;
  for (const q of states) {
    if (q.depth > 0 || q.inFlight > 0) return `queue ${q.name}: ${q.depth} waiting, ${q.inFlight} in flight`;
    if (q.wakeupAt > 0 && q.wakeupAt < until)
      return `queue ${q.name}: work due in ${Math.max(0, q.wakeupAt - Date.now())} ms`;
  }
  return undefined;
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
    const all = await queueStates(operator.manager.metrics);
    const states = options.queues ? all.filter((q) => options.queues?.includes(q.name)) : all;
    if (options.queues && states.length !== options.queues.length)
      throw new Error(`no such queue among ${all.map((q) => q.name).join(', ')}`);
    reason = busy(states, horizonMs) ?? '';
    streak = reason ? 0 : streak + 1;
    if (streak < 2) return undefined;
    const wakeups = states.map((q) => q.wakeupAt).filter((at) => at > 0);
    return {
      queues: states.map((q) => q.name),
      nextWakeupAt: wakeups.length > 0 ? Math.min(...wakeups) : undefined,
    };
  };
  try {
    return await waitFor(check, { timeoutMs, intervalMs: 100, message: 'the operator to be idle' });
  } catch (error) {
    throw new Error(`${(error as Error).message} (last: ${reason})`, { cause: error });
  }
}
