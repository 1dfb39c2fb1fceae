/**
 * The operator at rest (not a test): builds it (`npm run build`), starts a control plane,
 * `coffer devserver`, one Connection and `coffer operator` as the benchmark does, waits until its
 * caches synced, and prints its memory as the kubelet sees it (working set of its own memory
 * cgroup, anonymous memory, RSS: `working-set.ts`) and where its resident memory lies — when it
 * became ready, after `--settle-seconds` of idling, and the largest working set of the last 60 s of
 * that idling (sampled every second: the operator's heap trimmer releases memory once a minute and
 * pages come back between, so one sample right after a release would flatter it; `/metrics` is
 * scraped every 15 s meanwhile, as Prometheus would): RSS split by mapping
 * (`memory-split.ts`), V8's heap used / committed by space and external memory (the operator's
 * `/metrics`), and the thread count.
 * `--heap-snapshot-dir <dir>`: also writes a heap snapshot after settling into `<dir>` and
 * summarises it by type and by script (`heap.ts`).
 *
 *   npm run bench:rest -- [--node-options=<options of the operator's node>]... [--settle-seconds 150]
 *                         [--heap-snapshot-dir <dir>]
 *
 * `--node-options` is repeatable: each value is one variant, run in turn (one operator at a time)
 * against the same control plane. Words of the form `NAME=value` in a variant are environment
 * variables of that operator (e.g. `GLIBC_TUNABLES=glibc.malloc.arena_max=1 --max-semi-space-size=1`).
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { sumMetric, type OperatorProcess } from '../../test/support/processes.ts';
import { parseCommandLine } from '../command-line.ts';
import { pidsOf } from './cpu.ts';
import {
  heapByScriptText,
  heapSnapshotNodeArgs,
  heapSummaryText,
  summariseHeapByScript,
  summariseHeapSnapshot,
  takeHeapSnapshot,
} from './heap.ts';
import { memorySplit, memorySplitText, type MemorySplit } from './memory-split.ts';
import { mib, printTable } from './operator-measure.ts';
import { memoryFiguresText, memoryHelp, type MemoryFigures } from './working-set.ts';
import {
  buildOperator,
  createConnection,
  operatorKubeconfig,
  startBenchEnv,
  startOperator,
  startService,
  runtimeTuningOptions,
  operatorMemory,
} from './operator-setup.ts';

const usage = `usage: npm run bench:rest -- [--node-options=<options of the operator's node>]... [--settle-seconds 150]
                             [--heap-snapshot-dir <dir>]

Starts the operator with no resources and prints where its resident memory lies (once per
--node-options variant; NAME=value words of a variant are environment variables).

${memoryHelp}`;

const { values } = parseCommandLine(usage, () =>
  parseArgs({
    options: {
      // The operator's memory tuning (`runtimeTuningOptions`), as `npm run bench` uses by default.
      'node-options': { type: 'string', multiple: true, default: [runtimeTuningOptions()] },
      'settle-seconds': { type: 'string', default: '150' },
      'heap-snapshot-dir': { type: 'string' },
    },
  }),
);

const rows: [string, string][] = [];
const row = (label: string, value: string) => {
  rows.push([label, value]);
  console.log(`  ${label}: ${value}`);
};

async function figures(operator: OperatorProcess, when: string): Promise<void> {
  const [pid] = pidsOf('operator');
  if (pid === undefined) throw new Error('no operator process found');
  const metrics = await operator.metrics();
  const m = (name: string) => mib(sumMetric(metrics, name));
  row(`memory ${when}`, memoryFiguresText(operatorMemory(operator)));
  row(`RSS split ${when}`, memorySplitText(memorySplit(pid)));
  row(
    `V8 heap used / committed, external ${when}`,
    `${m('nodejs_heap_size_used_bytes')} / ${m('nodejs_heap_size_total_bytes')}, ${m('nodejs_external_memory_bytes')}`,
  );
  const spaces = ['new', 'old', 'code', 'large_object', 'trusted']
    .map(
      (space) =>
        `${space} ${mib(sumMetric(metrics, 'nodejs_heap_space_size_used_bytes', { space }))}/${mib(sumMetric(metrics, 'nodejs_heap_space_size_total_bytes', { space }))}`,
    )
    .join(', ');
  row(`V8 heap spaces used/committed ${when}`, spaces);
}

/** The last seconds of an idle period whose largest working set is printed: one heap-trimmer interval. */
const windowSeconds = 60;

/** How often the idle operator's `/metrics` is read, as a Prometheus server would scrape it. */
const scrapeEverySeconds = 15;

/**
 * Waits `seconds`, scraping the operator's metrics every `scrapeEverySeconds` and sampling `pid`
 * every second; the largest sample of the last `windowSeconds`.
 */
async function idle(
  operator: OperatorProcess,
  pid: number,
  seconds: number,
): Promise<{ figures: MemoryFigures; split: MemorySplit } | undefined> {
  let largest: { figures: MemoryFigures; split: MemorySplit } | undefined;
  for (let elapsed = 0; elapsed < seconds; elapsed += 1) {
    await sleep(1000);
    if (elapsed % scrapeEverySeconds === 0) await operator.metrics();
    if (elapsed < seconds - windowSeconds) continue;
    const figures = operatorMemory(operator);
    if (!largest || figures.workingSetKiB > largest.figures.workingSetKiB) {
      largest = { figures, split: memorySplit(pid) };
    }
  }
  return largest;
}

async function snapshot(dir: string, runDir: string): Promise<void> {
  const [pid] = pidsOf('operator');
  if (pid === undefined) throw new Error('no operator process found');
  const path = await takeHeapSnapshot(pid, runDir);
  mkdirSync(dir, { recursive: true });
  const kept = join(dir, basename(path));
  copyFileSync(path, kept);
  console.log(`heap snapshot: ${kept}`);
  console.log(heapSummaryText(summariseHeapSnapshot(kept), 25));
  console.log(heapByScriptText(summariseHeapByScript(kept), 25));
}

async function main(): Promise<void> {
  const entry = buildOperator((line) => console.log(line));
  const env = await startBenchEnv((line) => console.log(line));
  const stops: { stop(): Promise<void> }[] = [];
  const startVariant = async (
    variant: string,
    at: { env: typeof env; ns: string; entry: string; kubeconfigPath: string },
  ): Promise<OperatorProcess> => {
    const operator = await startOperator(at.env, [at.ns], {
      pollInterval: '10m',
      workers: 4,
      entry: at.entry,
      nodeArgs: [
        ...variant.split(' ').filter(Boolean),
        ...(values['heap-snapshot-dir'] ? heapSnapshotNodeArgs(at.env.dir) : []),
      ],
      kubeconfigPath: at.kubeconfigPath,
    });
    stops.push(operator);
    return operator;
  };
  try {
    const service = await startService(env.dir, 'devserver');
    stops.push(service.server);
    const ns = await env.plane.createNamespace('bench');
    await createConnection({ env, namespace: ns }, service);
    const kubeconfigPath = await operatorKubeconfig(env, 'service-account');
    for (const variant of values['node-options']) {
      const operator = await startVariant(variant, { env, ns, entry, kubeconfigPath });
      await operator.waitReady().catch((error: unknown) => {
        console.log(`the operator did not get ready; its log ends:\n${operator.log().slice(-4000)}`);
        throw error;
      });
      await figures(operator, `[${variant}] when ready`);
      const settle = Number(values['settle-seconds']);
      const [pid] = pidsOf('operator');
      if (pid === undefined) throw new Error('no operator process found');
      const largest = await idle(operator, pid, settle);
      await figures(operator, `[${variant}] after ${settle} s at rest`);
      if (largest) {
        const window = `largest working set in the last ${Math.min(windowSeconds, settle)} s of ${settle} s at rest`;
        row(`memory [${variant}] ${window}`, memoryFiguresText(largest.figures));
        row(`RSS split [${variant}] at that sample`, memorySplitText(largest.split));
      }
      const snapshotDir = values['heap-snapshot-dir'];
      if (snapshotDir) await snapshot(snapshotDir, env.dir);
      await operator.stop();
    }
    printTable('coffer operator at rest', rows);
  } finally {
    for (const p of stops.reverse()) await p.stop().catch(() => undefined);
    await env.stop();
  }
}

await main();
