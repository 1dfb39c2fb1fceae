/**
 * Samples a process's memory split (`memory-split.ts`) and, through `heap`, V8's committed heap
 * at an interval, keeping the sample with the highest RSS: what the peak the benchmark prints
 * (VmHWM) is made of, to within one interval. For the benchmarks only.
 */
import { memorySplit, memorySplitText, type MemorySplit } from './memory-split.ts';

/** A running sampler; `stop()` resolves with the largest sample taken, as text. */
export interface RssSampler {
  stop(): Promise<string>;
}

/** Starts sampling `pid` every `intervalMs`; `heap()` returns "used / committed" text. */
export function startRssSampler(pid: number, heap: () => Promise<string>, intervalMs = 2_000): RssSampler {
  let peak: { split: MemorySplit; heap: string } | undefined;
  let sampling: Promise<void> = Promise.resolve();
  const sample = async () => {
    try {
      const split = memorySplit(pid);
      if (!peak || split.rssKiB > peak.split.rssKiB) peak = { split, heap: await heap() };
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
      return peak ? `${memorySplitText(peak.split)}; V8 heap used / committed ${peak.heap}` : 'no sample';
    },
  };
}
