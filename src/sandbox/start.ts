/**
 * `startSandbox`: everything `coffer sandbox` runs, in-process and without the terminal parts, so
 * tests drive it the same way. In order: a cluster (a local control plane, or `kubeconfig`); the
 * CRDs, the namespace, a devserver and what the DynamicSecret sample issues leases from (a private
 * PostgreSQL when installed, see `dynamic-secret-sample.ts`), in parallel; the Bootstrap with its
 * password Secret and the samples; then the operator, which finds them all at its first list.
 * Whatever was started is stopped again when a later step fails.
 */
import type { StdioOptions } from 'node:child_process';
import {
  chmodSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  type WriteStream,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { buildAllCrds } from '../api/crd/build.ts';
import { allKinds } from '../api/v1alpha1/index.ts';
import type { KindController } from '../controllers/kind-controller.ts';
import type { StartOperatorOptions } from '../operator/start.ts';
import { readExternalIds, restoreBootstrapOutput, withExternalIds } from './data-dir.ts';
import { existingCluster, localCluster, type SandboxCluster } from './cluster-source.ts';
import { applyObjects, installCrds, statusCodeOf } from './control-plane/cluster.ts';
import { blockedResources, resourceKey } from './blocked.ts';
import {
  describeBackend,
  startDynamicSecretBackend,
  type DynamicSecretBackend,
  type DynamicSecretProvider,
} from './dynamic-secret-sample.ts';
import { retireForReuse } from './dynamic-secret-reuse.ts';
import { onProcessExit } from './control-plane/process.ts';
import { planSamples, resourceOf, type SamplePlan } from './samples.ts';
import { runCleanups, Sandbox, type Cleanup, type Phases } from './sandbox.ts';

/** Field manager of everything the sandbox applies. */
export const SANDBOX_FIELD_MANAGER = 'coffer-sandbox';

/** Options of {@link startSandbox}; all optional. */
export interface SandboxOptions {
  /** Use this cluster instead of starting a local control plane. */
  readonly kubeconfig?: string;
  /** Keep the devserver's state (and the operator log) here across runs; default: a temp dir. */
  readonly dataDir?: string;
  /** Namespace of the samples (default `default`; created when missing). */
  readonly namespace?: string;
  /** Directory of the samples (default the repository's `config/samples/`). */
  readonly samplesDir?: string;
  /** Progress lines (default: nowhere). */
  readonly log?: (line: string) => void;
  readonly env?: NodeJS.ProcessEnv;
  /** Where a first-run binary build prints (default inherited). */
  readonly installStdio?: StdioOptions;
  /** Operator log level (default `info`); the log goes to `Sandbox.operatorLogPath`. */
  readonly operatorLogLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** Overrides of the in-process operator's options (tests). */
  readonly operator?: Partial<StartOperatorOptions>;
  /** Aborting it during a first-run binary build stops that build (see `install-script.ts`). */
  readonly signal?: AbortSignal;
  /**
   * The DynamicSecret sample's provider (default: sqlDatabase, on a PostgreSQL the sandbox starts,
   * when PostgreSQL is installed; else kubernetes).
   */
  readonly dynamicSecretProvider?: DynamicSecretProvider;
}

async function timed<T>(phases: Phases, name: string, step: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const result = await step();
  phases.push({ name, ms: Date.now() - started });
  return result;
}

/** Creates namespace `name` unless it exists. */
export async function ensureNamespace(core: CoreV1Api, name: string): Promise<void> {
  try {
    await core.readNamespace({ name });
  } catch (error) {
    if (statusCodeOf(error) !== 404) throw error;
    await core.createNamespace({ body: { metadata: { name } } });
  }
}

function workDirectory(options: SandboxOptions, cleanups: Cleanup[]): string {
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true });
    return options.dataDir;
  }
  const dir = mkdtempSync(join(tmpdir(), 'coffer-sandbox-data-'));
  // As root, PostgreSQL runs as its own user and must reach its directory in here (search only).
  if (process.getuid?.() === 0) chmodSync(dir, 0o711);
  const remove = () => rmSync(dir, { recursive: true, force: true });
  // Also on a signal or exit that skips the orderly stop (e.g. SIGHUP when the terminal closes).
  const unregister = onProcessExit(remove);
  cleanups.push(() => {
    remove();
    unregister();
  });
  return dir;
}

function openLog(path: string, cleanups: Cleanup[]): WriteStream {
  const stream = createWriteStream(path, { flags: 'a', mode: 0o600 });
  cleanups.push(() => new Promise<void>((resolve) => stream.end(resolve)));
  return stream;
}

async function obtainCluster(options: SandboxOptions, log: (line: string) => void): Promise<SandboxCluster> {
  if (options.kubeconfig) return existingCluster(options.kubeconfig, options.env);
  return localCluster({
    log,
    env: options.env,
    installStdio: options.installStdio,
    signal: options.signal,
  });
}

/**
 * Starts what the DynamicSecret sample issues leases from (see `dynamic-secret-sample.ts`), a
 * PostgreSQL under `dir` stopped with the sandbox; logs which it is.
 */
export async function startBackend(
  kc: KubeConfig,
  options: {
    readonly dir: string;
    readonly dynamicSecretProvider?: DynamicSecretProvider | undefined;
    readonly env?: NodeJS.ProcessEnv | undefined;
    readonly log?: ((line: string) => void) | undefined;
  },
  cleanups: Cleanup[],
): Promise<DynamicSecretBackend> {
  const backend = await startDynamicSecretBackend(kc, {
    dir: options.dir,
    ...(options.dynamicSecretProvider ? { provider: options.dynamicSecretProvider } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  if (backend.provider === 'sqlDatabase') cleanups.push(() => backend.postgres.stop());
  options.log?.(describeBackend(backend));
  return backend;
}

/**
 * The operator, devserver and CRD modules, loaded while the control plane starts: compiling them
 * takes seconds of CPU that would otherwise come on top of the control plane's start-up.
 */
async function loadModules() {
  const [controllers, devserver, operator, logger] = await Promise.all([
    import('../controllers/index.ts'),
    import('../devserver/server.ts'),
    import('../operator/start.ts'),
    import('../runtime/logger.ts'),
  ]);
  return { ...controllers, ...devserver, ...operator, ...logger };
}

type Modules = Awaited<ReturnType<typeof loadModules>>;

/** The kinds the operator runs, and the sample resources that cannot get Ready without others. */
export function whatCanGetReady(
  plan: SamplePlan,
  modules: Pick<Modules, 'kindControllers' | 'directKindControllers' | 'kindRegistry'>,
  options: SandboxOptions = {},
) {
  const managed: readonly KindController[] = options.operator?.kinds ?? modules.kindControllers;
  const direct = options.operator?.directKinds ?? modules.directKindControllers;
  const registeredKinds = new Set([...managed, ...direct].map((controller) => controller.definition.kind));
  const blocked = blockedResources(
    [...plan.bootstrap, ...plan.samples],
    registeredKinds,
    modules.kindRegistry,
  );
  return { registeredKinds, blocked };
}

/**
 * Applies the Bootstrap and the samples (with the previous run's external ids when a data dir is
 * reused) and, in that case, restores the Bootstrap's output Secret, all before the operator
 * starts, so it never calls the bootstrap endpoint of an instance that is already set up.
 */
export async function applyResources(
  kc: KubeConfig,
  plan: SamplePlan,
  reusedDir: string | undefined,
): Promise<void> {
  const ids = reusedDir ? readExternalIds(reusedDir) : new Map<string, string>();
  const samples = withExternalIds(plan.samples, (obj) => ids.get(resourceKey(resourceOf(obj))));
  const all = [...plan.bootstrap, ...samples];
  // Objects are applied concurrently, but a service-account-token Secret that arrives before its
  // ServiceAccount is deleted at once by the token controller: ServiceAccounts go first.
  const isAccount = (obj: KubernetesObject) => obj.kind === 'ServiceAccount';
  await applyObjects(kc, all.filter(isAccount), SANDBOX_FIELD_MANAGER);
  const stored = await applyObjects(
    kc,
    all.filter((obj) => !isAccount(obj)),
    SANDBOX_FIELD_MANAGER,
  );
  const bootstrap = stored.find((obj) => obj.kind === 'Bootstrap');
  const output = (bootstrap as { spec?: { outputSecretName?: unknown } } | undefined)?.spec?.outputSecretName;
  if (!reusedDir || !bootstrap || typeof output !== 'string') return;
  try {
    await restoreBootstrapOutput(kc.makeApiClient(CoreV1Api), bootstrap, output, reusedDir);
  } catch (error) {
    // Already there (an existing cluster keeps it between runs): the Bootstrap uses it.
    if (statusCodeOf(error) !== 409) throw error;
  }
}

async function startInOrder(options: SandboxOptions, cleanups: Cleanup[], phases: Phases): Promise<Sandbox> {
  const startedAt = Date.now();
  const log = options.log ?? (() => undefined);
  const namespace = options.namespace ?? 'default';
  const dir = workDirectory(options, cleanups);
  const dataFile = join(dir, 'devserver.json');
  const reused = options.dataDir !== undefined && existsSync(dataFile);

  const loading = loadModules();
  // Not awaited yet: a failed start must not leave this rejection unhandled meanwhile.
  loading.catch(() => undefined);
  const cluster = await timed(phases, 'control plane', () => obtainCluster(options, log));
  cleanups.push(() => cluster.stop());
  const kc = cluster.kubeConfig();
  const backend = startBackend(kc, { ...options, dir }, cleanups);
  backend.catch(() => undefined);
  const devserver = await timed(phases, 'CRDs and devserver', async () => {
    const crds = Promise.all([
      installCrds(kc, buildAllCrds(allKinds), SANDBOX_FIELD_MANAGER),
      ensureNamespace(kc.makeApiClient(CoreV1Api), namespace),
    ]);
    crds.catch(() => undefined);
    const started = await (await loading).startDevServer({ port: 0, dataFile });
    cleanups.push(() => started.close());
    await crds;
    return started;
  });
  const modules = await loading;
  log(`devserver listening on ${devserver.url}${reused ? ` (state reused from ${dataFile})` : ''}`);

  const dynamicSecrets = await backend;
  const plan = planSamples(namespace, devserver.url, {
    ...(options.samplesDir ? { dir: options.samplesDir } : {}),
    dynamicSecrets,
  });
  await timed(phases, 'samples', async () => {
    const custom = kc.makeApiClient(CustomObjectsApi);
    if (reused) await retireForReuse(dir, plan.samples, { url: devserver.url, custom }, log);
    await applyResources(kc, plan, reused ? dir : undefined);
  });

  const operatorLogPath = join(dir, 'operator.log');
  const stream = openLog(operatorLogPath, cleanups);
  const operator = await timed(phases, 'operator', async () => {
    const running = await modules.startOperator({
      kubeConfig: kc,
      log: modules.createLogger({
        level: options.operatorLogLevel ?? 'info',
        name: 'coffer',
        destination: stream,
      }),
      // A cluster the sandbox did not start: read only its namespace.
      namespaces: cluster.local ? [] : [namespace],
      // Dependencies get Ready within a second here; the production default (10 s) would dominate.
      waitRequeueMs: 1_000,
      clientCloseDelayMs: 1_000,
      gracefulShutdownTimeoutMs: 5_000,
      ...options.operator,
    });
    cleanups.push(() => running.stop());
    await running.ready;
    return running;
  });
  log(`operator running (log: ${operatorLogPath})`);
  return new Sandbox({
    cluster,
    namespace,
    devserver,
    operator,
    plan,
    ...whatCanGetReady(plan, modules, options),
    operatorLogPath,
    dataDir: options.dataDir,
    phases,
    startedAt,
    cleanups,
  });
}

/**
 * Starts the sandbox (see the module comment). On failure, everything started so far is stopped
 * before the error is rethrown.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const cleanups: Cleanup[] = [];
  try {
    return await startInOrder(options, cleanups, []);
  } catch (error) {
    await runCleanups(cleanups).catch(() => undefined);
    throw error;
  }
}
