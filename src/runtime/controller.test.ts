import { Writable } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.ts';
import { Controller } from './controller.ts';
import { ConflictError, RateLimitedError, TerminalError, TransientError, WaitingError } from './errors.ts';
import { createLogger } from './logger.ts';
import { OperatorMetrics } from './metrics.ts';
import type { Reconciler, Request, Result } from './reconcile.ts';
import { commonReasons } from './common-reasons.ts';
import { testReason } from './reasons.ts';

function setup(outcomes: (Result | Error)[], workers = 1) {
  const clock = new ManualClock();
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _e, next) {
      for (const l of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(l) as Record<string, unknown>);
      next();
    },
  });
  const log = createLogger({ level: 'debug', destination });
  const calls: Request[] = [];
  const reconciler: Reconciler = (request) => {
    calls.push(request);
    const next = outcomes.shift() ?? {};
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  };
  const metrics = new OperatorMetrics({ processMetrics: false });
  const controller = new Controller({
    name: 'widget',
    kind: 'Widget',
    reconciler,
    log,
    metrics,
    maxConcurrentReconciles: workers,
    queue: { clock, backoff: { jitter: 0 }, rateLimit: { qps: 1_000, burst: 1_000 } },
  });
  return { clock, lines, calls, controller, metrics };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await tick();
}

describe('Controller error handling', () => {
  it.each([
    {
      reason: 'success forgets and does not requeue',
      outcome: {},
      delayed: 0,
      result: 'success',
      level: 'debug',
    },
    {
      reason: 'requeueAfter schedules a delayed add',
      outcome: { requeueAfterMs: 60_000 },
      delayed: 1,
      result: 'requeue_after',
      level: 'debug',
    },
    {
      reason: 'terminal is not retried',
      outcome: new TerminalError(testReason('InvalidSpec'), 'spec.name: required'),
      delayed: 0,
      result: 'terminal',
      level: 'info',
    },
    {
      reason: 'waiting requeues after its delay',
      outcome: new WaitingError(testReason('ReferenceNotReady'), 'project p not ready', 30_000),
      delayed: 1,
      result: 'waiting',
      level: 'debug',
    },
    {
      reason: 'rate limited waits for Retry-After',
      outcome: new RateLimitedError(testReason('RateLimited'), 'slow down', 7_000),
      delayed: 1,
      result: 'rate_limited',
      level: 'info',
    },
    {
      reason: 'conflict requeues silently',
      outcome: new ConflictError(commonReasons.names.Conflict, 'object modified'),
      delayed: 1,
      result: 'conflict',
      level: 'debug',
    },
    {
      reason: 'transient backs off and logs an error',
      outcome: new TransientError(testReason('ServiceUnavailable'), 'HTTP 503'),
      delayed: 1,
      result: 'transient',
      level: 'error',
    },
    {
      reason: 'unknown errors count as transient',
      outcome: new Error('socket hang up'),
      delayed: 1,
      result: 'transient',
      level: 'error',
    },
  ])('$reason', async ({ outcome, delayed, result, level }) => {
    const { controller, calls, lines, metrics } = setup([outcome]);
    controller.start();
    controller.enqueue({ namespace: 'ns', name: 'w1' });
    await settle();
    expect(calls).toEqual([{ namespace: 'ns', name: 'w1' }]);
    expect(controller.queue.delayedLen()).toBe(delayed);
    expect(controller.queue.len()).toBe(0);
    const line = lines.at(-1) ?? {};
    expect(line).toMatchObject({ level, controller: 'widget', kind: 'Widget', namespace: 'ns', name: 'w1' });
    expect(await metrics.text()).toContain(
      `coffer_reconcile_total{controller="widget",kind="Widget",result="${result}"} 1`,
    );
    await controller.stop(1_000);
  });

  it.each([
    {
      reason: 'waiting',
      outcome: new WaitingError(testReason('ReferenceNotReady'), 'x', 30_000),
      notAt: 29_999,
      at: 30_000,
    },
    {
      reason: 'rate limited',
      outcome: new RateLimitedError(testReason('RateLimited'), 'x', 7_000),
      notAt: 6_999,
      at: 7_000,
    },
    { reason: 'requeue after', outcome: { requeueAfterMs: 600_000 }, notAt: 599_999, at: 600_000 },
    {
      reason: 'transient, first backoff',
      outcome: new TransientError(testReason('Down'), 'x'),
      notAt: 4,
      at: 5,
    },
    {
      reason: 'conflict, first backoff',
      outcome: new ConflictError(commonReasons.names.Conflict, 'x'),
      notAt: 4,
      at: 5,
    },
  ])('retries $reason at the right time', async ({ outcome, notAt, at }) => {
    const { controller, calls, clock } = setup([outcome]);
    controller.start();
    controller.enqueue({ namespace: 'ns', name: 'w1' });
    await settle();
    clock.advance(notAt);
    await settle();
    expect(calls).toHaveLength(1);
    clock.advance(at - notAt);
    await settle();
    expect(calls).toHaveLength(2);
    await controller.stop(1_000);
  });

  it('transient errors back off exponentially and success resets', async () => {
    const { controller, calls, clock } = setup([
      new TransientError(testReason('Down'), 'x'),
      new TransientError(testReason('Down'), 'x'),
      {},
      new TransientError(testReason('Down'), 'x'),
    ]);
    controller.start();
    controller.enqueue({ name: 'cluster-scoped' });
    await settle();
    clock.advance(5);
    await settle();
    expect(controller.queue.numRequeues('cluster-scoped')).toBe(2);
    clock.advance(10);
    await settle();
    expect(calls).toHaveLength(3);
    expect(controller.queue.numRequeues('cluster-scoped')).toBe(0);
    controller.enqueue({ name: 'cluster-scoped' });
    await settle();
    expect(controller.queue.numRequeues('cluster-scoped')).toBe(1);
    await controller.stop(1_000);
  });

  it('never reconciles one key twice at once, even with many workers', async () => {
    const clock = new ManualClock();
    let running = 0;
    let maxRunning = 0;
    let release: () => void = () => undefined;
    const controller = new Controller({
      name: 'c',
      kind: 'K',
      log: createLogger({ level: 'silent' }),
      maxConcurrentReconciles: 4,
      queue: { clock },
      reconciler: async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await new Promise<void>((resolve) => (release = resolve));
        running--;
        return {};
      },
    });
    controller.start();
    controller.enqueue({ namespace: 'a', name: 'x' });
    await settle();
    controller.enqueue({ namespace: 'a', name: 'x' });
    controller.enqueue({ namespace: 'a', name: 'x' });
    await settle();
    expect(maxRunning).toBe(1);
    release();
    await settle();
    expect(maxRunning).toBe(1);
    expect(running).toBe(1);
    release();
    await settle();
    expect(running).toBe(0);
    await controller.stop(1_000);
  });

  it('stop waits for in-flight reconciles within the bound and then aborts them', async () => {
    const clock = new ManualClock();
    let signal: AbortSignal | undefined;
    const controller = new Controller({
      name: 'c',
      kind: 'K',
      log: createLogger({ level: 'silent' }),
      queue: { clock },
      reconciler: (_req, ctx) => {
        signal = ctx.signal;
        return new Promise(() => undefined);
      },
    });
    controller.start();
    controller.enqueue({ name: 'stuck' });
    await settle();
    const stopping = controller.stop(5_000);
    await settle();
    expect(signal?.aborted).toBe(false);
    clock.advance(5_000);
    expect(await stopping).toBe(false);
    expect(signal?.aborted).toBe(true);
  });
});

describe('Controller idle metrics', () => {
  it('reports keys in flight and when its queue next acts on its own', async () => {
    const clock = new ManualClock(1_000_000);
    const metrics = new OperatorMetrics({ processMetrics: false });
    let release = (): void => undefined;
    const controller = new Controller({
      name: 'widget',
      kind: 'Widget',
      log: createLogger({ level: 'silent' }),
      metrics,
      queue: { clock },
      reconciler: () =>
        new Promise<Result>((resolve) => {
          release = () => resolve({ requeueAfterMs: 60_000 });
        }),
    });
    const line = async (metric: string, labels: string) =>
      (await metrics.text()).split('\n').find((l) => l.startsWith(`${metric}{${labels}}`));
    expect(await line('coffer_workqueue_in_flight', 'name="widget"')).toBe(
      'coffer_workqueue_in_flight{name="widget"} 0',
    );
    controller.start();
    controller.enqueue({ name: 'w1' });
    await settle();
    expect(await line('coffer_workqueue_in_flight', 'name="widget"')).toMatch(/ 1$/);
    expect(await line('coffer_next_wakeup_timestamp_seconds', 'source="workqueue:widget"')).toMatch(/ 0$/);
    release();
    await settle();
    expect(await line('coffer_workqueue_in_flight', 'name="widget"')).toMatch(/ 0$/);
    expect(await line('coffer_workqueue_depth', 'name="widget"')).toMatch(/ 0$/);
    // The poll 60 s after the reconcile ended: Unix seconds.
    expect(await line('coffer_next_wakeup_timestamp_seconds', 'source="workqueue:widget"')).toMatch(/ 1060$/);
    await controller.stop(1_000);
  });
});
