/**
 * The kube-apiserver floor of the operator benchmark (not a test): the same control plane and the
 * same workload as `npm run bench`, converged by `floor-controller.ts` instead of the operator —
 * per resource only a finalizer patch and a status patch, the writes every operator with
 * finalizers and status makes, and nothing else (no service, no reads, no events). The time from
 * apply to all Ready is what this machine needs before any operator logic runs.
 *
 *   npm run bench:floor -- [--n 10000] [--workers 16] [--concurrency 32] [--batch-projects 8]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { parseCommandLine } from '../command-line.ts';
import { apiServerRequests, requestsText } from './apiserver-requests.ts';
import { cpuSnapshot, cpuText } from './cpu.ts';
import { printTable, waitAllReady } from './operator-measure.ts';
import { applyWorkload, operatorKubeconfig, startBenchEnv, workloadFor } from './operator-setup.ts';

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

/** Starts the floor controller as a child process; resolves once its informers have synced. */
async function startFloorController(kubeconfigPath: string, namespace: string) {
  const script = join(import.meta.dirname, 'floor-controller.ts');
  const child = spawn(
    process.execPath,
    [script, `--kubeconfig=${kubeconfigPath}`, `--namespace=${namespace}`, `--workers=${values.workers}`],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) if (line === 'synced') break;
  return child;
}

async function main(): Promise<void> {
  const env = await startBenchEnv(log);
  const children: ReturnType<typeof spawn>[] = [];
  try {
    const namespace = await env.plane.createNamespace('bench');
    const controller = await startFloorController(
      await operatorKubeconfig(env, 'service-account'),
      namespace,
    );
    children.push(controller);
    const w = workloadFor(n, Number(values['batch-projects']));
    const before = { at: Date.now(), cpu: cpuSnapshot(), requests: await apiServerRequests(env.kc) };
    await applyWorkload({ env, namespace }, w, { prefix: 'bench-', concurrency: Number(values.concurrency) });
    row('apply (create calls) took', `${((Date.now() - before.at) / 1000).toFixed(1)} s`);
    const expected = { projects: w.projects, identities: w.identities, secretbatches: w.batches };
    const readyMs = await waitAllReady(env, namespace, expected, {
      since: before.at,
      timeoutMs: 3_600_000,
      intervalMs: 1_000,
      log,
    });
    row('apply → all Ready (finalizer + status only)', `${(readyMs / 1000).toFixed(1)} s`);
    row('CPU from apply to all Ready (share of one core)', cpuText(before.cpu, cpuSnapshot(), readyMs));
    row(
      'kube-apiserver requests from apply to all Ready',
      requestsText(before.requests, await apiServerRequests(env.kc)),
    );
    printTable(
      `kube-apiserver floor: N=${n} (${w.projects} Projects, ${w.identities} Identities, ${w.batches} SecretBatches), ` +
        `${values.workers} workers, two writes per resource`,
      rows,
    );
  } finally {
    for (const child of children) {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    }
    await env.stop();
  }
}

await main();
