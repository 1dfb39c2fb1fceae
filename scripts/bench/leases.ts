/**
 * Lease benchmark (not a test): a real control plane, `coffer devserver`, a private PostgreSQL
 * and `coffer operator` (as the chart's ServiceAccount, in a memory cgroup of its own); a
 * `sql-database` dynamic secret on PostgreSQL and N WorkloadSecrets each holding one lease of it
 * with a short TTL, each delivered into a Secret used by a Deployment that opts in to restarts.
 * Prints:
 *
 * - apply → all delivered, and the same WorkloadSecrets converged by the floor controller (one
 *   Secret create and one status patch each, no service) in another namespace just before, and
 *   the ratio (the floor goes first: once the operator holds leases, their renewals load the
 *   control plane);
 * - over a steady window (after a warm-up): service calls per minute by kind (lease renew /
 *   create / revoke / other) beside the renewals the TTL requires, N × 60 s / TTL per minute
 *   (each renewal adds one TTL to a lease's expiry, so no renewer keeps N leases alive on fewer),
 *   kube-apiserver requests, CPU per process, and the operator's working set and anonymous memory;
 * - a rotation wave: the dynamic secret's maximum TTL is lowered to the age every held lease has
 *   already reached at its expiry, so each lease's next renewal is refused and it is replaced by
 *   a new one ahead of its expiry; the restarts of each Deployment (expected exactly 1), and the
 *   leases and PostgreSQL roles left once the replaced leases' overlap is over;
 * - the leases and roles left after every WorkloadSecret is deleted (`deletionPolicy: Revoke`).
 *
 *   npm run bench:leases -- [--n 200] [--ttl 1m] [--max-ttl 1h] [--rotation-overlap 10s]
 *                           [--warmup-seconds <2 TTL>] [--steady-seconds <3 TTL>]
 *                           [--deployments <n>] [--workers 4] [--concurrency 32]
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import { group, version } from '../../src/api/v1alpha1/index.ts';
import { parseDurationExact } from '../../src/runtime/duration.ts';
import type { OperatorProcess } from '../../test/support/processes.ts';
import { startPostgres, type PostgresServer } from '../../test/support/postgres.ts';
import { parseCommandLine } from '../command-line.ts';
import { apiServerRequests, requestsText } from './apiserver-requests.ts';
import { cpuSnapshot, cpuText, type CpuSeconds } from './cpu.ts';
import {
  callsPerMinute,
  deploymentGenerations,
  heapText,
  operatorPid,
  restartsSince,
  runDeliveryFloor,
} from './delivery-measure.ts';
import { createDeployments } from './delivery-setup.ts';
import {
  createDynamicSecret,
  createLeaseWorkloadSecrets,
  leakText,
  leaseCalls,
  recordedLeases,
  serviceLeases,
  setMaxTtl,
  workloadSecretCount,
  type LeaseTarget,
} from './leases-setup.ts';
import { printTable, waitAllReady } from './operator-measure.ts';
import {
  buildOperator,
  createConnection,
  operatorKubeconfig,
  operatorMemory,
  runtimeTuningOptions,
  startBenchEnv,
  startOperator,
  startService,
  type At,
  type Service,
} from './operator-setup.ts';
import { startRssSampler } from './rss-sampler.ts';
import { memoryFiguresText, memoryHelp } from './working-set.ts';

const usage = `usage: npm run bench:leases -- [--n 200] [--ttl 1m] [--max-ttl 1h] [--rotation-overlap 10s]
                        [--warmup-seconds <2 TTL>] [--steady-seconds <3 TTL>]
                        [--deployments <n>] [--workers 4] [--concurrency 32]

Lease benchmark: N WorkloadSecrets each holding one lease (ttl --ttl, at least 1m) of a
sql-database dynamic secret on a private PostgreSQL (maximum TTL --max-ttl), each delivered into
a Secret used by one of --deployments Deployments that opt in to restarts. Prints apply → all
delivered beside the floor; over --steady-seconds after --warmup-seconds the service calls per
minute by kind beside the renewals the TTL requires (N × 60 s / TTL: each renewal adds one TTL
to the expiry), CPU and the operator's memory; then a rotation wave (the maximum TTL lowered so
every lease's next renewal is refused): restarts per Deployment (expected 1) and the leases and
PostgreSQL roles left; then the leases and roles left after every WorkloadSecret is deleted.

${memoryHelp}`;

const { values } = parseCommandLine(usage, () =>
  parseArgs({
    options: {
      n: { type: 'string', default: '200' },
      ttl: { type: 'string', default: '1m' },
      'max-ttl': { type: 'string', default: '1h' },
      'rotation-overlap': { type: 'string', default: '10s' },
      'warmup-seconds': { type: 'string' },
      'steady-seconds': { type: 'string' },
      deployments: { type: 'string' },
      workers: { type: 'string', default: '4' },
      concurrency: { type: 'string', default: '32' },
      // What the image and the Helm chart run the operator with (`runtimeTuningOptions`).
      'node-options': { type: 'string', default: runtimeTuningOptions() },
    },
  }),
);
const n = Number(values.n);
const ttlSeconds = parseDurationExact(values.ttl) / 1000;
const overlapMs = parseDurationExact(values['rotation-overlap']);
const warmupSeconds = Number(values['warmup-seconds'] ?? 2 * ttlSeconds);
const steadySeconds = Number(values['steady-seconds'] ?? 3 * ttlSeconds);
const deployments = Math.min(n, Number(values.deployments ?? n));
const workers = Number(values.workers);
const concurrency = Number(values.concurrency);
const leaseOptions = { ttl: values.ttl, rotationOverlap: values['rotation-overlap'] };
const log = (line: string) => console.log(line);
const rows: [string, string][] = [];
const row = (label: string, value: string) => {
  rows.push([label, value]);
  log(`  ${label}: ${value}`);
};

/** What every phase runs against. */
interface Run {
  readonly at: At;
  readonly service: Service;
  readonly operator: OperatorProcess;
  readonly db: PostgresServer;
  readonly target: LeaseTarget;
  /** The Deployments `d-<i>` opting in to restarts. */
  readonly indexes: readonly number[];
}

const since = (before: CpuSeconds, at: number) => cpuText(before, cpuSnapshot(), Date.now() - at);

/** Applies the N WorkloadSecrets; apply → all delivered, the service calls it took, memory. */
async function deliver(run: Run): Promise<number> {
  const { at, service, operator } = run;
  await service.server.resetStats();
  const before = { at: Date.now(), cpu: cpuSnapshot() };
  const sampler = startRssSampler(
    operatorPid(),
    () => operatorMemory(operator),
    () => heapText(operator),
  );
  await createLeaseWorkloadSecrets(at, run.target, n, { ...leaseOptions, concurrency });
  const readyMs = await waitAllReady(
    at.env,
    at.namespace,
    { workloadsecrets: n },
    { since: before.at, timeoutMs: 3_600_000, intervalMs: 1_000, log },
  );
  const calls = leaseCalls((await service.server.stats()).requests.byRoute);
  row('resources', `${n} WorkloadSecrets, one dynamicSecret source each (ttl ${values.ttl})`);
  row('apply → all delivered', `${(readyMs / 1000).toFixed(1)} s`);
  row('CPU from apply to all delivered', since(before.cpu, before.at));
  row(
    'service calls to deliver',
    `${calls.text}; leases issued beyond one per WorkloadSecret: ${calls.create - n}`,
  );
  row('operator memory at the largest working set sampled (every 2 s) until all delivered', await sampler.stop()); // prettier-ignore
  return readyMs;
}

/** Service calls, CPU and memory over the steady window, after the warm-up. */
async function steady(run: Run): Promise<void> {
  const { at, service, operator } = run;
  await createDeployments(at, run.indexes, concurrency);
  log(`warm-up ${warmupSeconds} s, then a steady window of ${steadySeconds} s`);
  await sleep(warmupSeconds * 1000);
  const before = { at: Date.now(), cpu: cpuSnapshot(), requests: await apiServerRequests(at.env.kc) };
  const sampler = startRssSampler(
    operatorPid(),
    () => operatorMemory(operator),
    () => heapText(operator),
  );
  const { perMinute, byRoute } = await callsPerMinute(service, steadySeconds);
  const cpuAfter = cpuSnapshot();
  const requests = requestsText(before.requests, await apiServerRequests(at.env.kc));
  const calls = leaseCalls(byRoute);
  const required = (n * 60) / ttlSeconds;
  const renewPerMinute = (calls.renew * 60) / steadySeconds;
  const operatorCpu = (cpuAfter['operator'] ?? 0) - (before.cpu['operator'] ?? 0);
  row(
    `steady window (${steadySeconds} s, after ${warmupSeconds} s): service calls per minute`,
    `${perMinute.toFixed(1)} (${calls.text} over the window)`,
  );
  row(
    'lease renewals per minute / required (N × 60 s / TTL)',
    `${renewPerMinute.toFixed(1)} / ${required.toFixed(1)} (${(renewPerMinute / required).toFixed(3)} ×)`,
  );
  row('CPU over the steady window', cpuText(before.cpu, cpuAfter, Date.now() - before.at));
  const leaseCallCount = calls.renew + calls.create + calls.revoke;
  row(
    'operator CPU per lease call (renew, create or revoke)',
    `${leaseCallCount > 0 ? ((operatorCpu * 1000) / leaseCallCount).toFixed(1) : '-'} ms`,
  );
  row('kube-apiserver requests over the steady window', requests || 'none');
  row('operator memory, largest working set sampled over the steady window', await sampler.stop());
  row('operator memory at the end of the steady window', memoryFiguresText(operatorMemory(operator)));
}

/**
 * Waits until every WorkloadSecret of `held` holds another lease, at most two TTLs and 5 minutes;
 * the ms it took and how many still hold their old lease then.
 */
async function waitRotated(
  at: At,
  held: ReadonlyMap<string, string>,
  start: number,
): Promise<{ ms: number; left: number }> {
  const deadline = start + 2 * ttlSeconds * 1000 + 300_000;
  for (;;) {
    const now = (await recordedLeases(at)).held;
    const left = [...held].filter(([name, id]) => (now.get(name) ?? id) === id).length;
    if (left === 0 || Date.now() > deadline) return { ms: Date.now() - start, left };
    await sleep(n > 500 ? 5_000 : 2_000);
  }
}

/**
 * Lowers the maximum TTL to the least lifetime any held lease has already been granted (its
 * expiry minus its creation): every lease's next renewal would pass it and is refused, so each is
 * replaced; a new lease can still be renewed (the least lifetime is several TTLs by then).
 */
async function rotationWave(run: Run): Promise<void> {
  const { at, service } = run;
  const { held } = await recordedLeases(at);
  const generations = await deploymentGenerations(at, run.indexes);
  const leases = await serviceLeases(service, run.target);
  const granted = Math.min(...leases.map((l) => Date.parse(l.expireAt) - Date.parse(l.createdAt)));
  const maxTtl = `${Math.floor(granted / 1000)}s`;
  if (granted < 2 * ttlSeconds * 1000) {
    // A new lease could not be renewed either: the wave would not end.
    row(
      'rotation wave',
      `not staged: the least lifetime granted to a held lease is ${maxTtl}, under 2 TTLs (leases were replaced, not renewed)`,
    );
    return;
  }
  await service.server.resetStats();
  const before = { at: Date.now(), cpu: cpuSnapshot() };
  await setMaxTtl(service, run.target, maxTtl);
  const rotated = await waitRotated(at, held, before.at);
  const restarts = await restartsSince(at, run.indexes, generations, {
    settleMs: overlapMs + 20_000,
    timeoutMs: 120_000,
  });
  const stats = await service.server.stats();
  const cpu = since(before.cpu, before.at);
  await setMaxTtl(service, run.target, values['max-ttl']);
  const recorded = await recordedLeases(at);
  const leaks = await leakText(service, run.target, run.db, recorded.all);
  row(
    `rotation wave (maximum TTL ${values['max-ttl']} → ${maxTtl}): every lease replaced`,
    rotated.left === 0
      ? `${(rotated.ms / 1000).toFixed(1)} s after the change`
      : `not all: ${rotated.left} of ${held.size} still held their old lease ${(rotated.ms / 1000).toFixed(0)} s after the change`,
  );
  row(
    `rotation wave: service calls until ${((overlapMs + 20_000) / 1000).toFixed(0)} s after the restarts`,
    `${leaseCalls(stats.requests.byRoute).text}; answered 400 (renewals refused) ${stats.requests.byStatus['400'] ?? 0}`,
  );
  const min = Math.min(...restarts);
  const max = Math.max(...restarts);
  row(
    `rotation wave: restarts per Deployment (${restarts.length} Deployments, debounce 5 s)`,
    `min ${min}, max ${max}, total ${restarts.reduce((a, b) => a + b, 0)} (expected exactly 1 each)`,
  );
  row('rotation wave: CPU', cpu);
  row(`after the wave and the rotation overlap (${values['rotation-overlap']})`, leaks.text);
}

/** Deletes every WorkloadSecret; time until all are gone, and the leases and roles left. */
async function deleteAll(run: Run): Promise<void> {
  const { at, service } = run;
  await service.server.resetStats();
  const start = Date.now();
  await at.env.custom.deleteCollectionNamespacedCustomObject({
    group,
    version,
    plural: 'workloadsecrets',
    namespace: at.namespace,
  });
  for (;;) {
    const left = await workloadSecretCount(at);
    if (left === 0) break;
    if (Date.now() - start > 900_000) throw new Error(`${left} WorkloadSecrets never went away`);
    await sleep(2_000);
  }
  const calls = leaseCalls((await service.server.stats()).requests.byRoute);
  const leaks = await leakText(service, run.target, run.db, new Set());
  row('delete all WorkloadSecrets → all gone', `${((Date.now() - start) / 1000).toFixed(1)} s (${calls.text})`); // prettier-ignore
  row('after deleting every WorkloadSecret (deletionPolicy Revoke)', leaks.text);
}

async function main(): Promise<void> {
  const entry = buildOperator(log);
  const env = await startBenchEnv(log);
  const stops: (() => Promise<void> | void)[] = [() => env.stop()];
  try {
    const db = await startPostgres();
    stops.push(() => db.stop());
    const service = await startService(env.dir, 'devserver');
    stops.push(() => service.server.stop());
    const target = await createDynamicSecret(service, db, {
      defaultTTL: values.ttl,
      maxTTL: values['max-ttl'],
    });
    const ns = await env.plane.createNamespace('bench');
    const floorNs = await env.plane.createNamespace('bench-floor');
    const kubeconfigPath = await operatorKubeconfig(env, 'service-account');
    const operator = await startOperator(env, [ns], {
      pollInterval: '10m',
      workers,
      entry,
      nodeArgs: values['node-options'].split(' ').filter(Boolean),
      kubeconfigPath,
    });
    stops.push(() => operator.stop());
    await operator.waitReady();
    const at = { env, namespace: ns };
    await createConnection(at, service);
    const indexes = Array.from({ length: deployments }, (_, i) => i);
    const run: Run = { at, service, operator, db, target, indexes };
    const cpuStart = { at: Date.now(), cpu: cpuSnapshot() };
    // The floor first: once the operator holds short leases, their renewals load the control plane.
    const floor = await runDeliveryFloor(
      env,
      floorNs,
      {
        count: n,
        create: (floorAt) => createLeaseWorkloadSecrets(floorAt, target, n, { ...leaseOptions, concurrency }),
      },
      { kubeconfigPath, workers, log },
    );
    const readyMs = await deliver(run);
    row(
      `floor, run before the operator's apply: apply → all delivered (${workers} writers: Secret create + status patch)`,
      `${(floor.readyMs / 1000).toFixed(1)} s`,
    );
    row('operator / floor (apply → all delivered)', (readyMs / floor.readyMs).toFixed(2));
    await steady(run);
    await rotationWave(run);
    await deleteAll(run);
    row('CPU over the whole run', since(cpuStart.cpu, cpuStart.at));
    row(
      'load average (1, 5, 15 min) at the end',
      loadavg()
        .map((l) => l.toFixed(2))
        .join(', '),
    );
    printTable(
      `coffer lease benchmark: N=${n}, ttl ${values.ttl}, rotationOverlap ${values['rotation-overlap']}, ${workers} workers`,
      rows,
    );
  } finally {
    for (const stop of stops.reverse()) await Promise.resolve(stop()).catch(() => undefined);
  }
}

await main();
