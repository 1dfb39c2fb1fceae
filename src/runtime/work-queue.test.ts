import { describe, expect, it } from 'vitest';
import { ExponentialBackoff } from './backoff.ts';
import { ManualClock } from './clock.ts';
import { DelayHeap } from './delay-heap.ts';
import { TokenBucket } from './token-bucket.ts';
import { MAX_TIMER_DELAY_MS } from './work-queue.ts';
import { newQueue, takeAll } from './work-queue-testing.ts';

describe('ExponentialBackoff', () => {
  it.each([
    { reason: 'first failure waits the base', failures: 1, want: 5 },
    { reason: 'second doubles', failures: 2, want: 10 },
    { reason: 'tenth', failures: 10, want: 2_560 },
    { reason: 'capped at five minutes', failures: 30, want: 300_000 },
    { reason: 'huge exponent stays finite', failures: 2_000, want: 300_000 },
  ])('$reason', ({ failures, want }) => {
    const backoff = new ExponentialBackoff({ jitter: 0 });
    let delay = 0;
    for (let i = 0; i < failures; i++) delay = backoff.next('ns/a');
    expect(delay).toBe(want);
    expect(backoff.retries('ns/a')).toBe(failures);
  });

  it.each([
    { reason: 'lowest random shrinks by the jitter', random: 0, want: 900 },
    { reason: 'middle random is exact', random: 0.5, want: 1_000 },
    { reason: 'highest random grows by the jitter', random: 0.999_999, want: 1_100 },
  ])('jitter: $reason', ({ random, want }) => {
    const backoff = new ExponentialBackoff({ baseMs: 1_000, jitter: 0.1, random: () => random });
    expect(backoff.next('k')).toBe(want);
  });

  it('never exceeds the cap, even with jitter', () => {
    const backoff = new ExponentialBackoff({ baseMs: 1_000, maxMs: 2_000, jitter: 0.5, random: () => 0.999 });
    const delays = [1, 2, 3, 4].map(() => backoff.next('k'));
    expect(Math.max(...delays)).toBe(2_000);
  });

  it('keeps keys independent and forget starts over', () => {
    const backoff = new ExponentialBackoff({ jitter: 0 });
    backoff.next('a');
    backoff.next('a');
    expect(backoff.next('b')).toBe(5);
    backoff.forget('a');
    expect(backoff.retries('a')).toBe(0);
    expect(backoff.next('a')).toBe(5);
  });
});

describe('TokenBucket', () => {
  it.each([
    {
      reason: 'within burst no wait',
      qps: 10,
      burst: 3,
      takes: 3,
      idleBefore: 0,
      idleBeforeLast: 0,
      want: 0,
    },
    {
      reason: 'first past burst waits one interval',
      qps: 10,
      burst: 3,
      takes: 4,
      idleBefore: 0,
      idleBeforeLast: 0,
      want: 100,
    },
    {
      reason: 'second past burst waits two',
      qps: 10,
      burst: 3,
      takes: 5,
      idleBefore: 0,
      idleBeforeLast: 0,
      want: 200,
    },
    { reason: 'refills with time', qps: 10, burst: 3, takes: 4, idleBefore: 0, idleBeforeLast: 100, want: 0 },
    {
      reason: 'partial refill shortens the wait',
      qps: 10,
      burst: 3,
      takes: 4,
      idleBefore: 0,
      idleBeforeLast: 40,
      want: 60,
    },
    {
      reason: 'refill capped at burst',
      qps: 10,
      burst: 2,
      takes: 3,
      idleBefore: 60_000,
      idleBeforeLast: 0,
      want: 100,
    },
  ])('$reason', ({ qps, burst, takes, idleBefore, idleBeforeLast, want }) => {
    const clock = new ManualClock();
    const bucket = new TokenBucket({ qps, burst, clock });
    clock.advance(idleBefore);
    for (let i = 0; i < takes - 1; i++) bucket.reserve();
    clock.advance(idleBeforeLast);
    expect(bucket.reserve()).toBe(want);
  });

  it('rejects a meaningless configuration', () => {
    expect(() => new TokenBucket({ qps: 0, burst: 1 })).toThrow('cannot create token bucket');
  });

  it('takes back a released reservation, so the next caller does not wait for it', () => {
    const bucket = new TokenBucket({ qps: 10, burst: 1, clock: new ManualClock() });
    expect(bucket.reserve()).toBe(0);
    expect(bucket.reserve()).toBe(100);
    bucket.release();
    expect(bucket.reserve()).toBe(100);
  });
});

describe('DelayHeap', () => {
  it('pops due keys earliest first and keeps the earliest time per key', () => {
    const heap = new DelayHeap();
    heap.schedule('c', 30);
    heap.schedule('a', 10);
    heap.schedule('b', 20);
    expect(heap.schedule('a', 50)).toBe(false);
    expect(heap.schedule('c', 5)).toBe(true);
    expect(heap.size).toBe(3);
    expect(heap.peekTime()).toBe(5);
    expect(heap.popDue(15)).toEqual(['c', 'a']);
    expect(heap.popDue(100)).toEqual(['b']);
    expect(heap.peekTime()).toBeUndefined();
  });
});

describe('WorkQueue', () => {
  it.each([
    { reason: 'dedups a waiting key', adds: ['a', 'b', 'a', 'a'], want: ['a', 'b'] },
    { reason: 'keeps FIFO order', adds: ['c', 'b', 'a'], want: ['c', 'b', 'a'] },
    { reason: 'no adds, nothing to take', adds: [], want: [] },
  ])('$reason', async ({ adds, want }) => {
    const { queue } = newQueue();
    for (const key of adds) queue.add(key);
    expect(await takeAll(queue)).toEqual(want);
  });

  it('holds a key added while in flight until done, then hands it out once', async () => {
    const { queue } = newQueue();
    queue.add('ns/a');
    const key = await queue.get();
    expect(key).toBe('ns/a');
    queue.add('ns/a');
    queue.add('ns/a');
    expect(queue.len()).toBe(0);
    queue.done('ns/a');
    expect(queue.len()).toBe(1);
    expect(await takeAll(queue)).toEqual(['ns/a']);
  });

  it('does not requeue on done when nothing was added meanwhile', async () => {
    const { queue } = newQueue();
    queue.add('a');
    await queue.get();
    queue.done('a');
    expect(queue.len()).toBe(0);
    expect(queue.inFlight()).toBe(0);
  });

  it('hands out a key to a worker that was already waiting', async () => {
    const { queue } = newQueue();
    const pending = queue.get();
    queue.add('a');
    expect(await pending).toBe('a');
  });

  it.each([
    { reason: 'not before the delay', delay: 500, advance: 499, want: [] },
    { reason: 'at the delay', delay: 500, advance: 500, want: ['k'] },
    { reason: 'zero delay is immediate', delay: 0, advance: 0, want: ['k'] },
  ])('addAfter: $reason', async ({ delay, advance, want }) => {
    const { queue, clock } = newQueue();
    queue.addAfter('k', delay);
    clock.advance(advance);
    expect(await takeAll(queue)).toEqual(want);
  });

  it('hands out keys added now before keys whose delay passed (polls wait behind changes)', async () => {
    const { queue, clock } = newQueue();
    queue.addAfter('poll-1', 100);
    queue.addAfter('poll-2', 100);
    clock.advance(100);
    queue.add('change-1');
    queue.add('change-2');
    expect(await takeAll(queue)).toEqual(['change-1', 'change-2', 'poll-1', 'poll-2']);
  });

  it('moves a waiting delayed key up when it is added now, holding it once', async () => {
    const { queue, clock } = newQueue();
    queue.addAfter('a', 100);
    queue.addAfter('b', 100);
    clock.advance(100);
    queue.add('x');
    queue.add('b');
    expect(queue.len()).toBe(3);
    expect(await takeAll(queue)).toEqual(['x', 'b', 'a']);
    expect(queue.len()).toBe(0);
  });

  it('requeues a key added while processing in the lane it was added to', async () => {
    const { queue, clock } = newQueue();
    queue.add('busy');
    expect(await queue.get()).toBe('busy');
    queue.addAfter('busy', 10);
    clock.advance(10);
    queue.add('other');
    queue.done('busy');
    expect(await takeAll(queue)).toEqual(['other', 'busy']);
  });

  it('waits past the longest timer delay in steps instead of firing early', async () => {
    const { queue, clock } = newQueue();
    const asked: number[] = [];
    const setTimeout = clock.setTimeout.bind(clock);
    clock.setTimeout = (fn, ms) => {
      asked.push(ms);
      return setTimeout(fn, ms);
    };
    const thirtyDays = 30 * 24 * 3_600_000;
    queue.addAfter('k', thirtyDays);
    expect(Math.max(...asked)).toBeLessThanOrEqual(MAX_TIMER_DELAY_MS);
    clock.advance(MAX_TIMER_DELAY_MS);
    expect(await takeAll(queue)).toEqual([]);
    clock.advance(thirtyDays - MAX_TIMER_DELAY_MS);
    expect(await takeAll(queue)).toEqual(['k']);
  });

  it('addAfter keeps the earlier of two delays for one key', async () => {
    const { queue, clock } = newQueue();
    queue.addAfter('k', 10_000);
    queue.addAfter('k', 100);
    clock.advance(100);
    expect(await takeAll(queue)).toEqual(['k']);
    clock.advance(20_000);
    expect(await takeAll(queue)).toEqual([]);
    expect(queue.delayedLen()).toBe(0);
  });

  it('addAfter delivers many keys in due order', async () => {
    const { queue, clock } = newQueue();
    queue.addAfter('late', 300);
    queue.addAfter('early', 100);
    queue.addAfter('middle', 200);
    clock.advance(1_000);
    expect(await takeAll(queue)).toEqual(['early', 'middle', 'late']);
  });

  it.each([
    { reason: 'first retry after 5 ms', failures: 1, notAt: 4, at: 5 },
    { reason: 'third retry after 20 ms', failures: 3, notAt: 19, at: 20 },
  ])('addRateLimited: $reason', async ({ failures, notAt, at }) => {
    const { queue, clock } = newQueue();
    // Each failed reconcile re-adds the key; earlier rounds are retried and fail again.
    for (let i = 1; i < failures; i++) {
      clock.advance(queue.addRateLimited('k'));
      expect(await takeAll(queue)).toEqual(['k']);
      queue.done('k');
    }
    expect(queue.addRateLimited('k')).toBe(at);
    expect(queue.numRequeues('k')).toBe(failures);
    clock.advance(notAt);
    expect(queue.len()).toBe(0);
    clock.advance(at - notAt);
    expect(await takeAll(queue)).toEqual(['k']);
  });

  it('forget resets the backoff', () => {
    const { queue } = newQueue();
    queue.addRateLimited('k');
    queue.addRateLimited('k');
    queue.forget('k');
    expect(queue.numRequeues('k')).toBe(0);
    expect(queue.addRateLimited('k')).toBe(5);
  });

  it('the shared bucket limits retries across keys', () => {
    const { queue } = newQueue({ rateLimit: { qps: 10, burst: 2 } });
    const delays = ['a', 'b', 'c', 'd'].map((k) => queue.addRateLimited(k));
    expect(delays).toEqual([5, 5, 100, 200]);
  });

  it('shutDown resolves waiting workers, ignores adds and drops delayed keys', async () => {
    const { queue, clock } = newQueue();
    const waiting = queue.get();
    queue.addAfter('later', 100);
    queue.shutDown();
    expect(await waiting).toBeUndefined();
    queue.add('x');
    clock.advance(1_000);
    expect(queue.len()).toBe(0);
    expect(await queue.get()).toBeUndefined();
    expect(clock.pending()).toBe(0);
  });

  it('drain waits for in-flight keys', async () => {
    const { queue } = newQueue();
    queue.add('a');
    queue.add('b');
    await queue.get();
    await queue.get();
    queue.shutDown();
    let drained = false;
    const draining = queue.drain().then(() => (drained = true));
    queue.done('a');
    await Promise.resolve();
    expect(drained).toBe(false);
    queue.done('b');
    await draining;
    expect(drained).toBe(true);
  });

  it('reports depth and queue wait to hooks', async () => {
    const depths: number[] = [];
    const waits: number[] = [];
    let added = 0;
    let retried = 0;
    const { queue, clock } = newQueue({
      hooks: {
        depth: (d) => depths.push(d),
        queueWait: (ms) => waits.push(ms),
        added: () => added++,
        retried: () => retried++,
      },
    });
    queue.add('a');
    queue.add('b');
    clock.advance(250);
    await queue.get();
    queue.addRateLimited('c');
    expect(depths.at(-1)).toBe(1);
    expect(Math.max(...depths)).toBe(2);
    expect(waits).toEqual([250]);
    expect(added).toBe(2);
    expect(retried).toBe(1);
  });
});
