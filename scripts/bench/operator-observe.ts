/**
 * Observations of the benchmark's running operator: its memory sampled until convergence and
 * heap snapshots summarised by object type and by script (`--heap-snapshots`).
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { sumMetric, type OperatorProcess } from '../../test/support/processes.ts';
import { pidsOf } from './cpu.ts';
import {
  heapByScriptText,
  heapSummaryText,
  summariseHeapByScript,
  summariseHeapSnapshot,
  takeHeapSnapshot,
} from './heap.ts';
import { mib } from './operator-measure.ts';
import { operatorMemory, type BenchEnv } from './operator-setup.ts';
import { startRssSampler, type RssSampler } from './rss-sampler.ts';

/** Samples the operator's memory until stopped, keeping the largest working set (`rss-sampler.ts`). */
export function peakSampler(operator: OperatorProcess): RssSampler | undefined {
  const [pid] = pidsOf('operator');
  if (pid === undefined) return undefined;
  return startRssSampler(
    pid,
    () => operatorMemory(operator),
    async () => {
      const metrics = await operator.metrics();
      return (
        `${mib(sumMetric(metrics, 'nodejs_heap_size_used_bytes'))} / ${mib(sumMetric(metrics, 'nodejs_heap_size_total_bytes'))}, ` +
        `external ${mib(sumMetric(metrics, 'nodejs_external_memory_bytes'))}; spaces used/committed ` +
        ['new', 'old', 'code', 'large_object', 'trusted']
          .map(
            (space) =>
              `${space} ${mib(sumMetric(metrics, 'nodejs_heap_space_size_used_bytes', { space }))}/${mib(sumMetric(metrics, 'nodejs_heap_space_size_total_bytes', { space }))}`,
          )
          .join(', ')
      );
    },
  );
}

/** A heap snapshot of the running operator, kept in $TMPDIR/coffer-heap-snapshots and summarised into the log. */
export async function logHeapSnapshot(
  env: BenchEnv,
  when: string,
  log: (line: string) => void,
): Promise<void> {
  const [pid] = pidsOf('operator');
  if (pid === undefined) throw new Error('cannot take a heap snapshot: no operator process found');
  const taken = await takeHeapSnapshot(pid, env.dir);
  // The run's directory goes when the benchmark ends; the snapshots stay for DevTools.
  const keptDir = join(tmpdir(), 'coffer-heap-snapshots');
  mkdirSync(keptDir, { recursive: true });
  const path = join(keptDir, basename(taken));
  copyFileSync(taken, path);
  log(`heap snapshot ${when}: ${path}`);
  log(heapSummaryText(summariseHeapSnapshot(path), 25));
  log(heapByScriptText(summariseHeapByScript(path), 15));
}
