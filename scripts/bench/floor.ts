/**
 * The kube-apiserver floor of the operator benchmark (not a test): the same control plane and the
 * same workload as `npm run bench`, converged by `floor-controller.ts` instead of the operator —
 * per resource only a finalizer patch and a status patch, the writes every operator with
 * finalizers and status makes, and nothing else (no service, no reads, no events). The time from
 * apply to all Ready is what this machine needs before any operator logic runs.
 *
 *   npm run bench:floor -- [--n 10000] [--workers 16] [--concurrency 32] [--batch-projects 8]
 */
import { parseArgs } from 'node:util';
import { parseCommandLine } from '../command-line.ts';
import { runFloor } from './floor-run.ts';
import { printTable } from './operator-measure.ts';
import { operatorKubeconfig, startBenchEnv, workloadFor } from './operator-setup.ts';

const usage = `usage: npm run bench:floor -- [--n 10000] [--workers 16] [--concurrency 32] [--batch-projects 8]

The operator benchmark's workload converged by a minimal controller (finalizer and status patch
per resource): kube-apiserver's floor on this machine.`;

const { values } = parseCommandLine(usage, () =>
  parseArgs({
    options: {
      n: { type: 'string', default: '10000' },
      workers: { type: 'string', default: '16' },
      concurrency: { type: 'string', default: '32' },
      'batch-projects': { type: 'string', default: '8' },
    },
  }),
);
const n = Number(values.n);
const log = (line: string) => console.log(line);
const rows: [string, string][] = [];
const row = (label: string, value: string) => {
  rows.push([label, value]);
  log(`  ${label}: ${value}`);
};

async function main(): Promise<void> {
  const env = await startBenchEnv(log);
  try {
    const namespace = await env.plane.createNamespace('bench');
    const w = workloadFor(n, Number(values['batch-projects']));
    const floor = await runFloor(env, namespace, w, {
      workers: Number(values.workers),
      concurrency: Number(values.concurrency),
      prefix: 'bench-',
      kubeconfigPath: await operatorKubeconfig(env, 'service-account'),
      log,
    });
    row('apply (create calls) took', `${(floor.applyMs / 1000).toFixed(1)} s`);
    row('apply → all Ready (finalizer + status only)', `${(floor.readyMs / 1000).toFixed(1)} s`);
    row('CPU from apply to all Ready (share of one core)', floor.cpu);
    row('kube-apiserver requests from apply to all Ready', floor.requests);
    printTable(
      `kube-apiserver floor: N=${n} (${w.projects} Projects, ${w.identities} Identities, ${w.batches} SecretBatches), ` +
        `${values.workers} workers, two writes per resource`,
      rows,
    );
  } finally {
    await env.stop();
  }
}

await main();
