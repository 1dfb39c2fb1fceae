import { getHeapStatistics } from 'node:v8';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  collectGarbageReducingMemory,
  heapFigures,
  startHeapTrimmer,
  worthTrimming,
  worthTrimmingYoung,
  type HeapFigures,
} from './heap-trimmer.ts';

const MiB = 1024 * 1024;
const log = pino({ level: 'silent' });

describe('worthTrimming', () => {
  it.each([
    { total: 280, used: 69, want: true },
    { total: 131, used: 69, want: true },
    { total: 90, used: 69, want: false },
    { total: 40, used: 10, want: false },
  ])('committed $total MiB, used $used MiB → $want', ({ total, used, want }) => {
    expect(worthTrimming({ total_heap_size: total * MiB, used_heap_size: used * MiB }, 32 * MiB)).toBe(want);
  });
});

describe('worthTrimmingYoung', () => {
  it.each([
    { young: 8, idle: true, want: true },
    { young: 4, idle: true, want: true },
    { young: 2, idle: true, want: false },
    { young: 8, idle: false, want: false },
  ])('young generation $young MiB, idle $idle → $want', ({ young, idle, want }) => {
    const figures = { total_heap_size: 40 * MiB, used_heap_size: 30 * MiB, young_committed: young * MiB };
    expect(worthTrimmingYoung(figures, 4 * MiB, idle)).toBe(want);
  });
});

describe('startHeapTrimmer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('collects once per interval while the heap has slack, and not otherwise', async () => {
    vi.useFakeTimers();
    let figures: HeapFigures = { total_heap_size: 200 * MiB, used_heap_size: 60 * MiB };
    const collect = vi.fn(() => {
      figures = { total_heap_size: 80 * MiB, used_heap_size: 60 * MiB };
      return Promise.resolve();
    });
    const trimmer = startHeapTrimmer({
      intervalMs: 60_000,
      log,
      stats: () => figures,
      collect,
    });
    await vi.advanceTimersByTimeAsync(59_000);
    expect(collect).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(collect).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(180_000);
    expect(collect).toHaveBeenCalledTimes(1);
    figures = { total_heap_size: 250 * MiB, used_heap_size: 70 * MiB };
    await vi.advanceTimersByTimeAsync(60_000);
    expect(collect).toHaveBeenCalledTimes(2);
    trimmer.stop();
    figures = { total_heap_size: 250 * MiB, used_heap_size: 70 * MiB };
    await vi.advanceTimersByTimeAsync(600_000);
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it('trims a large young generation once the event loop is idle, not while it is busy', async () => {
    vi.useFakeTimers();
    let figures: HeapFigures = {
      total_heap_size: 40 * MiB,
      used_heap_size: 30 * MiB,
      young_committed: 8 * MiB,
    };
    let busy = 0.6;
    const collect = vi.fn(() => {
      figures = { ...figures, young_committed: 1 * MiB };
      return Promise.resolve();
    });
    const trimmer = startHeapTrimmer({
      intervalMs: 60_000,
      log,
      stats: () => figures,
      collect,
      utilization: () => busy,
    });
    await vi.advanceTimersByTimeAsync(180_000);
    expect(collect).not.toHaveBeenCalled();
    busy = 0.01;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(collect).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(180_000);
    expect(collect).toHaveBeenCalledTimes(1);
    trimmer.stop();
  });

  it('turns itself off when the collection cannot run', async () => {
    vi.useFakeTimers();
    const collect = vi.fn(() => Promise.reject(new Error('no inspector')));
    const stats = () => ({ total_heap_size: 200 * MiB, used_heap_size: 10 * MiB });
    startHeapTrimmer({ intervalMs: 1_000, log, stats, collect });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(collect).toHaveBeenCalledTimes(1);
  });
});

/** Allocates ~160 MiB that is garbage once this returns. */
function makeGarbage(): number {
  const arrays = Array.from({ length: 400 }, () => Array.from({ length: 50_000 }, (_, i) => i + 0.5));
  return arrays.length;
}

/** Allocates short-lived objects, some surviving a while, until V8 grows the young generation. */
function churn(): number {
  let kept: object[] = [];
  for (let i = 0; i < 2_000_000; i += 1) {
    kept.push({ i, s: `x${i}` });
    if (kept.length > 50_000) kept = [];
  }
  return kept.length;
}

describe('collectGarbageReducingMemory', () => {
  it('shrinks a young generation that a burst grew', async () => {
    churn();
    const grown = heapFigures().young_committed ?? 0;
    expect(grown).toBeGreaterThanOrEqual(4 * MiB);
    await collectGarbageReducingMemory();
    expect(heapFigures().young_committed ?? 0).toBeLessThan(grown / 2);
  }, 60_000);

  it('gives back the heap that garbage left committed', async () => {
    expect(makeGarbage()).toBe(400);
    const grown = getHeapStatistics().total_heap_size;
    await collectGarbageReducingMemory();
    expect(getHeapStatistics().total_heap_size).toBeLessThan(grown - 64 * MiB);
    // Allocating and collecting ~160 MiB takes seconds on a loaded 2-core machine.
  }, 60_000);
});
