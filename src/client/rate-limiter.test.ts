import { describe, expect, it } from 'vitest';
import { ManualClock } from '../runtime/clock.ts';
import { BucketRateLimiter, createRateLimiter, unlimited } from './rate-limiter.ts';

/** Lets resolved sleeps and their continuations run. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('BucketRateLimiter', () => {
  it('admits the burst at once, then one request per 60000/rpm ms', async () => {
    const clock = new ManualClock({ start: 1_700_000_000_000 });
    const bucket = new BucketRateLimiter({ requestsPerMinute: 60, burst: 2, clock });
    const done: number[] = [];
    for (let i = 0; i < 4; i += 1) void bucket.acquire().then(() => done.push(i));
    await flush();
    expect(done).toEqual([0, 1]);
    clock.advance(999);
    await flush();
    expect(done).toEqual([0, 1]);
    clock.advance(1);
    await flush();
    expect(done).toEqual([0, 1, 2]);
    clock.advance(1000);
    await flush();
    expect(done).toEqual([0, 1, 2, 3]);
  });

  it('refills while idle, but never above the burst size', async () => {
    const clock = new ManualClock({ start: 1_700_000_000_000 });
    const bucket = new BucketRateLimiter({ requestsPerMinute: 600, burst: 3, clock });
    clock.advance(3_600_000);
    const done: number[] = [];
    for (let i = 0; i < 4; i += 1) void bucket.acquire().then(() => done.push(i));
    await flush();
    expect(done).toEqual([0, 1, 2]);
    expect(clock.delays).toEqual([100]);
  });

  it('rejects an aborted waiter with the abort reason and gives its token back', async () => {
    const clock = new ManualClock({ start: 1_700_000_000_000 });
    const bucket = new BucketRateLimiter({ requestsPerMinute: 60, burst: 1, clock });
    await bucket.acquire();
    const controller = new AbortController();
    const waiting = bucket.acquire(controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    clock.advance(1000);
    // The aborted reservation was returned: the next caller waits only for the first refill.
    let admitted = false;
    void bucket.acquire().then(() => (admitted = true));
    await flush();
    expect(admitted).toBe(true);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const bucket = new BucketRateLimiter({
      requestsPerMinute: 60,
      clock: new ManualClock({ start: 1_700_000_000_000 }),
    });
    await expect(bucket.acquire(AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  });

  it('refuses a non-positive rate', () => {
    expect(
      () =>
        new BucketRateLimiter({
          requestsPerMinute: -1,
          clock: new ManualClock({ start: 1_700_000_000_000 }),
        }),
    ).toThrow(/requestsPerMinute/);
  });
});

describe('createRateLimiter', () => {
  it('is unlimited by default', () => {
    expect(createRateLimiter(undefined, new ManualClock({ start: 1_700_000_000_000 }))).toBe(unlimited);
    expect(createRateLimiter({ requestsPerMinute: 0 }, new ManualClock({ start: 1_700_000_000_000 }))).toBe(
      unlimited,
    );
    expect(
      createRateLimiter({ requestsPerMinute: 120 }, new ManualClock({ start: 1_700_000_000_000 })),
    ).toBeInstanceOf(BucketRateLimiter);
  });
});
