/**
 * Set-up of the operator benchmark: a real control plane (etcd + kube-apiserver), `coffer
 * devserver` and `coffer operator` as separate processes, a bootstrapped service with a
 * Connection, and bulk creation of the workload (Secrets, Projects, Identities, SecretBatches).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { PooledKubeConfig } from '../../src/runtime/kube-config.ts';
import { tuningEnv } from '../../src/runtime/process-tuning.ts';
import { apiVersion, findKind, group, version } from '../../src/api/v1alpha1/index.ts';
import { createServiceClient, staticToken, type ServiceClient } from '../../src/client/index.ts';
import { applyObjects } from '../../src/sandbox/control-plane/cluster.ts';
import { startControlPlane, type ControlPlane } from '../../src/sandbox/control-plane/control-plane.ts';
import { LABEL_SOURCE } from '../../src/operator/secret-values.ts';
import { renderChartRbac } from '../../test/support/chart.ts';
import {
  newProcessDir,
  removeProcessDir,
  startDevServerProcess,
  startOperatorProcess,
  type DevServerProcess,
  type OperatorProcess,
} from '../../test/support/processes.ts';
import { pidsOf } from './cpu.ts';
import {
  createCgroup,
  launcher,
  memoryFigures,
  privateNodeBinary,
  type IsolatedCgroup,
  type MemoryFigures,
} from './working-set.ts';

const repoRoot = join(import.meta.dirname, '..', '..');
const crdDir = join(repoRoot, 'crds');

/**
 * The operator's memory tuning as the image, the chart and kustomize deploy it
 * (src/runtime/process-tuning.ts), in the form `startOperator`'s `nodeArgs` take: the V8 flags,
 * then `GLIBC_TUNABLES=<tunables>` for the environment. The benchmarks measure by default exactly
 * what users run.
 */
export function runtimeTuningOptions(): string {
  const env = tuningEnv();
  return `${env.NODE_OPTIONS} GLIBC_TUNABLES=${env.GLIBC_TUNABLES}`;
}

/**
 * Builds the operator (`npm run build`) and returns the bundled CLI entry: the benchmark measures
 * what a deployment runs (the container image runs the bundle in `dist`), not the TypeScript
 * source, whose on-the-fly type stripping and ~1,000 module files cost startup time and memory.
 */
export function buildOperator(log: (line: string) => void): string {
  log('building the operator (npm run build)');
  execFileSync(process.execPath, [join(repoRoot, 'scripts', 'build.ts')], {
    cwd: repoRoot,
    stdio: 'inherit',
  });
  return join(repoRoot, 'dist', 'cli', 'main.mjs');
}

/** A bootstrapped devserver process with an authenticated client. */
export interface Service {
  readonly server: DevServerProcess;
  readonly client: ServiceClient;
  readonly token: string;
  readonly organizationId: string;
  /** The bootstrap identity (an org admin) the token belongs to. */
  readonly identityId: string;
}

/** Everything the benchmark runs on. */
export interface BenchEnv {
  readonly plane: ControlPlane;
  readonly kc: KubeConfig;
  readonly core: CoreV1Api;
  readonly custom: CustomObjectsApi;
  readonly dir: string;
  /** A private copy of the node binary the operator runs (`privateNodeBinary`). */
  readonly node: string;
  /** The memory cgroups the operators ran in; removed by `stop()`. */
  readonly cgroups: IsolatedCgroup[];
  stop(): Promise<void>;
}

/** A namespace of the benchmark's control plane. */
export interface At {
  readonly env: BenchEnv;
  readonly namespace: string;
}

/**
 * Starts the control plane (`apiServerArgs` appended to kube-apiserver's flags, e.g.
 * `--profiling=true` to read `/debug/pprof`), installs the CRDs; `stop()` ends every process
 * started here.
 */
export async function startBenchEnv(
  log: (line: string) => void,
  apiServerArgs: readonly string[] = [],
): Promise<BenchEnv> {
  const plane = await startControlPlane({ log, dirPrefix: 'coffer-bench-', apiServerArgs });
  await plane.installCRDs(readdirSync(crdDir).map((file) => join(crdDir, file)));
  // One connection pool for the benchmark's own thousands of writes (see PooledKubeConfig).
  const kc = new PooledKubeConfig();
  kc.loadFromFile(plane.kubeconfigPath);
  const dir = newProcessDir('coffer-bench-processes-');
  const cgroups: IsolatedCgroup[] = [];
  return {
    plane,
    kc,
    core: kc.makeApiClient(CoreV1Api),
    custom: kc.makeApiClient(CustomObjectsApi),
    dir,
    node: privateNodeBinary(dir),
    cgroups,
    async stop() {
      await kc.close();
      await plane.stop();
      for (const cgroup of cgroups) cgroup.remove();
      removeProcessDir(dir);
    },
  };
}

/** Starts a devserver process (optionally rate-limited) and bootstraps it. */
export async function startService(dir: string, name: string, rateLimit?: string): Promise<Service> {
  const server = await startDevServerProcess({ dir, name, ...(rateLimit ? { rateLimit } : {}) });
  const anonymous = createServiceClient({ baseUrl: server.url });
  try {
    const result = await anonymous.admin.bootstrap({
      email: 'bench@example.com',
      password: `bench-${Date.now()}`,
      organization: 'Bench',
    });
    const token = result.identity.credentials.token;
    const client = createServiceClient({ baseUrl: server.url, auth: staticToken(token) });
    return { server, client, token, organizationId: result.organization.id, identityId: result.identity.id };
  } finally {
    await anonymous.close();
  }
}

/** How the benchmark's operator authenticates to kube-apiserver. */
export type OperatorIdentity = 'service-account' | 'admin-certificate';

const operatorNamespace = 'coffer-system';

/**
 * A kubeconfig file for the operator. `service-account`: as deployed by the chart — the chart's
 * ServiceAccount, ClusterRole and bindings are applied and the operator presents a token from the
 * TokenRequest API (valid two hours), so its RBAC is exercised under load and kube-apiserver
 * authenticates it as in a cluster (a cached token lookup, not a client-certificate chain
 * verification per request). `admin-certificate`: the control plane's admin client certificate.
 */
export async function operatorKubeconfig(env: BenchEnv, identity: OperatorIdentity): Promise<string> {
  if (identity === 'admin-certificate') return env.plane.kubeconfigPath;
  await env.plane.createNamespace(operatorNamespace);
  const rbac = renderChartRbac('coffer', operatorNamespace);
  await applyObjects(env.kc, rbac, 'coffer-bench');
  const account = rbac.find((obj) => obj.kind === 'ServiceAccount')?.metadata?.name;
  if (!account) throw new Error('cannot run the operator as its ServiceAccount: the chart rendered none');
  const kubeConfig = await env.plane.clientForServiceAccount(operatorNamespace, account, 7_200);
  const path = join(env.dir, 'operator.kubeconfig');
  writeFileSync(path, kubeConfig.exportConfig(), { mode: 0o600 });
  return path;
}

const operatorCgroups = new WeakMap<OperatorProcess, IsolatedCgroup>();

/**
 * The memory of the (one) running operator as the kubelet sees it: the working set of the
 * memory cgroup it runs in, its anonymous memory and RSS (`working-set.ts`).
 */
export function operatorMemory(operator: OperatorProcess): MemoryFigures {
  const [pid] = pidsOf('operator');
  if (pid === undefined) throw new Error('no operator process found');
  return memoryFigures(pid, operatorCgroups.get(operator));
}

/**
 * Starts `coffer operator` watching `namespaces` with the given poll interval, in a memory
 * cgroup of its own (`operatorMemory`), running the environment's private node binary. Words of
 * `nodeArgs` of the form `NAME=value` (e.g. `GLIBC_TUNABLES=…`) go into the operator's
 * environment, the others before its entry.
 */
export async function startOperator(
  env: BenchEnv,
  namespaces: readonly string[],
  options: {
    pollInterval: string;
    workers: number;
    entry: string;
    nodeArgs: readonly string[];
    kubeconfigPath: string;
  },
): Promise<OperatorProcess> {
  const isEnv = (word: string) => /^[A-Z_][A-Z0-9_]*=/.test(word);
  const saved = { ...process.env };
  for (const word of options.nodeArgs.filter(isEnv)) {
    const [name = '', ...value] = word.split('=');
    process.env[name] = value.join('=');
  }
  const cgroup = createCgroup('coffer-bench-operator', (line) => console.log(line));
  if (cgroup) env.cgroups.push(cgroup);
  try {
    const operator = await startOperatorProcess({
      launcher: launcher(cgroup, env.node),
      entry: options.entry,
      nodeArgs: options.nodeArgs.filter((word) => !isEnv(word)),
      kubeconfigPath: options.kubeconfigPath,
      dir: env.dir,
      name: 'operator',
      namespaces,
      extraArgs: [
        `--default-poll-interval=${options.pollInterval}`,
        `--max-concurrent-reconciles=${options.workers}`,
      ],
    });
    if (cgroup) operatorCgroups.set(operator, cgroup);
    return operator;
  } finally {
    process.env = saved;
  }
}

/** Creates the token Secret and the Connection `coffer` to `service` in `namespace`. */
export async function createConnection(
  { env, namespace }: At,
  service: Service,
  requestsPerMinute?: number,
): Promise<void> {
  await env.core.createNamespacedSecret({
    namespace,
    body: { metadata: { name: 'coffer-token' }, stringData: { token: service.token } },
  });
  await createObject({ env, namespace }, 'Connection', 'coffer', {
    url: service.server.url,
    auth: { token: { secretRef: { name: 'coffer-token', key: 'token' } } },
    ...(requestsPerMinute ? { requestsPerMinute } : {}),
  });
}

/** Creates a coffer.dev object of `kind`. */
export function createObject(
  { env, namespace }: At,
  kind: string,
  name: string,
  spec: Record<string, unknown>,
): Promise<unknown> {
  const plural = findKind(kind)?.plural ?? '';
  const body = { apiVersion, kind, metadata: { name }, spec };
  return env.custom.createNamespacedCustomObject({ group, version, plural, namespace, body });
}

/** The benchmark's workload: counts per kind, derived from N. */
export interface Workload {
  readonly projects: number;
  readonly identities: number;
  readonly batches: number;
  readonly keysPerBatch: number;
  /** The batches are spread over the first this-many Projects. */
  readonly batchProjects: number;
}

/**
 * 80% SecretBatches (10 keys each), 10% Projects, 10% Identities (at least one Project); the
 * batches go into the first `batchProjects` Projects.
 */
export function workloadFor(n: number, batchProjects: number): Workload {
  const projects = Math.max(1, Math.round(n * 0.1));
  const identities = Math.round(n * 0.1);
  const batches = Math.max(0, n - projects - identities);
  return {
    projects,
    identities,
    batches,
    keysPerBatch: 10,
    batchProjects: Math.min(projects, batchProjects),
  };
}

/** Runs `task` for 0..count-1 with at most `concurrency` in flight. */
export async function forEachLimited(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/** A random value of the kind a SecretBatch pushes (never printed). */
export function randomValue(): string {
  return `v-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
}

/** Object names and service names of one set of resources; sets in one organization differ by prefix. */
export interface Naming {
  /** Prefix of slugs, identity names and folder paths (unique per namespace in one organization). */
  readonly prefix: string;
  /** `spec.pollInterval` of the SecretBatches (default: the operator's `--default-poll-interval`). */
  readonly pollInterval?: string;
}

/**
 * Secrets `src-<i>` with `keys` random values `K0..`, labelled `coffer.dev/source` as the
 * SecretBatch docs ask of a Secret created before its SecretBatch (its values are kept from the
 * watch, so no SecretBatch reads its Secret from the API server).
 */
export function createSources({ env, namespace }: At, count: number, keys: number, concurrency = 32) {
  return forEachLimited(count, concurrency, (i) => {
    const data = Object.fromEntries(Array.from({ length: keys }, (_, k) => [`K${k}`, randomValue()]));
    return env.core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: `src-${i}`, labels: { [LABEL_SOURCE]: 'true' } }, stringData: data },
    });
  });
}

/** Projects `p-<i>` (slug `<prefix>p-<i>`) with one environment, dev. */
export function createProjects(at: At, count: number, naming: Naming, concurrency = 32) {
  return forEachLimited(count, concurrency, (i) =>
    createObject(at, 'Project', `p-${i}`, {
      connectionRef: { name: 'coffer' },
      name: `Bench ${naming.prefix}${i}`,
      slug: `${naming.prefix}p-${i}`,
      deletionPolicy: 'Delete',
      environments: [{ name: 'Development', slug: 'dev' }],
    }),
  );
}

/** SecretBatches `b-<i>`: every key of Secret `src-<i>` into folder `/<prefix>b<i>` of project i mod P. */
export function createBatches(
  at: At,
  counts: { batches: number; projects: number },
  naming: Naming,
  concurrency = 32,
) {
  return forEachLimited(counts.batches, concurrency, (i) =>
    createObject(at, 'SecretBatch', `b-${i}`, {
      connectionRef: { name: 'coffer' },
      projectRef: { name: `p-${i % counts.projects}` },
      environment: 'dev',
      secretPath: batchPath(i, naming),
      fromSecret: { name: `src-${i}` },
      ...(naming.pollInterval ? { pollInterval: naming.pollInterval } : {}),
    }),
  );
}

/** The folder SecretBatch `b-<i>` writes to. */
export function batchPath(i: number, naming: Naming): string {
  return `/${naming.prefix.replaceAll('-', '_')}b${i}`;
}

/** The whole workload: Secrets, then Projects, Identities and SecretBatches, as fast as allowed. */
export async function applyWorkload(
  at: At,
  w: Workload,
  options: Naming & { concurrency: number },
): Promise<void> {
  await createSources(at, w.batches, w.keysPerBatch, options.concurrency);
  await createProjects(at, w.projects, options, options.concurrency);
  await forEachLimited(w.identities, options.concurrency, (i) =>
    createObject(at, 'Identity', `i-${i}`, {
      connectionRef: { name: 'coffer' },
      name: `${options.prefix}i-${i}`,
    }),
  );
  await createBatches(at, { batches: w.batches, projects: w.batchProjects }, options, options.concurrency);
}

/** Counts the objects of `plural` in `namespace` that are Ready for their current generation. */
export async function countReady(env: BenchEnv, namespace: string, plural: string): Promise<number> {
  const list = (await env.custom.listNamespacedCustomObject({ group, version, plural, namespace })) as {
    items: {
      metadata: { generation?: number };
      status?: { conditions?: { type: string; status: string; observedGeneration?: number }[] };
    }[];
  };
  return list.items.filter((o) =>
    o.status?.conditions?.some(
      (c) => c.type === 'Ready' && c.status === 'True' && c.observedGeneration === o.metadata.generation,
    ),
  ).length;
}
