/**
 * Measurements of `npm run bench:delivery`: the floor run (`delivery-floor-controller.ts`), the
 * service calls over a quiet window, service edit → target Secret latencies, and the restarts a
 * burst of edits causes.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppsV1Api } from '@kubernetes/client-node';
import { cpuSnapshot, cpuText } from './cpu.ts';
import { createWorkloadSecrets, type Folder } from './delivery-setup.ts';
import { waitAllReady } from './operator-measure.ts';
import { randomValue, type At, type BenchEnv, type Service } from './operator-setup.ts';

/** Applies WorkloadSecrets for `folders` into `namespace`, converged by the floor controller. */
export async function runDeliveryFloor(
  env: BenchEnv,
  namespace: string,
  folders: readonly Folder[],
  options: { kubeconfigPath: string; workers: number; concurrency: number; log: (line: string) => void },
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
    await createWorkloadSecrets({ env, namespace }, folders, {
      resyncInterval: '10m',
      concurrency: options.concurrency,
    });
    const readyMs = await waitAllReady(
      env,
      namespace,
      { workloadsecrets: folders.length },
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

/** Service requests per minute over a window of `seconds`, with the busiest routes. */
export async function callsPerMinute(
  service: Service,
  seconds: number,
): Promise<{ perMinute: number; routes: string }> {
  await service.server.resetStats();
  await sleep(seconds * 1000);
  const stats = await service.server.stats();
  const routes = Object.entries(stats.requests.byRoute)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([route, count]) => `${route} ${count}`)
    .join(', ');
  return { perMinute: (stats.requests.total * 60) / seconds, routes: routes || 'none' };
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
 * `edits` edits spread round-robin over `folders` (all in one project), then waits until every
 * Deployment `d-<i>` restarted and `settleMs` more; the restarts (generation increments) of each.
 */
export async function burstRestarts(
  { env, namespace }: At,
  service: Service,
  folders: readonly Folder[],
  options: { edits: number; settleMs: number },
): Promise<number[]> {
  const apps = env.kc.makeApiClient(AppsV1Api);
  const generation = async (i: number) =>
    (await apps.readNamespacedDeployment({ namespace, name: `d-${i}` })).metadata?.generation ?? 0;
  const before = await Promise.all(folders.map((f) => generation(f.index)));
  for (let e = 0; e < options.edits; e += 1) {
    const folder = folders[e % folders.length] as Folder;
    await service.client.secrets.update(`K${e % 10}`, {
      workspaceId: folder.projectId,
      environment: 'dev',
      secretPath: folder.secretPath,
      secretValue: randomValue(),
    });
  }
  const deadline = Date.now() + 300_000;
  for (;;) {
    const now = await Promise.all(folders.map((f) => generation(f.index)));
    if (now.every((g, k) => g > (before[k] ?? 0)) || Date.now() > deadline) break;
    await sleep(1_000);
  }
  await sleep(options.settleMs);
  const after = await Promise.all(folders.map((f) => generation(f.index)));
  return after.map((g, k) => g - (before[k] ?? 0));
}
