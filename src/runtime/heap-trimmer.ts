/**
 * Gives heap memory back to the system after bursts of work.
 *
 * V8 keeps the heap pages it once needed: after the operator converged 10,000 resources its
 * resident memory stayed at the peak of that burst (280 MiB with 69 MiB of live heap, measured
 * with `npm run bench`). A memory-reducing full collection — what V8 runs on a low-memory
 * notification — releases them (280 → 174 MiB), the way Go's runtime scavenger or
 * `debug.FreeOSMemory` return memory of Go operators.
 *
 * Contract: every `intervalMs` the trimmer reads the heap statistics; when the committed heap
 * exceeds the heap in use by at least `minSlackBytes` and by half, it runs one such collection
 * (a pause of tens of milliseconds). It never runs more than once per interval, and does nothing
 * while the heap is in proportion. The collection is requested through an in-process inspector
 * session (`node:inspector`, no port is opened); if that is unavailable the trimmer logs once and
 * stops.
 */
import { Session } from 'node:inspector';
import { getHeapStatistics } from 'node:v8';
import type { Logger } from 'pino';

/** The heap figures the decision uses (from `v8.getHeapStatistics()`). */
export interface HeapFigures {
  readonly total_heap_size: number;
  readonly used_heap_size: number;
}

export interface HeapTrimmerOptions {
  readonly intervalMs: number;
  /** Default 32 MiB. */
  readonly minSlackBytes?: number;
  readonly log: Logger;
  /** For tests: the heap figures (default `v8.getHeapStatistics`). */
  readonly stats?: () => HeapFigures;
  /** For tests: the memory-reducing collection (default `collectGarbageReducingMemory`). */
  readonly collect?: () => Promise<void>;
}

const MiB = 1024 * 1024;

/** Whether the heap holds enough unused committed memory to be worth a collection. */
export function worthTrimming(figures: HeapFigures, minSlackBytes: number): boolean {
  const slack = figures.total_heap_size - figures.used_heap_size;
  return slack >= minSlackBytes && figures.total_heap_size >= 1.5 * figures.used_heap_size;
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
  const stats = options.stats ?? getHeapStatistics;
  const collect = options.collect ?? collectGarbageReducingMemory;
  const minSlack = options.minSlackBytes ?? 32 * MiB;
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    const before = stats();
    if (!worthTrimming(before, minSlack)) return;
    running = true;
    collect().then(
      () => {
        running = false;
        const after = stats();
        options.log.debug(
          {
            heapTotalMiB: [before.total_heap_size, after.total_heap_size].map((b) => Math.round(b / MiB)),
            heapUsedMiB: [before.used_heap_size, after.used_heap_size].map((b) => Math.round(b / MiB)),
          },
          'heap trimmed',
        );
      },
      (error: unknown) => {
        clearInterval(timer);
        options.log.warn({ err: error }, 'cannot trim the heap; heap trimming is off');
      },
    );
  }, options.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
