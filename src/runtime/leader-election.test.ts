import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.ts';
import { LeaderElector, defaultIdentity, type ElectionOutcome } from './leader-election.ts';
import { LeaseConflictError, type LeaseRecord, type LeaseStore, type VersionedLease } from './lease-store.ts';
import { createLogger } from './logger.ts';

/** An in-memory Lease with resourceVersion checks, and a switch to make it unreachable. */
class MemoryLease {
  lease: VersionedLease | undefined;
  private version = 0;
  writes: LeaseRecord[] = [];

  store(reachable: () => boolean = () => true): LeaseStore {
    const check = () => {
      if (!reachable()) throw new Error('connection refused');
    };
    return {
      description: 'ns/lease',
      get: () => {
        check();
        return Promise.resolve(this.lease);
      },
      create: (record) => {
        check();
        if (this.lease) return Promise.reject(new LeaseConflictError('exists'));
        return Promise.resolve(this.put(record));
      },
      update: (record, version) => {
        check();
        if (this.lease?.version !== version) return Promise.reject(new LeaseConflictError('stale'));
        return Promise.resolve(this.put(record));
      },
    };
  }

  private put(record: LeaseRecord): VersionedLease {
    this.writes.push(record);
    this.lease = { record, version: String(++this.version) };
    return this.lease;
  }
}

const timings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

function candidate(clock: ManualClock, store: LeaseStore, identity: string, events: string[]) {
  const elector = new LeaderElector({
    ...timings,
    store,
    identity,
    clock,
    random: () => 0,
    log: createLogger({ level: 'silent' }),
    onStartedLeading: () => events.push(`${identity} started`),
    onStoppedLeading: () => events.push(`${identity} stopped`),
  });
  const abort = new AbortController();
  let outcome: ElectionOutcome | undefined;
  const running = elector.run(abort.signal).then((o) => (outcome = o));
  return { elector, abort, running, outcome: () => outcome };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await tick();
}

/** Moves the manual clock in 100 ms steps, letting promises run in between. */
async function elapse(clock: ManualClock, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 100) {
    clock.advance(100);
    await settle();
  }
}

describe('LeaderElector', () => {
  it('creates the lease and leads; a second candidate waits', async () => {
    const clock = new ManualClock(1_000_000);
    const memory = new MemoryLease();
    const events: string[] = [];
    const a = candidate(clock, memory.store(), 'a', events);
    await settle();
    const b = candidate(clock, memory.store(), 'b', events);
    await elapse(clock, 60_000);
    expect(events).toEqual(['a started']);
    expect(a.elector.isLeader()).toBe(true);
    expect(b.elector.isLeader()).toBe(false);
    expect(memory.lease?.record).toMatchObject({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      leaseTransitions: 0,
    });
    a.abort.abort();
    b.abort.abort();
    await Promise.all([a.running, b.running]);
  });

  it('hands over at once after a graceful stop, by releasing the lease', async () => {
    const clock = new ManualClock(1_000_000);
    const memory = new MemoryLease();
    const events: string[] = [];
    const a = candidate(clock, memory.store(), 'a', events);
    await settle();
    const b = candidate(clock, memory.store(), 'b', events);
    await elapse(clock, 5_000);
    a.abort.abort();
    await a.running;
    expect(a.outcome()).toBe('stopped');
    expect(memory.lease?.record).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    // b's next retry (at most 2.2 retry periods away) finds the lease released.
    await elapse(clock, 4_400);
    expect(events).toEqual(['a started', 'a stopped', 'b started']);
    expect(memory.lease?.record).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    b.abort.abort();
    await b.running;
  });

  it('takes over from a crashed leader only after the lease expires', async () => {
    const clock = new ManualClock(1_000_000);
    const memory = new MemoryLease();
    const events: string[] = [];
    let aReachable = true;
    const a = candidate(
      clock,
      memory.store(() => aReachable),
      'a',
      events,
    );
    await settle();
    const b = candidate(clock, memory.store(), 'b', events);
    await elapse(clock, 3_000);
    aReachable = false;
    const lastRenew = memory.lease?.record.renewTimeMs ?? 0;
    await elapse(clock, 12_000);
    expect(events).toEqual(['a started', 'a stopped']);
    expect(a.outcome()).toBe('lost');
    expect(b.elector.isLeader()).toBe(false);
    await elapse(clock, 8_000);
    expect(events).toEqual(['a started', 'a stopped', 'b started']);
    // b only acquired after a full lease duration without renewals.
    const acquired = memory.lease?.record.acquireTimeMs ?? 0;
    expect(acquired - lastRenew).toBeGreaterThanOrEqual(timings.leaseDurationMs);
    b.abort.abort();
    await b.running;
  });

  it('lets only one of two racing candidates win', async () => {
    const clock = new ManualClock(1_000_000);
    const memory = new MemoryLease();
    const events: string[] = [];
    const a = candidate(clock, memory.store(), 'a', events);
    const b = candidate(clock, memory.store(), 'b', events);
    await elapse(clock, 30_000);
    expect(events).toHaveLength(1);
    expect([a.elector.isLeader(), b.elector.isLeader()].filter(Boolean)).toHaveLength(1);
    a.abort.abort();
    b.abort.abort();
    await Promise.all([a.running, b.running]);
  });

  it('stops without touching the lease when it never led', async () => {
    const clock = new ManualClock(1_000_000);
    const memory = new MemoryLease();
    const events: string[] = [];
    memory.lease = {
      version: '7',
      record: { holderIdentity: 'other', leaseDurationSeconds: 15, leaseTransitions: 3 },
    };
    const a = candidate(clock, memory.store(), 'a', events);
    await elapse(clock, 5_000);
    a.abort.abort();
    await a.running;
    expect(a.outcome()).toBe('stopped');
    expect(events).toEqual([]);
    expect(memory.writes).toEqual([]);
  });

  it('makes identities unique per process', () => {
    expect(defaultIdentity()).not.toBe(defaultIdentity());
    expect(defaultIdentity()).toMatch(/_[0-9a-f]{8}$/);
  });
});
