/**
 * Samples a process's memory as the kubelet sees it (`working-set.ts`: working set, anonymous,
 * RSS), its RSS split (`memory-split.ts`) and, through `heap`, V8's committed heap at an interval,
 * keeping the sample with the largest working set: the peak a memory limit must hold, to within
 * one interval. For the benchmarks only.
 */
import { memorySplit, memorySplitText, type MemorySplit } from './memory-split.ts';
import { memoryFiguresText, type MemoryFigures } from './working-set.ts';

/** A running sampler; `stop()` resolves with the largest sample taken, as text. */
export interface RssSampler {
  stop(): Promise<string>;
}

interface Sample {
  readonly figures: MemoryFigures;
  readonly split: MemorySplit;
  readonly heap: string;
}

/**
 * Starts sampling `pid` every `intervalMs`: `figures()` reads its working set and anonymous
 * memory, `heap()` returns V8's "used / committed" text.
 */
export function startRssSampler(
  pid: number,
  figures: () => MemoryFigures,
  heap: () => Promise<string>,
  intervalMs = 2_000,
): RssSampler {
  let peak: Sample | undefined;
  let sampling: Promise<void> = Promise.resolve();
  const sample = async () => {
    try {
      const now = figures();
      if (!peak || now.workingSetKiB > peak.figures.workingSetKiB) {
        peak = { figures: now, split: memorySplit(pid), heap: await heap() };
      }
    } catch {
      // The process ended meanwhile; the last peak stands.
    }
  };
  const timer = setInterval(() => {
    sampling = sampling.then(sample);
  }, intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await sampling;
      if (!peak) return 'no sample';
      return `${memoryFiguresText(peak.figures)}; RSS split ${memorySplitText(peak.split)}; V8 heap used / committed ${peak.heap}`;
    },
  };
}
