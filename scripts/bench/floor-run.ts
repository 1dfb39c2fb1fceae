/**
 * One floor run (see `floor.ts`): the benchmark's workload applied into `namespace` and converged
 * by `floor-controller.ts` (a finalizer patch and a status patch per resource, nothing else).
 * Used by `npm run bench:floor` and by `npm run bench -- --floor`, which runs it in the same
 * invocation as the operator so both figures come from the same machine state.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { apiServerRequests, requestDelta, requestsText, type RequestCounts } from './apiserver-requests.ts';
import { cpuSnapshot, cpuText } from './cpu.ts';
import { waitAllReady } from './operator-measure.ts';
import { applyWorkload, type BenchEnv, type Workload } from './operator-setup.ts';

export interface FloorOptions {
  readonly workers: number;
  readonly concurrency: number;
  /** Name prefix of the created objects (Secrets, resources). */
  readonly prefix: string;
  /** The kubeconfig of the chart's ServiceAccount (`operatorKubeconfig`, made once per control plane). */
  readonly kubeconfigPath: string;
  readonly log: (line: string) => void;
}

/** What a floor run measured. */
export interface FloorResult {
  readonly applyMs: number;
  readonly readyMs: number;
  readonly cpu: string;
  /** The most frequent requests, as text (`requestsText`). */
  readonly requests: string;
  /** Every request kube-apiserver answered from apply to all Ready, by verb and resource. */
  readonly requestCounts: RequestCounts;
}

/** Starts the floor controller as a child process; resolves once its informers have synced. */
async function startFloorController(kubeconfigPath: string, namespace: string, workers: number) {
  const script = join(import.meta.dirname, 'floor-controller.ts');
  const child = spawn(
    process.execPath,
    [script, `--kubeconfig=${kubeconfigPath}`, `--namespace=${namespace}`, `--workers=${workers}`],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) if (line === 'synced') break;
  return child;
}

/** Applies `w` into `namespace` and waits until the floor controller made all of it Ready. */
export async function runFloor(
  env: BenchEnv,
  namespace: string,
  w: Workload,
  options: FloorOptions,
): Promise<FloorResult> {
  const controller = await startFloorController(options.kubeconfigPath, namespace, options.workers);
  try {
    const before = { at: Date.now(), cpu: cpuSnapshot(), requests: await apiServerRequests(env.kc) };
    await applyWorkload({ env, namespace }, w, { prefix: options.prefix, concurrency: options.concurrency });
    const applyMs = Date.now() - before.at;
    const expected = { projects: w.projects, identities: w.identities, secretbatches: w.batches };
    const readyMs = await waitAllReady(env, namespace, expected, {
      since: before.at,
      timeoutMs: 3_600_000,
      intervalMs: 1_000,
      log: options.log,
    });
    const cpu = cpuText(before.cpu, cpuSnapshot(), readyMs);
    const after = await apiServerRequests(env.kc);
    return {
      applyMs,
      readyMs,
      cpu,
      requests: requestsText(before.requests, after),
      requestCounts: requestDelta(before.requests, after),
    };
  } finally {
    controller.kill('SIGTERM');
    if (controller.exitCode === null) await once(controller, 'exit');
  }
}
