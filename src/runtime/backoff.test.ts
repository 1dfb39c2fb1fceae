import { describe, expect, it } from 'vitest';
import { ExponentialBackoff, exponentialDelay, fullJitterDelay } from './backoff.ts';

describe('exponentialDelay', () => {
  it('doubles from the base and stops at the cap, even for huge attempt numbers', () => {
    expect([0, 1, 2, 3].map((n) => exponentialDelay(n, 200, 1_000))).toEqual([200, 400, 800, 1_000]);
    expect(exponentialDelay(10_000, 5, 300_000)).toBe(300_000);
  });
});

describe('fullJitterDelay', () => {
  it('is uniform below the exponential delay, in whole ms', () => {
    expect(fullJitterDelay(2, 200, 5_000, () => 0)).toBe(0);
    expect(fullJitterDelay(2, 200, 5_000, () => 0.5)).toBe(400);
    expect(fullJitterDelay(2, 200, 5_000, () => 0.9999)).toBe(799);
  });
});

describe('ExponentialBackoff', () => {
  it('grows per key with ±jitter around the exponential delay and starts over after forget', () => {
    const backoff = new ExponentialBackoff({ baseMs: 100, maxMs: 1_000, jitter: 0.1, random: () => 1 });
    expect([backoff.next('a'), backoff.next('a'), backoff.next('b')]).toEqual([110, 220, 110]);
    expect(backoff.retries('a')).toBe(2);
    backoff.forget('a');
    expect(backoff.next('a')).toBe(110);
  });
});
