import { describe, expect, it } from 'vitest';
import { ManualClock, sleep, sleepOn } from './clock.ts';

/** Lets resolved promises and their continuations run. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('sleep', () => {
  it('resolves once the clock reaches the deadline', async () => {
    const clock = new ManualClock(100);
    let woke = false;
    void sleep(clock, 50).then(() => (woke = true));
    clock.advance(49);
    await flush();
    expect(woke).toBe(false);
    clock.advance(1);
    await flush();
    expect(woke).toBe(true);
  });

  it('rejects with the abort reason and cancels its timer', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const sleeping = sleep(clock, 1_000, controller.signal);
    expect(clock.pending()).toBe(1);
    controller.abort(new Error('stop'));
    await expect(sleeping).rejects.toThrow('stop');
    expect(clock.pending()).toBe(0);
    await expect(sleep(clock, 10, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  });

  it('sleepOn resolves instead of rejecting on abort', async () => {
    const controller = new AbortController();
    const sleeping = sleepOn(new ManualClock(), 1_000, controller.signal);
    controller.abort();
    await expect(sleeping).resolves.toBeUndefined();
  });
});

describe('ManualClock', () => {
  it('with autoAdvance, fires every timer at once and moves time by its delay', async () => {
    const clock = new ManualClock({ start: 1_000, autoAdvance: true });
    await sleep(clock, 250);
    await sleep(clock, 750);
    expect(clock.now()).toBe(2_000);
    expect(clock.delays).toEqual([250, 750]);
  });

  it('with autoAdvance, a cancelled timer does not fire', async () => {
    const clock = new ManualClock({ autoAdvance: true });
    let fired = false;
    const cancel = clock.setTimeout(() => (fired = true), 10);
    cancel();
    await flush();
    expect(fired).toBe(false);
  });
});
