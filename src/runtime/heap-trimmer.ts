/**
 * Gives heap memory back to the system after bursts of work.
 *
 * V8 keeps the heap pages it once needed: after a burst of work (the operator converging
 * thousands of resources) its resident memory stays at the peak of that burst, far above its live
 * heap (`npm run bench`, docs/benchmarks.md). A memory-reducing full collection — what V8 runs on
 * a low-memory notification — releases them, the way Go's runtime scavenger or
 * `debug.FreeOSMemory` return memory of Go operators.
 *
 * The young generation is trimmed the same way once the operator is idle: a larger semi-space
 * makes bursts of reconciles cheaper (fewer short-lived objects promoted to the old generation),
 * but V8 keeps the young generation at its largest size after the burst; the same collection
 * shrinks it to its minimum.
 *
 * Contract: every `intervalMs` the trimmer reads the heap statistics; when the committed heap
 * exceeds the heap in use by at least `minSlackBytes` and by half, or when the event loop was
 * busy less than `idleUtilization` of the last interval and the young generation holds at least
 * `minYoungBytes`, it runs one such collection (a pause of tens of milliseconds). It never runs
 * more than once per interval, and does nothing while the heap is in proportion. The collection
 * is requested through an in-process inspector session (`node:inspector`, no port is opened); if
 * that is unavailable the trimmer logs once and collects no more.
 *
 * Memory outside the V8 heap is left to glibc's own tunables, set where the process starts (the
 * image and the chart: `GLIBC_TUNABLES` with the arena count and the trim and mmap thresholds).
 */
import { Session } from 'node:inspector';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import type { Logger } from 'pino';

/** The heap figures the decision uses (from `v8.getHeapStatistics()`). */
export interface HeapFigures {
  readonly total_heap_size: number;
  readonly used_heap_size: number;
  /** Committed bytes of the young generation (V8's `new_space`); absent when unknown. */
  readonly young_committed?: number;
}

export interface HeapTrimmerOptions {
  readonly intervalMs: number;
  /** Default 32 MiB. */
  readonly minSlackBytes?: number;
  /** Default 4 MiB (two 2 MiB semi-spaces). */
  readonly minYoungBytes?: number;
  /** Share of the interval the event loop may have been busy for the process to count as idle (default 0.05). */
  readonly idleUtilization?: number;
  readonly log: Logger;
  /** For tests: the heap figures (default `heapFigures`). */
  readonly stats?: () => HeapFigures;
  /** For tests: the event loop's busy share since the last call (default from `performance`). */
  readonly utilization?: () => number;
  /** For tests: the memory-reducing collection (default `collectGarbageReducingMemory`). */
  readonly collect?: () => Promise<void>;
}

const MiB = 1024 * 1024;

/** Whether the heap holds enough unused committed memory to be worth a collection. */
export function worthTrimming(figures: HeapFigures, minSlackBytes: number): boolean {
  const slack = figures.total_heap_size - figures.used_heap_size;
  return slack >= minSlackBytes && figures.total_heap_size >= 1.5 * figures.used_heap_size;
}

/** Whether an idle process's young generation is large enough to be worth a collection. */
export function worthTrimmingYoung(figures: HeapFigures, minYoungBytes: number, idle: boolean): boolean {
  return idle && (figures.young_committed ?? 0) >= minYoungBytes;
}

/** This process's heap figures, with the young generation's committed size. */
export function heapFigures(): HeapFigures {
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  return { ...getHeapStatistics(), young_committed: young?.space_size };
}

/** The event loop's busy share since the previous call (the first call: since this one was made). */
function utilizationMeter(): () => number {
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const share = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    return share;
  };
}

/** Runs V8's memory-reducing full collection (a low-memory notification) in this process. */
export async function collectGarbageReducingMemory(): Promise<void> {
  const session = new Session();
  session.connect();
  try {
    await new Promise<void>((resolve, reject) => {
      session.post('HeapProfiler.collectGarbage', (error) => (error ? reject(error) : resolve()));
    });
  } finally {
    session.disconnect();
  }
}

/** Starts the periodic check; `stop()` ends it. The timer does not keep the process alive. */
export function startHeapTrimmer(options: HeapTrimmerOptions): { stop(): void } {
  const stats = options.stats ?? heapFigures;
  const collect = options.collect ?? collectGarbageReducingMemory;
  const minSlack = options.minSlackBytes ?? 32 * MiB;
  const minYoung = options.minYoungBytes ?? 4 * MiB;
  const idleShare = options.idleUtilization ?? 0.05;
  const utilization = options.utilization ?? utilizationMeter();
  let collecting = true;
  let running = false;

  const check = async (): Promise<void> => {
    const idle = utilization() < idleShare;
    const before = stats();
    if (worthTrimming(before, minSlack) || worthTrimmingYoung(before, minYoung, idle)) {
      try {
        await collect();
        const after = stats();
        options.log.debug(
          {
            heapTotalMiB: [before.total_heap_size, after.total_heap_size].map((b) => Math.round(b / MiB)),
            heapUsedMiB: [before.used_heap_size, after.used_heap_size].map((b) => Math.round(b / MiB)),
            youngMiB: [before.young_committed, after.young_committed].map((b) => Math.round((b ?? 0) / MiB)),
          },
          'heap trimmed',
        );
      } catch (error) {
        collecting = false;
        options.log.warn({ err: error }, 'cannot trim the heap; heap trimming is off');
      }
    }
  };

  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void check().finally(() => {
      running = false;
      if (!collecting) clearInterval(timer);
    });
  }, options.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
