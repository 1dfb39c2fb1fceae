/**
 * Delivery benchmark (not a test): a real control plane, `coffer devserver` and
 * `coffer operator` as separate processes (the operator as the chart's ServiceAccount); N
 * WorkloadSecrets × 10 keys over P projects. Prints:
 *
 * - apply → all delivered (every WorkloadSecret Ready, its Secret written), and the same
 *   WorkloadSecrets converged by a floor controller (one Secret create and one status patch
 *   each, no service) in another namespace of the same control plane, and the ratio;
 * - service calls per minute at rest with events (no read per WorkloadSecret; the folder checks:
 *   one folder list per project stream and environment per resyncInterval), and with events unavailable (the service
 *   refuses the stream: 5 streams of the same identity already held) for `--quiet-n` resources
 *   with `--quiet-resync` (the configured rate, for comparison);
 * - service edit → target Secret updated, p50 / p99;
 * - a burst of `--burst-edits` edits to one project → restarts of each affected Deployment;
 * - the operator's memory as the kubelet sees it (largest working set sampled every 2 s until all
 *   delivered, with anonymous memory and RSS: `working-set.ts`) and CPU.
 *
 * With `--hostile` it measures hostile templates instead (`delivery-hostile.ts`): N (default
 * 100) benign templated WorkloadSecrets, their edit → Secret latency without and while hostile
 * templates render, each hostile template's spec edit → TemplateError, and the operator's
 * working set, anonymous memory and RSS at their peak.
 *
 *   npm run bench:delivery -- [--n 1000] [--projects 4] [--steady-seconds 60] [--samples 50]
 *                             [--quiet-n 100] [--quiet-resync 60s] [--burst-edits 100]
 *                             [--burst-workloads 10] [--workers 4] [--concurrency 32]
 *   npm run bench:delivery -- --hostile [--n 100] [--rounds 3] [--samples 50]
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import { parseCommandLine } from '../command-line.ts';
import { sumMetric, type OperatorProcess } from '../../test/support/processes.ts';
import { apiServerRequests, requestsText } from './apiserver-requests.ts';
import { cpuSnapshot, cpuText } from './cpu.ts';
import {
  burstRestarts,
  callsPerMinute,
  editLatencies,
  heapText,
  operatorPid,
  runDeliveryFloor,
  serviceQuiet,
} from './delivery-measure.ts';
import {
  createDeployments,
  createFolders,
  createServiceProjects,
  createWorkloadSecrets,
  folderOf,
  KEYS,
  workloadSecretSpec,
} from './delivery-setup.ts';
import {
  createTemplatedWorkloadSecrets,
  latenciesUntil,
  memoryText,
  renderHostile,
  startMemoryPeak,
} from './delivery-hostile.ts';
import { latencyText, mib, printTable, waitAllReady } from './operator-measure.ts';
import {
  buildOperator,
  createConnection,
  operatorKubeconfig,
  startBenchEnv,
  startOperator,
  startService,
  type BenchEnv,
  type Service,
  runtimeTuningOptions,
  operatorMemory,
  createObject,
} from './operator-setup.ts';
import { startRssSampler } from './rss-sampler.ts';
import { memoryFiguresText, memoryHelp } from './working-set.ts';

const usage = `usage: npm run bench:delivery -- [--n 1000] [--projects 4] [--steady-seconds 60] [--samples 50]
                          [--quiet-n 100] [--quiet-resync 60s] [--burst-edits 100]
                          [--burst-workloads 10] [--workers 4] [--concurrency 32]
       npm run bench:delivery -- --hostile [--n 100] [--rounds 3] [--samples 50]

Delivery benchmark: N WorkloadSecrets × 10 keys; prints a table of the measurements. With
--hostile: hostile templates rendering beside N benign templated WorkloadSecrets (time until
each TemplateError, the others' edit latency without and with them, the operator's memory).

${memoryHelp}`;

const { values } = parseCommandLine(usage, () =>
  parseArgs({
    options: {
      n: { type: 'string' },
      hostile: { type: 'boolean', default: false },
      rounds: { type: 'string', default: '3' },
      projects: { type: 'string', default: '4' },
      'steady-seconds': { type: 'string', default: '60' },
      samples: { type: 'string', default: '50' },
      'quiet-n': { type: 'string', default: '100' },
      'quiet-resync': { type: 'string', default: '60s' },
      'burst-edits': { type: 'string', default: '100' },
      'burst-workloads': { type: 'string', default: '10' },
      workers: { type: 'string', default: '4' },
      concurrency: { type: 'string', default: '32' },
      // What the image and the Helm chart run the operator with (`runtimeTuningOptions`).
      'node-options': { type: 'string', default: runtimeTuningOptions() },
    },
  }),
);
const n = Number(values.n ?? (values.hostile ? '100' : '1000'));
const projectCount = Number(values.projects);
const concurrency = Number(values.concurrency);
const workers = Number(values.workers);
const log = (line: string) => console.log(line);
const rows: [string, string][] = [];
const row = (label: string, value: string) => {
  rows.push([label, value]);
  log(`  ${label}: ${value}`);
};

async function converge(env: BenchEnv, ns: string, service: Service, operator: OperatorProcess) {
  const projects = await createServiceProjects(service, projectCount, 'wsb');
  log(`creating ${n} folders × ${KEYS} keys in ${projectCount} projects`);
  await createFolders(service, projects, n, concurrency);
  const folders = Array.from({ length: n }, (_, i) => folderOf(projects, i));
  await serviceQuiet(service, 2_000);
  await service.server.resetStats();
  const before = { at: Date.now(), cpu: cpuSnapshot(), requests: await apiServerRequests(env.kc) };
  const sampler = startRssSampler(
    operatorPid(),
    () => operatorMemory(operator),
    () => heapText(operator),
  );
  await createWorkloadSecrets({ env, namespace: ns }, folders, { resyncInterval: '10m', concurrency });
  const readyMs = await waitAllReady(
    env,
    ns,
    { workloadsecrets: n },
    {
      since: before.at,
      timeoutMs: 3_600_000,
      intervalMs: n > 5000 ? 5_000 : 1_000,
      log,
    },
  );
  const stats = await service.server.stats();
  row('resources', `${n} WorkloadSecrets × ${KEYS} keys in ${projectCount} projects (one folder each)`);
  row('apply → all delivered', `${(readyMs / 1000).toFixed(1)} s`);
  row('CPU from apply to all delivered', cpuText(before.cpu, cpuSnapshot(), readyMs));
  row(
    'kube-apiserver requests from apply to all delivered',
    requestsText(before.requests, await apiServerRequests(env.kc)),
  );
  row(
    'service calls to deliver',
    `${stats.requests.total} (${(stats.requests.total / n).toFixed(2)} per WorkloadSecret)`,
  );
  row(
    'operator memory at the largest working set sampled (every 2 s) until all delivered',
    await sampler.stop(),
  );
  // /metrics answers within 5 s or not at all; a busy operator may miss it: say so, go on.
  const metrics = await operator.metrics().catch((error: unknown) => {
    log(
      `cannot read the operator's metrics (${String(error)}); operator log tail:\n${operator.log().slice(-2000)}`,
    );
    return undefined;
  });
  row(
    'operator memory / heap used after delivery',
    `${memoryFiguresText(operatorMemory(operator))} / ${metrics === undefined ? 'no answer from /metrics' : mib(sumMetric(metrics, 'nodejs_heap_size_used_bytes'))}`,
  );
  return { projects, folders, readyMs };
}

/** WorkloadSecrets of a project whose event stream the service refuses; service calls at rest. */
async function withoutEvents(env: BenchEnv, ns: string, service: Service): Promise<void> {
  const quietN = Number(values['quiet-n']);
  const [projectId = ''] = await createServiceProjects(service, 1, 'wsq');
  const held = [];
  for (let i = 0; i < 5; i += 1)
    held.push(await service.client.events.subscribe({ projectId, register: [{ event: 'secret:update' }] }));
  try {
    await createFolders(service, [projectId], quietN, concurrency);
    const folders = Array.from({ length: quietN }, (_, i) => ({ ...folderOf([projectId], i), index: i }));
    await createWorkloadSecrets({ env, namespace: ns }, folders, {
      resyncInterval: values['quiet-resync'],
      concurrency,
    });
    await waitAllReady(
      env,
      ns,
      { workloadsecrets: quietN },
      { since: Date.now(), timeoutMs: 600_000, intervalMs: 1_000, log },
    );
    await sleep(30_000);
    const windowSeconds = 180;
    const { perMinute, routes } = await callsPerMinute(service, windowSeconds);
    row(
      `at rest, events unavailable: service calls per minute (${quietN} WorkloadSecrets, resyncInterval ${values['quiet-resync']})`,
      `${perMinute.toFixed(1)} over ${windowSeconds} s (configured rate ${(quietN * 60_000) / parseSeconds(values['quiet-resync'])}/min; ${routes})`,
    );
  } finally {
    for (const stream of held) stream.close();
  }
}

function parseSeconds(text: string): number {
  const match = /^(\d+)(s|m)$/.exec(text);
  if (!match) throw new Error(`--quiet-resync must be like 60s or 2m, not ${text}`);
  return Number(match[1]) * (match[2] === 'm' ? 60_000 : 1_000);
}

async function main(): Promise<void> {
  const entry = buildOperator(log);
  const env = await startBenchEnv(log);
  const processes: { stop(): Promise<void> }[] = [];
  try {
    const service = await startService(env.dir, 'devserver');
    processes.push(service.server);
    const ns = await env.plane.createNamespace('bench');
    const quietNs = await env.plane.createNamespace('bench-quiet');
    const floorNs = await env.plane.createNamespace('bench-floor');
    const kubeconfigPath = await operatorKubeconfig(env, 'service-account');
    const operator = await startOperator(env, [ns, quietNs], {
      pollInterval: '10m',
      workers,
      entry,
      nodeArgs: values['node-options'].split(' ').filter(Boolean),
      kubeconfigPath,
    });
    processes.push(operator);
    await operator.waitReady();
    await createConnection({ env, namespace: ns }, service);
    await createConnection({ env, namespace: quietNs }, service);
    const cpuStart = { at: Date.now(), cpu: cpuSnapshot() };
    const { folders, readyMs } = await converge(env, ns, service, operator);
    const floorWorkload = {
      count: folders.length,
      create: (at: { env: BenchEnv; namespace: string }) =>
        createWorkloadSecrets(at, folders, { resyncInterval: '10m', concurrency }),
    };
    const floor = await runDeliveryFloor(env, floorNs, floorWorkload, { kubeconfigPath, workers, log });
    row(
      `floor: apply → all delivered (${workers} writers as the operator's workers: Secret create + status patch)`,
      `${(floor.readyMs / 1000).toFixed(1)} s`,
    );
    row('operator / floor (apply → all delivered)', (readyMs / floor.readyMs).toFixed(2));
    const burstFolders = folders
      .filter((f) => f.index % projectCount === 0)
      .slice(0, Number(values['burst-workloads']));
    await createDeployments(
      { env, namespace: ns },
      burstFolders.map((f) => f.index),
    );
    await serviceQuiet(service, 15_000);
    const steady = Number(values['steady-seconds']);
    const rest = await callsPerMinute(service, steady);
    row(
      `at rest with events: service calls per minute (${n} WorkloadSecrets, over ${steady} s)`,
      `${rest.perMinute.toFixed(1)} (${rest.routes}; expected: no read per WorkloadSecret, and folder checks at ${projectCount} streams × 1 environment per resyncInterval 10m = ${(projectCount / 10).toFixed(1)}/min)`,
    );
    const sample = Array.from(
      { length: Math.min(Number(values.samples), n) },
      (_, s) => folders[Math.floor((s * n) / Math.min(Number(values.samples), n))],
    ).filter((f) => f !== undefined);
    row(
      'service edit → target Secret updated, p50 / p99',
      latencyText(await editLatencies({ env, namespace: ns }, service, sample)),
    );
    const restarts = await burstRestarts({ env, namespace: ns }, service, burstFolders, {
      edits: Number(values['burst-edits']),
      settleMs: 20_000,
    });
    row(
      `burst of ${values['burst-edits']} edits to one project (${burstFolders.length} folders, debounce 5s): restarts per affected Deployment`,
      `${restarts.join(', ')} (min ${Math.min(...restarts)}, max ${Math.max(...restarts)}; expected exactly 1)`,
    );
    await withoutEvents(env, quietNs, service);
    row('operator memory at the end of the run', memoryFiguresText(operatorMemory(operator)));
    row('CPU over the whole run', cpuText(cpuStart.cpu, cpuSnapshot(), Date.now() - cpuStart.at));
    row(
      'load average (1, 5, 15 min) at the end',
      loadavg()
        .map((l) => l.toFixed(2))
        .join(', '),
    );
    printTable(`coffer delivery benchmark: N=${n}, ${projectCount} projects, ${workers} workers`, rows);
  } finally {
    for (const p of processes.reverse()) await p.stop().catch(() => undefined);
    await env.stop();
  }
}

async function hostileMain(): Promise<void> {
  const entry = buildOperator(log);
  const env = await startBenchEnv(log);
  const processes: { stop(): Promise<void> }[] = [];
  try {
    const service = await startService(env.dir, 'devserver');
    processes.push(service.server);
    const ns = await env.plane.createNamespace('bench');
    const at = { env, namespace: ns };
    const operator = await startOperator(env, [ns], {
      pollInterval: '10m',
      workers,
      entry,
      nodeArgs: values['node-options'].split(' ').filter(Boolean),
      kubeconfigPath: await operatorKubeconfig(env, 'service-account'),
    });
    processes.push(operator);
    await operator.waitReady();
    await createConnection(at, service);
    const rest = startMemoryPeak(() => operatorMemory(operator));
    await sleep(2_000);
    const atRest = rest.stop();
    const projects = await createServiceProjects(service, projectCount, 'wsh');
    await createFolders(service, projects, n + 1, concurrency);
    const folders = Array.from({ length: n + 1 }, (_, i) => folderOf(projects, i));
    const benign = folders.slice(0, n);
    const hostileFolder = folders[n] as (typeof folders)[number];
    await createTemplatedWorkloadSecrets(at, benign, concurrency);
    await createObject(at, 'WorkloadSecret', 'hostile', {
      ...workloadSecretSpec(hostileFolder, '10m'),
      template: { data: { 'app.conf': '{{ K0 }}' } },
    });
    await waitAllReady(
      env,
      ns,
      { workloadsecrets: n + 1 },
      { since: Date.now(), timeoutMs: 600_000, intervalMs: 1_000, log },
    );
    await serviceQuiet(service, 5_000);
    const samples = Number(values.samples);
    const quiet = startMemoryPeak(() => operatorMemory(operator));
    const before = await latenciesUntil(at, service, benign, { done: () => true, min: samples });
    const quietPeak = quiet.stop();
    let hostileDone = false;
    const during = startMemoryPeak(() => operatorMemory(operator));
    const [seen, meanwhile] = await Promise.all([
      renderHostile(at, Number(values.rounds)).finally(() => (hostileDone = true)),
      latenciesUntil(at, service, benign, { done: () => hostileDone, min: 1 }),
    ]);
    const hostilePeak = during.stop();
    row('resources', `${n} templated WorkloadSecrets × ${KEYS} keys in ${projectCount} projects, 1 hostile`);
    for (const [name, results] of seen) {
      const ms = results.map((r) => r.ms).sort((a, b) => a - b);
      const messages = [
        ...new Set(
          results.map((r) =>
            r.message.replace(/^.*?: template of key "app\.conf"(, line \d+ column \d+)?: /, ''),
          ),
        ),
      ];
      row(
        `hostile "${name}": spec edit → TemplateError (${results.length}×)`,
        `${ms.join(' / ')} ms; ${messages.join('; ')}`,
      );
    }
    row(
      'benign edit → target Secret, p50 / p99 (max), no hostile template',
      `${latencyText(before)} (${Math.max(...before)} ms; ${before.length} edits)`,
    );
    row(
      'benign edit → target Secret, p50 / p99 (max), hostile templates rendering',
      `${latencyText(meanwhile)} (${Math.max(...meanwhile)} ms; ${meanwhile.length} edits)`,
    );
    row('operator memory at rest (before any WorkloadSecret)', memoryText(atRest));
    row('operator memory peak, benign edits only', memoryText(quietPeak));
    row('operator memory peak, hostile templates rendering', memoryText(hostilePeak));
    row('chart memory limit (charts/coffer/values.yaml)', '384 MiB');
    printTable(
      `coffer hostile template benchmark: N=${n}, ${workers} workers, ${values['node-options']}`,
      rows,
    );
  } finally {
    for (const p of processes.reverse()) await p.stop().catch(() => undefined);
    await env.stop();
  }
}

await (values.hostile ? hostileMain() : main());
