/**
 * Measurements of `npm run bench:delivery` and `npm run bench:leases`: the floor run
 * (`delivery-floor-controller.ts`), the service calls over a quiet window, service edit → target
 * Secret latencies, the restarts of opted-in Deployments, and the operator's process and heap.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppsV1Api } from '@kubernetes/client-node';
import { sumMetric, type OperatorProcess } from '../../test/support/processes.ts';
import { cpuSnapshot, cpuText, pidsOf } from './cpu.ts';
import type { Folder } from './delivery-setup.ts';
import { mib, waitAllReady } from './operator-measure.ts';
import { randomValue, type At, type BenchEnv, type Service } from './operator-setup.ts';

/** The WorkloadSecrets a floor run applies: `count` of them, created by `create`. */
export interface FloorWorkload {
  readonly count: number;
  create(at: At): Promise<unknown>;
}

/** Applies `workload` into `namespace`, converged by the floor controller. */
export async function runDeliveryFloor(
  env: BenchEnv,
  namespace: string,
  workload: FloorWorkload,
  options: { kubeconfigPath: string; workers: number; log: (line: string) => void },
): Promise<{ readyMs: number; cpu: string }> {
  const script = join(import.meta.dirname, 'delivery-floor-controller.ts');
  const args = [
    script,
    `--kubeconfig=${options.kubeconfigPath}`,
    `--namespace=${namespace}`,
    `--workers=${options.workers}`,
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    for await (const line of createInterface({ input: child.stdout })) if (line === 'synced') break;
    const before = { at: Date.now(), cpu: cpuSnapshot() };
    await workload.create({ env, namespace });
    const readyMs = await waitAllReady(
      env,
      namespace,
      { workloadsecrets: workload.count },
      {
        since: before.at,
        timeoutMs: 3_600_000,
        intervalMs: 1_000,
        log: options.log,
      },
    );
    return { readyMs, cpu: cpuText(before.cpu, cpuSnapshot(), readyMs) };
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  }
}

/** Waits until the service saw no request for `quietMs` (after convergence, stream reopens). */
export async function serviceQuiet(service: Service, quietMs: number, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = (await service.server.stats()).requests.total;
  let since = Date.now();
  while (Date.now() - since < quietMs) {
    if (Date.now() > deadline) return;
    await sleep(1_000);
    const now = (await service.server.stats()).requests.total;
    if (now !== last) [last, since] = [now, Date.now()];
  }
}

/**
 * Service requests per minute over a window of `seconds`, with the busiest routes (`routes`, the
 * top three as text) and every route's count (`byRoute`).
 */
export async function callsPerMinute(
  service: Service,
  seconds: number,
): Promise<{ perMinute: number; routes: string; byRoute: Record<string, number> }> {
  await service.server.resetStats();
  await sleep(seconds * 1000);
  const stats = await service.server.stats();
  const routes = Object.entries(stats.requests.byRoute)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([route, count]) => `${route} ${count}`)
    .join(', ');
  return {
    perMinute: (stats.requests.total * 60) / seconds,
    routes: routes || 'none',
    byRoute: stats.requests.byRoute,
  };
}

/** Edits K0 of each sampled folder, one at a time; ms until the target Secret holds the new value. */
export async function editLatencies({ env, namespace }: At, service: Service, folders: readonly Folder[]) {
  const samples: number[] = [];
  for (const folder of folders) {
    const value = randomValue();
    const encoded = Buffer.from(value).toString('base64');
    const start = Date.now();
    await service.client.secrets.update('K0', {
      workspaceId: folder.projectId,
      environment: 'dev',
      secretPath: folder.secretPath,
      secretValue: value,
    });
    for (;;) {
      const secret = await env.core.readNamespacedSecret({ namespace, name: `w-${folder.index}` });
      if (secret.data?.['K0'] === encoded) break;
      if (Date.now() - start > 120_000) throw new Error(`the edit of ${folder.secretPath} never arrived`);
      await sleep(10);
    }
    samples.push(Date.now() - start);
  }
  return samples;
}

/**
 * The generation of each Deployment `d-<i>` (a restart increments it), from one list of the
 * namespace: one request however many Deployments are watched, so the polling does not load
 * kube-apiserver while the operator restarts them.
 */
export async function deploymentGenerations(
  { env, namespace }: At,
  indexes: readonly number[],
): Promise<number[]> {
  const list = await env.kc.makeApiClient(AppsV1Api).listNamespacedDeployment({ namespace });
  const byName = new Map(list.items.map((d) => [d.metadata?.name ?? '', d.metadata?.generation ?? 0]));
  return indexes.map((i) => byName.get(`d-${i}`) ?? 0);
}

/**
 * Waits until every Deployment `d-<i>` of `indexes` restarted since `before` (their generations)
 * or `timeoutMs` passed, then `settleMs` more; the restarts (generation increments) of each.
 */
export async function restartsSince(
  at: At,
  indexes: readonly number[],
  before: readonly number[],
  options: { settleMs: number; timeoutMs: number },
): Promise<number[]> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const now = await deploymentGenerations(at, indexes);
    if (now.every((g, k) => g > (before[k] ?? 0)) || Date.now() > deadline) break;
    await sleep(2_000);
  }
  await sleep(options.settleMs);
  const after = await deploymentGenerations(at, indexes);
  return after.map((g, k) => g - (before[k] ?? 0));
}

/**
 * `edits` edits spread round-robin over `folders` (all in one project), then waits until every
 * Deployment `d-<i>` restarted and `settleMs` more; the restarts (generation increments) of each.
 */
export async function burstRestarts(
  at: At,
  service: Service,
  folders: readonly Folder[],
  options: { edits: number; settleMs: number },
): Promise<number[]> {
  const indexes = folders.map((f) => f.index);
  const before = await deploymentGenerations(at, indexes);
  for (let e = 0; e < options.edits; e += 1) {
    const folder = folders[e % folders.length] as Folder;
    await service.client.secrets.update(`K${e % 10}`, {
      workspaceId: folder.projectId,
      environment: 'dev',
      secretPath: folder.secretPath,
      secretValue: randomValue(),
    });
  }
  return restartsSince(at, indexes, before, { settleMs: options.settleMs, timeoutMs: 300_000 });
}

/** The process id of the (one) operator the benchmark runs. */
export function operatorPid(): number {
  const [pid] = pidsOf('operator');
  if (pid === undefined) throw new Error('no operator process found');
  return pid;
}

/** V8's heap used / committed and external memory of the operator, from its /metrics. */
export async function heapText(operator: OperatorProcess): Promise<string> {
  const metrics = await operator.metrics();
  const m = (name: string) => mib(sumMetric(metrics, name));
  return `${m('nodejs_heap_size_used_bytes')} / ${m('nodejs_heap_size_total_bytes')}, external ${m('nodejs_external_memory_bytes')}`;
}
