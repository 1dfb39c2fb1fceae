/**
 * Operator benchmark (not a test): a real control plane, `coffer devserver` and `coffer operator`
 * as separate processes; N resources (80% SecretBatches with 10 keys each, 10% Projects, 10%
 * Identities) applied at once. Prints: time from apply to all Ready, reconciles per second (from
 * the operator's /metrics), service calls per resource (devserver stats), operator memory and heap
 * at steady state, steady-state writes and reads per resource per poll interval, change-to-service
 * latency (a Secret edit; a value changed in the service and restored through the project event
 * stream, and without events, by the poll), and behaviour under an enforced budget (a devserver
 * limiting secrets to 120/min vs a Connection with a lower requestsPerMinute).
 *
 *   npm run bench -- [--n 1000] [--steady-seconds 60] [--poll-interval 60s] [--samples 50]
 *                    [--no-events-poll-interval 60s] [--node-options=<options of the operator's node>]
 *                    [--workers 4] [--concurrency 32] [--budget-batches 20] [--budget-rpm 100]
 *                    [--batch-projects 8] [--apiserver-arg=--profiling=true ...] [--converge-only]
 *                    [--operator-after-apply] [--operator-identity service-account|admin-certificate]
 *                    [--scenario mixed|push] [--floor] [--runs 3] [--floor-workers N] [--heap-snapshots]
 *
 * `--scenario push`: N SecretBatches × 10 keys (N Kubernetes Secrets pushed into the service)
 * instead of the mixed workload; prints the operator's memory peak, CPU and service requests by
 * route, and stops after convergence. `--floor`: the same workload is also converged with
 * `floor-controller.ts` (as `npm run bench:floor`) on the same control plane, with as many writers
 * as the operator has workers on the kinds involved, `--runs` times each (default 3) in pairs of
 * alternating order (`floor-pairs.ts`); prints each run's ratio, the median and its spread, and
 * kube-apiserver's requests per resource of both side by side (`request-table.ts`).
 * `--heap-snapshots`: heap snapshots of the operator at start and after convergence, summarised
 * by object type and code by script (`heap.ts`; the files are kept in $TMPDIR/coffer-heap-snapshots).
 *
 * Memory is printed as the kubelet sees it (`working-set.ts`): the operator runs in a memory
 * cgroup of its own and its working set is the cgroup's usage minus its inactive file pages
 * (v1: `memory.usage_in_bytes − total_inactive_file`; v2: `memory.current − inactive_file`),
 * beside its anonymous memory (`RssAnon`) and RSS; the peak is the largest working set sampled
 * every 2 s, printed with V8's heap used / committed in all and by space. Where no memory cgroup can be created the working set is the process's
 * `RssAnon + RssShmem + RssFile` (an upper bound) and says so.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { tryParseDuration } from '../../src/runtime/duration.ts';
import { parseCommandLine } from '../command-line.ts';
import { sumMetric, type OperatorProcess } from '../../test/support/processes.ts';
import { apiServerRequests, requestDelta, requestsText } from './apiserver-requests.ts';
import { clearNamespace } from './clear-namespace.ts';
import { cpuSnapshot, cpuText, peakRssBytes } from './cpu.ts';
import { runFloor } from './floor-run.ts';
import { pairRows, requestsOfPairs, runPairs, type Convergence } from './floor-pairs.ts';
import { beyondFloorMargin, beyondFloorText, compareRequests, requestTableLines } from './request-table.ts';
import { memoryFiguresText, memoryHelp } from './working-set.ts';
import { heapSnapshotNodeArgs } from './heap.ts';
import { logHeapSnapshot, peakSampler } from './operator-observe.ts';
import { measureBudget, measureWithoutEvents } from './operator-phases.ts';
import {
  driftRestoreLatencies,
  latencyText,
  mib,
  printTable,
  secretEditLatencies,
  waitAllReady,
  type BatchTarget,
} from './operator-measure.ts';
import {
  applyWorkload,
  buildOperator,
  createConnection,
  startBenchEnv,
  operatorKubeconfig,
  startOperator,
  startService,
  workloadFor,
  batchPath,
  type At,
  type BenchEnv,
  type OperatorIdentity,
  type Service,
  type Workload,
  runtimeTuningOptions,
  operatorMemory,
} from './operator-setup.ts';

const naming = { prefix: 'bench-' };

const usage = `usage: npm run bench -- [--n 1000] [--steady-seconds 60] [--poll-interval 60s] [--samples 50]
                        [--no-events-poll-interval 60s] [--node-options=<options of the operator's node>]
                        [--workers 4] [--concurrency 32] [--budget-batches 20] [--budget-rpm 100]
                        [--batch-projects 8] [--apiserver-arg=--profiling=true ...] [--converge-only]
                        [--operator-after-apply] [--operator-identity service-account|admin-certificate]
                        [--scenario mixed|push] [--floor] [--runs 3] [--floor-workers N] [--heap-snapshots]

Operator benchmark (a real control plane, devserver and operator as separate processes; N
resources applied at once); prints a table of the measurements.

--floor           also converge the workload with the floor controller (a finalizer and a status
                  patch per resource), in fresh namespaces of the same control plane
--runs N          with --floor: N runs of each (default 3), in pairs of alternating order, each in
                  namespaces emptied afterwards; prints every run's operator / floor ratio, the
                  median and its min–max spread, and kube-apiserver's requests per created
                  resource of both side by side, with those of the operator beyond the floor's
--samples N       Secrets edited (and values restored) for the change latencies (default 50)
--converge-only   stop once the workload is Ready (after the runs, with --floor)

${memoryHelp}`;

const { values } = parseCommandLine(usage, () =>
  parseArgs({
    options: {
      n: { type: 'string', default: '1000' },
      'steady-seconds': { type: 'string', default: '60' },
      // The operator's --default-poll-interval (its own default is 10m).
      'poll-interval': { type: 'string', default: '60s' },
      // spec.pollInterval of the batches of the no-events phase, whose restore waits for the poll.
      'no-events-poll-interval': { type: 'string', default: '60s' },
      samples: { type: 'string', default: '50' },
      workers: { type: 'string', default: '4' },
      // Node.js options (and `NAME=value` environment) of the operator process; the default is what
      // the image and the Helm chart run it with (`runtimeTuningOptions`: src/runtime/process-tuning.ts).
      'node-options': { type: 'string', default: runtimeTuningOptions() },
      concurrency: { type: 'string', default: '32' },
      'budget-batches': { type: 'string', default: '20' },
      'budget-rpm': { type: 'string', default: '100' },
      // Each Project with SecretBatches holds one event stream; the service client's connection
      // pool (16) must not be filled by streams (they have a pool of their own: src/client/transport.ts).
      'batch-projects': { type: 'string', default: '8' },
      // Extra kube-apiserver flags (repeatable), e.g. --apiserver-arg=--profiling=true to take a
      // CPU profile from /debug/pprof/profile while the operator converges.
      'apiserver-arg': { type: 'string', multiple: true, default: [] },
      // Stop after "apply → all Ready" (quick runs while tuning convergence).
      'converge-only': { type: 'boolean', default: false },
      // Start the operator only once the whole workload is applied; time from its start to all
      // Ready (the operator's own throughput, not sharing the machine with the apply).
      'operator-after-apply': { type: 'boolean', default: false },
      // service-account: the chart's ServiceAccount and RBAC, as deployed; admin-certificate: the
      // control plane's admin client certificate.
      'operator-identity': { type: 'string', default: 'service-account' },
      // mixed: 80% SecretBatches, 10% Projects, 10% Identities; push: N SecretBatches (10 keys each).
      scenario: { type: 'string', default: 'mixed' },
      // Also converge the same workload with the floor controller, in the same invocation.
      floor: { type: 'boolean', default: false },
      // With --floor: runs of each side, in pairs of alternating order (default 3).
      runs: { type: 'string' },
      // Writers of the floor controller (default: --workers × the kinds the workload has).
      'floor-workers': { type: 'string' },
      // Heap snapshots of the operator at start and after convergence, summarised by type.
      'heap-snapshots': { type: 'boolean', default: false },
    },
  }),
);
const n = Number(values.n);
const steadySeconds = Number(values['steady-seconds']);
const pollInterval = values['poll-interval'];
const pollMs = tryParseDuration(pollInterval) ?? 60_000;
const quietPollMs = tryParseDuration(values['no-events-poll-interval']) ?? 60_000;
const samples = Number(values.samples);
const workers = Number(values.workers);
const operatorIdentity = ((value: string): OperatorIdentity => {
  if (value === 'service-account' || value === 'admin-certificate') return value;
  throw new Error(`--operator-identity must be service-account or admin-certificate, not ${value}`);
})(values['operator-identity']);
const runs = ((value: string | undefined): number => {
  if (value === undefined) return 1;
  if (!values.floor) throw new Error('--runs needs --floor: it repeats the comparison with the floor');
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1)
    throw new Error(`--runs must be a positive integer, not ${value}`);
  return count;
})(values.runs ?? (values.floor ? '3' : undefined));
const scenario = ((value: string): 'mixed' | 'push' => {
  if (value === 'mixed' || value === 'push') return value;
  throw new Error(`--scenario must be mixed or push, not ${value}`);
})(values.scenario);
const log = (line: string) => console.log(line);
const rows: [string, string][] = [];
type Row = (label: string, value: string) => void;
/** A row of the result table (also logged). */
const row: Row = (label, value) => {
  rows.push([label, value]);
  log(`  ${label}: ${value}`);
};
/** A figure of a run other than the one the table reports: logged only. */
const logRow: Row = (label, value) => log(`  ${label}: ${value}`);
const rowOf = (kept: boolean): Row => (kept ? row : logRow);

const reconciles = async (op: OperatorProcess) => sumMetric(await op.metrics(), 'coffer_reconcile_total');

/** Counters read at the start and the end of a measured phase. */
async function phaseStart(env: BenchEnv, operator: OperatorProcess | undefined) {
  return {
    at: Date.now(),
    reconciles: operator ? await reconciles(operator) : 0,
    requests: await apiServerRequests(env.kc),
    cpu: cpuSnapshot(),
  };
}

/** The workload of the chosen scenario. */
function scenarioWorkload(): Workload {
  const batchProjects = Number(values['batch-projects']);
  if (scenario === 'mixed') return workloadFor(n, batchProjects);
  return { projects: batchProjects, identities: 0, batches: n, keysPerBatch: 10, batchProjects };
}

/** `--heap-snapshots`: a heap snapshot of the running operator, summarised into the log. */
async function heapSnapshot(env: BenchEnv, when: string): Promise<void> {
  if (values['heap-snapshots']) await logHeapSnapshot(env, when, log);
}

/** One floor run (`floor-run.ts`) in namespace `bench-floor-<run>`, emptied afterwards. */
async function floorSide(
  env: BenchEnv,
  w: Workload,
  run: { run: number; kept: boolean; kubeconfigPath: string },
): Promise<Convergence> {
  const kinds = [w.projects, w.identities, w.batches].filter((count) => count > 0).length;
  const writers = Number(values['floor-workers'] ?? workers * kinds);
  const namespace = await env.plane.createNamespace(`bench-floor-${run.run}`);
  log(`floor: the same workload in ${namespace}, ${writers} writers`);
  try {
    const floor = await runFloor(env, namespace, w, {
      workers: writers,
      concurrency: Number(values.concurrency),
      prefix: 'floor-',
      kubeconfigPath: run.kubeconfigPath,
      log,
    });
    const rowFor = rowOf(run.kept);
    rowFor(
      `floor: apply → all Ready (${writers} writers, finalizer + status only)`,
      `${(floor.readyMs / 1000).toFixed(1)} s`,
    );
    rowFor('floor: CPU from apply to all Ready', floor.cpu);
    return { readyMs: floor.readyMs, requests: floor.requestCounts };
  } finally {
    await clearNamespace(env, namespace);
  }
}

/**
 * An operator run other than the kept one: namespace `bench-run-<run>`, a devserver and an
 * operator of its own, both stopped and the namespace emptied once it converged.
 */
async function operatorSide(
  env: BenchEnv,
  run: number,
  operatorFor: (namespaces: string[], kept: boolean) => Promise<OperatorProcess>,
): Promise<Convergence> {
  const namespace = await env.plane.createNamespace(`bench-run-${run}`);
  const service = await startService(env.dir, `devserver-run-${run}`);
  let operator: OperatorProcess | undefined;
  try {
    await createConnection({ env, namespace }, service);
    const start = async () => (operator = await operatorFor([namespace], false));
    return await converge({ env, namespace }, service, start, false);
  } finally {
    await operator?.stop();
    await service.server.stop();
    await clearNamespace(env, namespace);
  }
}

/** `--floor`: `runs` pairs of operator and floor runs; the last operator run is `keptRun`. */
async function floorPairs(
  env: BenchEnv,
  kubeconfigPath: string,
  keptRun: () => Promise<Convergence>,
  operatorFor: (namespaces: string[], kept: boolean) => Promise<OperatorProcess>,
): Promise<void> {
  const w = scenarioWorkload();
  const pairs = await runPairs(
    runs,
    {
      operator: (run, last) => (last ? keptRun() : operatorSide(env, run, operatorFor)),
      floor: (run) => floorSide(env, w, { run, kept: run === runs, kubeconfigPath }),
    },
    log,
  );
  for (const [label, value] of pairRows(pairs, 1.1)) row(label, value);
  const requests = requestsOfPairs(pairs);
  const compared = compareRequests(requests.operator, requests.floor, n * runs);
  log(`\nkube-apiserver requests per created resource (${n} resources × ${runs} runs), apply → all Ready:`);
  for (const line of requestTableLines(compared)) log(`  ${line}`);
  row(
    `operator requests beyond the floor's (> ${beyondFloorMargin} per resource)`,
    beyondFloorText(compared),
  );
}

/**
 * Applies the workload and waits until all of it is Ready. With `--operator-after-apply` the
 * operator is started only once everything is applied, and the time is measured from its start:
 * what the operator takes on its own, without sharing the machine with the apply. The figures of
 * the `kept` run go into the result table, those of the others are only logged.
 */
async function converge(
  { env, namespace: ns }: At,
  service: Service,
  operatorFor: () => Promise<OperatorProcess>,
  kept: boolean,
): Promise<Convergence & { operator: OperatorProcess }> {
  const afterApply = values['operator-after-apply'];
  const rowFor = rowOf(kept);
  const w = scenarioWorkload();
  log(
    `applying ${n} resources: ${w.batches} SecretBatches (${w.keysPerBatch} keys) in ${w.batchProjects} of ` +
      `${w.projects} Projects, ${w.identities} Identities`,
  );
  await service.server.resetStats();
  let operator = afterApply ? undefined : await operatorFor();
  let phase = await phaseStart(env, operator);
  let sampler = operator ? peakSampler(operator) : undefined;
  await applyWorkload({ env, namespace: ns }, w, { ...naming, concurrency: Number(values.concurrency) });
  const applyMs = Date.now() - phase.at;
  rowFor(
    'resources (values pushed)',
    `${n}: ${w.projects} Projects, ${w.identities} Identities, ${w.batches} SecretBatches × ${w.keysPerBatch} keys ` +
      `(${w.batches * w.keysPerBatch} values, in ${w.batchProjects} Projects)`,
  );
  rowFor('apply (create calls) took', `${(applyMs / 1000).toFixed(1)} s`);
  if (!operator) {
    rowFor('CPU of the apply alone (share of one core)', cpuText(phase.cpu, cpuSnapshot(), applyMs));
    const at = Date.now();
    operator = await operatorFor();
    phase = { ...(await phaseStart(env, undefined)), at };
    sampler = peakSampler(operator);
  }
  const expected = { projects: w.projects, identities: w.identities, secretbatches: w.batches };
  const readyMs = await waitAllReady(env, ns, expected, {
    since: phase.at,
    timeoutMs: 3_600_000,
    intervalMs: n > 5000 ? 5_000 : 1_000,
    log,
  });
  const cpuAfter = cpuSnapshot();
  const requestsAfter = await apiServerRequests(env.kc);
  const stats = await service.server.stats();
  const done = (await reconciles(operator)) - phase.reconciles;
  const window = afterApply ? 'operator start' : 'apply';
  rowFor(`${window} → all Ready`, `${(readyMs / 1000).toFixed(1)} s`);
  rowFor(`CPU from ${window} to all Ready (share of one core)`, cpuText(phase.cpu, cpuAfter, readyMs));
  rowFor(`kube-apiserver requests from ${window} to all Ready`, requestsText(phase.requests, requestsAfter));
  rowFor('reconciles per second', `${(done / (readyMs / 1000)).toFixed(0)} (${done} reconciles)`);
  rowFor(
    'service calls per resource',
    `${(stats.requests.total / n).toFixed(2)} (${stats.requests.total} calls, ${stats.writes.total} writes)`,
  );
  rowFor('operator RSS peak (VmHWM) so far', mib(peakRssBytes('operator')));
  rowFor(
    'operator memory at the largest working set sampled (every 2 s) until all Ready',
    (await sampler?.stop()) ?? '',
  );
  if (scenario === 'push') {
    const routes = Object.entries(stats.requests.byRoute).sort((a, b) => b[1] - a[1]);
    for (const [route, count] of routes)
      rowFor(
        `  service ${route}`,
        `${count} (${(count / Math.max(1, w.batches)).toFixed(2)} per SecretBatch)`,
      );
  }
  return { operator, readyMs, requests: requestDelta(phase.requests, requestsAfter) };
}

async function steadyState(service: Service, operator: OperatorProcess): Promise<void> {
  await sleep(10_000);
  await service.server.resetStats();
  const before = await reconciles(operator);
  await sleep(steadySeconds * 1000);
  const stats = await service.server.stats();
  const gets = stats.requests.byMethod['GET'] ?? 0;
  const intervals = (steadySeconds * 1000) / pollMs;
  row(`steady state over ${steadySeconds} s: service writes`, `${stats.writes.total} (target 0)`);
  row(
    `steady state: reads per resource per poll (${pollInterval})`,
    `${(gets / n / intervals).toFixed(2)} (${gets} GETs, ${(await reconciles(operator)) - before} reconciles)`,
  );
  const metrics = await operator.metrics();
  row('operator memory at steady state', memoryFiguresText(operatorMemory(operator)));
  row(
    'operator heap used / total, external at steady state',
    `${mib(sumMetric(metrics, 'nodejs_heap_size_used_bytes'))} / ${mib(sumMetric(metrics, 'nodejs_heap_size_total_bytes'))}, ` +
      mib(sumMetric(metrics, 'nodejs_external_memory_bytes')),
  );
}

async function batchTargets(
  env: BenchEnv,
  ns: string,
  batches: number,
  projects: number,
): Promise<BatchTarget[]> {
  const count = Math.min(samples, batches);
  const targets: BatchTarget[] = [];
  for (let s = 0; s < count; s++) {
    const index = Math.floor((s * batches) / count);
    const project = (await env.custom.getNamespacedCustomObject({
      group: 'coffer.dev',
      version: 'v1alpha1',
      plural: 'projects',
      namespace: ns,
      name: `p-${index % projects}`,
    })) as { status?: { id?: string } };
    targets.push({ index, projectId: project.status?.id ?? '', secretPath: batchPath(index, naming) });
  }
  return targets;
}

async function latencies(env: BenchEnv, ns: string, service: Service, targets: BatchTarget[]): Promise<void> {
  row(
    'Secret edit → service, p50 / p99 (watch events)',
    latencyText(await secretEditLatencies({ env, namespace: ns }, service, targets)),
  );
  row(
    'service change → restored, p50 / p99 (project events)',
    latencyText(await driftRestoreLatencies({ env, namespace: ns }, service, targets)),
  );
}

async function main(): Promise<void> {
  const entry = buildOperator(log);
  const env = await startBenchEnv(log, values['apiserver-arg']);
  const processes: { stop(): Promise<void> }[] = [];
  try {
    const service = await startService(env.dir, 'devserver');
    processes.push(service.server);
    const [ns, quietNs, budgetNs] = [
      await env.plane.createNamespace('bench'),
      await env.plane.createNamespace('bench-no-events'),
      await env.plane.createNamespace('bench-budget'),
    ];
    const kubeconfigPath = await operatorKubeconfig(env, operatorIdentity);
    const operatorFor = async (namespaces: string[], kept: boolean) => {
      const started = await startOperator(env, namespaces, {
        pollInterval,
        workers,
        entry,
        nodeArgs: [
          ...values['node-options'].split(' ').filter(Boolean),
          ...(values['heap-snapshots'] ? heapSnapshotNodeArgs(env.dir) : []),
        ],
        kubeconfigPath,
      });
      if (kept) processes.push(started);
      await started.waitReady();
      const idle = await started.metrics();
      rowOf(kept)(
        values['operator-after-apply']
          ? 'operator memory / heap used once its caches synced'
          : 'operator memory / heap used at start (no resources)',
        `${memoryFiguresText(operatorMemory(started))} / ${mib(sumMetric(idle, 'nodejs_heap_size_used_bytes'))}`,
      );
      if (kept) await heapSnapshot(env, 'at start');
      return started;
    };
    await createConnection({ env, namespace: ns }, service);
    const kept: { operator?: OperatorProcess } = {};
    const keptRun = async () => {
      const start = () => operatorFor([ns, quietNs, budgetNs], true);
      const run = await converge({ env, namespace: ns }, service, start, true);
      kept.operator = run.operator;
      await heapSnapshot(env, 'after convergence');
      return run;
    };
    if (values.floor) await floorPairs(env, kubeconfigPath, keptRun, operatorFor);
    else await keptRun();
    const operator = kept.operator;
    if (!operator) throw new Error('the operator run kept for the later phases did not run');
    const w = scenarioWorkload();
    if (values['converge-only'] || scenario === 'push') {
      const title = `coffer operator benchmark: N=${n} (${scenario}), ${workers} workers per kind (convergence only)`;
      printTable(title, rows);
      return;
    }
    await steadyState(service, operator);
    await latencies(env, ns, service, await batchTargets(env, ns, w.batches, w.batchProjects));
    for (const [label, value] of await measureWithoutEvents(env, quietNs, service, {
      samples: Math.min(samples, 10),
      pollMs: quietPollMs,
    }))
      row(label, value);
    const budget = await measureBudget(env, budgetNs, {
      batches: Number(values['budget-batches']),
      requestsPerMinute: Number(values['budget-rpm']),
    });
    processes.push(budget.server);
    for (const [label, value] of budget.rows) row(label, value);
    printTable(`coffer operator benchmark: N=${n}, poll ${pollInterval}, ${workers} workers per kind`, rows);
  } finally {
    for (const p of processes.reverse()) await p.stop().catch(() => undefined);
    await env.stop();
  }
}

await main();
