/**
 * Measurements of the operator benchmark: waiting for readiness, change-to-service latencies
 * (a Kubernetes Secret edit reaching the service; a value changed in the service being restored),
 * percentiles, and the result table.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { pino } from 'pino';
import { group, version } from '../../src/api/v1alpha1/index.ts';
import { Informer, type KubeObject } from '../../src/runtime/informer.ts';
import { randomValue, type At, type BenchEnv, type Service } from './operator-setup.ts';

const silentLogger = pino({ level: 'silent' });

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** A cached custom resource reduced to what readiness needs. */
interface Readiness extends KubeObject {
  ready?: boolean;
}

function isReady(obj: KubeObject): boolean {
  const o = obj as KubeObject & {
    status?: { conditions?: { type: string; status: string; observedGeneration?: number }[] };
  };
  return (
    o.status?.conditions?.some(
      (c) => c.type === 'Ready' && c.status === 'True' && c.observedGeneration === o.metadata?.generation,
    ) ?? false
  );
}

/**
 * Waits until every kind has its expected count of objects Ready for their current generation;
 * returns ms from `since`. Watches (one informer per kind, objects reduced to a flag) instead of
 * listing: a LIST of 10,000 objects every few seconds costs kube-apiserver enough CPU to slow the
 * operator it measures.
 */
export async function waitAllReady(
  env: BenchEnv,
  namespace: string,
  expected: Record<string, number>,
  options: { since: number; timeoutMs: number; intervalMs: number; log: (line: string) => void },
): Promise<number> {
  const informers = Object.keys(expected).map(
    (plural) =>
      [
        plural,
        new Informer<Readiness>({
          name: plural,
          kubeConfig: env.kc,
          resource: { group, version, plural, namespaced: true },
          namespaces: [namespace],
          log: silentLogger,
          transform: (obj) => ({ metadata: obj.metadata, ready: isReady(obj) }),
        }),
      ] as const,
  );
  for (const [, informer] of informers) informer.start();
  try {
    let lastReport = 0;
    for (;;) {
      const counts: Record<string, number> = {};
      for (const [plural, informer] of informers) {
        counts[plural] = informer.hasSynced() ? informer.list().filter((o) => o.ready).length : 0;
      }
      const elapsed = Date.now() - options.since;
      if (Object.entries(expected).every(([plural, n]) => (counts[plural] ?? 0) >= n)) return elapsed;
      if (elapsed > options.timeoutMs) {
        throw new Error(`cannot reach all Ready in ${options.timeoutMs} ms: ${JSON.stringify(counts)}`);
      }
      if (elapsed - lastReport >= 10_000) {
        lastReport = elapsed;
        const text = Object.entries(counts).map(([plural, n]) => `${plural} ${n}/${expected[plural]}`);
        options.log(`  ${(elapsed / 1000).toFixed(0)} s: ${text.join(', ')}`);
      }
      await sleep(options.intervalMs);
    }
  } finally {
    await Promise.all(informers.map(([, informer]) => informer.stop()));
  }
}

/** Where one batch writes in the service. */
export interface BatchTarget {
  readonly index: number;
  readonly projectId: string;
  readonly secretPath: string;
}

function query(target: BatchTarget) {
  return { workspaceId: target.projectId, environment: 'dev', secretPath: target.secretPath };
}

async function waitForValue(
  service: Service,
  target: BatchTarget,
  { key, value }: { key: string; value: string },
  timing: { timeoutMs: number; intervalMs: number } = { timeoutMs: 120_000, intervalMs: 10 },
): Promise<void> {
  const deadline = Date.now() + timing.timeoutMs;
  for (;;) {
    try {
      if ((await service.client.secrets.get(key, query(target))).secretValue === value) return;
    } catch {
      // Not there yet (or a transient error): keep polling.
    }
    if (Date.now() > deadline) throw new Error(`cannot see the new value of ${key} in ${target.secretPath}`);
    await sleep(timing.intervalMs);
  }
}

/** Edits key K0 of the batch's source Secret, one sample at a time; ms until the service has it. */
export async function secretEditLatencies(
  { env, namespace }: At,
  service: Service,
  targets: readonly BatchTarget[],
): Promise<number[]> {
  const samples: number[] = [];
  for (const target of targets) {
    const value = randomValue();
    const started = Date.now();
    await env.core.patchNamespacedSecret(
      { namespace, name: `src-${target.index}`, body: { stringData: { K0: value } } },
      mergePatch,
    );
    await waitForValue(service, target, { key: 'K0', value });
    samples.push(Date.now() - started);
  }
  return samples;
}

/** Changes key K1 of one batch in the service; ms until the operator restored it. */
async function driftRestore(
  { env, namespace }: At,
  service: Service,
  target: BatchTarget,
  intervalMs: number,
) {
  const secret = await env.core.readNamespacedSecret({ namespace, name: `src-${target.index}` });
  const wanted = Buffer.from(secret.data?.['K1'] ?? '', 'base64').toString('utf8');
  const started = Date.now();
  await service.client.secrets.update('K1', { ...query(target), secretValue: randomValue() });
  await waitForValue(service, target, { key: 'K1', value: wanted }, { timeoutMs: 1_800_000, intervalMs });
  return Date.now() - started;
}

/**
 * Changes key K1 in the service and measures the time until the operator restored it: one sample
 * at a time, or all at once with `parallel` (for restores that wait for the poll).
 */
export async function driftRestoreLatencies(
  at: At,
  service: Service,
  targets: readonly BatchTarget[],
  parallel = false,
): Promise<number[]> {
  if (parallel) return Promise.all(targets.map((t) => driftRestore(at, service, t, 250)));
  const samples: number[] = [];
  for (const target of targets) samples.push(await driftRestore(at, service, target, 10));
  return samples;
}

/** The p-th percentile (nearest rank) of `values`, in ms. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}

/** `p50 / p99` of samples, as "120 ms / 340 ms (n=50)". */
export function latencyText(samples: readonly number[]): string {
  return `${percentile(samples, 50).toFixed(0)} ms / ${percentile(samples, 99).toFixed(0)} ms (n=${samples.length})`;
}

/** Prints `rows` as a two-column table. */
export function printTable(title: string, rows: readonly (readonly [string, string])[]): void {
  const width = Math.max(...rows.map(([label]) => label.length));
  console.log(`\n${title}`);
  console.log(`${'-'.repeat(width)}  ${'-'.repeat(40)}`);
  for (const [label, value] of rows) console.log(`${label.padEnd(width)}  ${value}`);
}

export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
