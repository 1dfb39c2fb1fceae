// Manager lifecycle without an API server: no informers, controllers fed by hand, and an
// in-memory Lease. The real API server is covered in test/integration/runtime-manager.test.ts.
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it, vi } from 'vitest';
import { LeaseConflictError, type LeaseStore, type VersionedLease } from './lease-store.ts';
import { createLogger } from './logger.ts';
import { Manager, shutdownSignal, type LeaderElectionConfig } from './manager.ts';
import { OperatorMetrics } from './metrics.ts';
import type { Reconciler } from './reconcile.ts';

const log = createLogger({ level: 'silent' });

function newManager(
  reconciler: Reconciler,
  options: { timeoutMs?: number; leaderElection?: LeaderElectionConfig } = {},
) {
  const manager = new Manager({
    kubeConfig: new KubeConfig(),
    log,
    metrics: new OperatorMetrics({ processMetrics: false }),
    gracefulShutdownTimeoutMs: options.timeoutMs ?? 5_000,
    leaderElection: options.leaderElection,
  });
  const controller = manager.controller({ name: 'c', kind: 'K', reconciler });
  return { manager, controller };
}

/** A Lease in memory; `reachable = false` makes every call fail. */
function memoryLease() {
  let lease: VersionedLease | undefined;
  let version = 0;
  const state = { reachable: true };
  const check = () => {
    if (!state.reachable) throw new Error('connection refused');
  };
  const store: LeaseStore = {
    description: 'test/lease',
    get: () => Promise.resolve().then(() => (check(), lease)),
    create: (record) =>
      Promise.resolve().then(() => {
        check();
        if (lease) throw new LeaseConflictError('exists');
        return (lease = { record, version: String(++version) });
      }),
    update: (record, v) =>
      Promise.resolve().then(() => {
        check();
        if (lease?.version !== v) throw new LeaseConflictError('stale');
        return (lease = { record, version: String(++version) });
      }),
  };
  return { store, state, current: () => lease };
}

const fast = { leaseDurationMs: 400, renewDeadlineMs: 300, retryPeriodMs: 50 };

describe('Manager', () => {
  it('waits for an in-flight reconcile before run() returns', async () => {
    let release: () => void = () => undefined;
    const finished: string[] = [];
    const { manager, controller } = newManager(async (req) => {
      await new Promise<void>((resolve) => (release = resolve));
      finished.push(req.name);
      return {};
    });
    const abort = new AbortController();
    const done = manager.run(abort.signal);
    await vi.waitFor(() => expect(manager.isLeader()).toBe(true));
    controller.enqueue({ namespace: 'ns', name: 'slow' });
    await vi.waitFor(() => expect(controller.queue.inFlight()).toBe(1));
    abort.abort();
    let returned = false;
    void done.then(() => (returned = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(returned).toBe(false);
    release();
    expect(await done).toBe('stopped');
    expect(finished).toEqual(['slow']);
  });

  it('gives up on a stuck reconcile after the graceful-shutdown bound and aborts it', async () => {
    let signal: AbortSignal | undefined;
    const { manager, controller } = newManager(
      (_req, ctx) => {
        signal = ctx.signal;
        return new Promise(() => undefined);
      },
      { timeoutMs: 50 },
    );
    const abort = new AbortController();
    const done = manager.run(abort.signal);
    await vi.waitFor(() => expect(manager.isLeader()).toBe(true));
    controller.enqueue({ name: 'stuck' });
    await vi.waitFor(() => expect(signal).toBeDefined());
    abort.abort();
    expect(await done).toBe('stopped');
    expect(signal?.aborted).toBe(true);
  });

  it('starts controllers only once leader, and releases the lease after stopping them', async () => {
    const lease = memoryLease();
    const reconciled: string[] = [];
    const { manager, controller } = newManager(
      (req) => {
        reconciled.push(req.name);
        return Promise.resolve({});
      },
      { leaderElection: { namespace: 'test', name: 'lease', identity: 'me', store: lease.store, ...fast } },
    );
    await lease.store.create({
      holderIdentity: 'someone-else',
      leaseDurationSeconds: 3,
      leaseTransitions: 0,
    });
    const gets = vi.spyOn(lease.store, 'get');
    const abort = new AbortController();
    const done = manager.run(abort.signal);
    controller.enqueue({ name: 'queued-before-leading' });
    await vi.waitFor(() => expect(gets.mock.calls.length).toBeGreaterThanOrEqual(2));
    expect(manager.isLeader()).toBe(false);
    expect(reconciled).toEqual([]);
    // The other holder never renews: after its lease duration (3 s) we take over.
    await vi.waitFor(() => expect(reconciled).toEqual(['queued-before-leading']), { timeout: 10_000 });
    expect(lease.current()?.record).toMatchObject({ holderIdentity: 'me', leaseTransitions: 1 });
    abort.abort();
    expect(await done).toBe('stopped');
    expect(lease.current()?.record).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
  }, 15_000);

  it("returns 'lost' and aborts in-flight work when the lease cannot be renewed", async () => {
    const lease = memoryLease();
    let signal: AbortSignal | undefined;
    const { manager, controller } = newManager(
      (_req, ctx) => {
        signal = ctx.signal;
        return new Promise(() => undefined);
      },
      {
        timeoutMs: 60_000,
        leaderElection: { namespace: 'test', name: 'lease', store: lease.store, ...fast },
      },
    );
    const done = manager.run(new AbortController().signal);
    await vi.waitFor(() => expect(manager.isLeader()).toBe(true));
    controller.enqueue({ name: 'busy' });
    await vi.waitFor(() => expect(signal).toBeDefined());
    lease.state.reachable = false;
    expect(await done).toBe('lost');
    expect(signal?.aborted).toBe(true);
    expect(await manager.metrics.text()).toContain('coffer_leader_election_status{name="lease"} 0');
  });

  it('refuses to add informers or controllers while running', async () => {
    const { manager } = newManager(() => Promise.resolve({}));
    const abort = new AbortController();
    const done = manager.run(abort.signal);
    expect(() =>
      manager.controller({ name: 'late', kind: 'K', reconciler: () => Promise.resolve({}) }),
    ).toThrow('cannot add controller late');
    abort.abort();
    await done;
  });
});

describe('shutdownSignal', () => {
  it('aborts on SIGTERM and removes its handlers on dispose', () => {
    const before = process.listenerCount('SIGTERM');
    const beforeInt = process.listenerCount('SIGINT');
    const { signal, dispose } = shutdownSignal(log);
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    process.emit('SIGTERM', 'SIGTERM');
    expect(signal.aborted).toBe(true);
    dispose();
    expect(process.listenerCount('SIGTERM')).toBe(before);
    expect(process.listenerCount('SIGINT')).toBe(beforeInt);
  });
});
