/**
 * The chart's RBAC and flags with the real `coffer operator` process: the chart is rendered with
 * the cached helm, its ServiceAccount and (Cluster)Roles are applied to the run's kube-apiserver,
 * and the operator runs with exactly the rendered container args, authenticated as that
 * ServiceAccount. It must become ready (every informer listed and watching), win the leader
 * Lease and log no permission error, in cluster-wide and in namespaced mode. In namespaced mode
 * the ServiceAccount must also be denied Secrets outside the watched namespaces.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CoordinationV1Api,
  CoreV1Api,
  type KubernetesObject,
  type V1Deployment,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderChart, rbacKinds } from '../support/chart.ts';
import { locateBinaries } from '../support/control-plane-binaries.ts';
import { clusterFromInjected, statusCodeOf, waitFor } from '../support/kube.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const binaries = locateBinaries();
const workDir = mkdtempSync(join(tmpdir(), 'coffer-chart-rbac-'));

function tool(binary: string | undefined, args: string[], input?: string): string {
  if (!binary) throw new Error('cannot run kubectl: not found; run `npm run control-plane:install`');
  const result = spawnSync(binary, args, { encoding: 'utf8', input, maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw new Error(`cannot run ${binary}: ${result.error.message}`, { cause: result.error });
  if (result.status !== 0) throw new Error(`cannot run ${binary} ${args[0] ?? ''}: ${result.stderr}`);
  return result.stdout;
}

function kubectl(verb: 'apply' | 'delete', objects: KubernetesObject[]): void {
  const manifest = objects.map((o) => JSON.stringify(o)).join('\n');
  const extra = verb === 'delete' ? ['--ignore-not-found', '--wait=false'] : [];
  tool(
    binaries.kubectl,
    ['--kubeconfig', clusterFromInjected().kubeconfigPath, verb, ...extra, '-f', '-'],
    manifest,
  );
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('cannot find a free port');
  return address.port;
}

interface RunningOperator {
  readonly child: ChildProcess;
  readonly output: string[];
  readonly healthPort: number;
  readonly leaseId: string;
}

/**
 * Starts `coffer operator` from the source tree with the Deployment's args, except that the
 * bind addresses move to loopback and --kubeconfig points at the ServiceAccount's credentials.
 */
async function startOperator(objects: KubernetesObject[], namespace: string, kubeconfigPath: string) {
  const deployment = objects.find((o): o is V1Deployment => o.kind === 'Deployment');
  const args = deployment?.spec?.template.spec?.containers[0]?.args ?? [];
  expect(args[0]).toBe('operator');
  const healthPort = await freePort();
  const operatorArgs = args.map((arg) => {
    if (arg.startsWith('--health-probe-bind-address='))
      return `--health-probe-bind-address=127.0.0.1:${healthPort}`;
    if (arg.startsWith('--metrics-bind-address=')) return '--metrics-bind-address=0';
    return arg;
  });
  const leaseId = args.find((a) => a.startsWith('--leader-election-id='))?.split('=')[1] ?? '';
  const env = { ...process.env, POD_NAMESPACE: namespace, POD_NAME: 'coffer-test-pod', KUBECONFIG: '' };
  const child = spawn(
    process.execPath,
    [join(repo, 'src/cli/main.ts'), ...operatorArgs, `--kubeconfig=${kubeconfigPath}`],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  return { child, output, healthPort, leaseId };
}

async function stop(operator: RunningOperator): Promise<number | null> {
  if (operator.child.exitCode !== null) return operator.child.exitCode;
  const exited = once(operator.child, 'exit');
  operator.child.kill('SIGTERM');
  const [code] = (await exited) as [number | null];
  return code;
}

async function readyz(port: number): Promise<boolean> {
  const response = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) });
  return response.status === 200;
}

/** Applies the chart's RBAC for `values`, runs the operator as its ServiceAccount, checks it. */
async function runWithChartRbac(values: (namespaces: string[]) => string[], extraNamespaces: number) {
  const cluster = clusterFromInjected();
  const release = `rbac-${Math.random().toString(16).slice(2, 8)}`;
  const namespace = await cluster.createNamespace();
  const watched = await Promise.all(Array.from({ length: extraNamespaces }, () => cluster.createNamespace()));
  const objects = renderChart(release, namespace, values(watched));
  const rbac = objects.filter((o) => rbacKinds.has(o.kind ?? ''));
  kubectl('apply', rbac);
  const account = rbac.find((o) => o.kind === 'ServiceAccount')?.metadata?.name ?? '';
  const kubeConfig = await cluster.clientForServiceAccount(namespace, account);
  const kubeconfigPath = join(workDir, `${release}.kubeconfig`);
  writeFileSync(kubeconfigPath, kubeConfig.exportConfig(), { mode: 0o600 });
  const operator = await startOperator(objects, namespace, kubeconfigPath);
  return { cluster, namespace, watched, rbac, kubeConfig, operator };
}

async function expectHealthyOperator(operator: RunningOperator, namespace: string): Promise<void> {
  const logs = () => operator.output.join('').slice(-4_000);
  try {
    await waitFor(
      async () => {
        if (operator.child.exitCode !== null) throw new Error('the operator exited early');
        return readyz(operator.healthPort);
      },
      { timeoutMs: 40_000, intervalMs: 250, message: 'the operator to answer /readyz 200' },
    );
  } catch (error) {
    throw new Error(`the operator did not become ready; its last log lines:\n${logs()}`, { cause: error });
  }
  const leases = clusterFromInjected().kubeConfig().makeApiClient(CoordinationV1Api);
  const lease = await waitFor(
    async () => {
      const current = await leases.readNamespacedLease({ name: operator.leaseId, namespace });
      return current.spec?.holderIdentity ? current : undefined;
    },
    { timeoutMs: 30_000, message: `the Lease ${namespace}/${operator.leaseId} to have a holder` },
  );
  expect(lease.spec?.holderIdentity).toBeTruthy();
  expect(permissionErrors(operator.output.join('')), 'no permission errors').toEqual([]);
}

/** Cluster-scoped kinds: this test creates none, so their log lines are about other tests' objects. */
const clusterScopedKinds = new Set(['ClusterConnection', 'ProjectTemplate']);

/**
 * Log lines reporting a permission error of the operator's own work. The control plane is shared
 * with the other test files, and a cluster-scoped object one of them left behind (e.g. the
 * sandbox's ClusterConnection, whose Secret is in `default`) is legitimately out of reach of an
 * operator restricted to a few namespaces: its reconcile errors are not the chart's fault.
 */
function permissionErrors(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => /forbidden|cannot (list|watch|get) resource/i.test(line))
    .filter((line) => !clusterScopedKinds.has(logField(line, 'kind')))
    .map((line) => line.slice(0, 300));
}

function logField(line: string, field: string): string {
  try {
    const value = (JSON.parse(line) as Record<string, unknown>)[field];
    return typeof value === 'string' ? value : '';
  } catch {
    return '';
  }
}

describe('the operator with the chart’s RBAC and args', () => {
  const started: { operator: RunningOperator; rbac: KubernetesObject[] }[] = [];

  beforeAll(async () => {
    const crdDir = join(repo, 'crds');
    const files = readdirSync(crdDir).filter((f) => f.endsWith('.coffer.dev.yaml'));
    await clusterFromInjected().installCRDs(files.map((f) => join(crdDir, f)));
  });

  afterAll(async () => {
    for (const { operator, rbac } of started) {
      await stop(operator);
      kubectl(
        'delete',
        rbac.filter((o) => o.kind === 'ClusterRole' || o.kind === 'ClusterRoleBinding'),
      );
    }
    rmSync(workDir, { recursive: true, force: true });
  });

  it('runs cluster-wide with the ClusterRole', { timeout: 90_000 }, async () => {
    const run = await runWithChartRbac(() => [], 0);
    started.push(run);
    await expectHealthyOperator(run.operator, run.namespace);
    expect(await stop(run.operator)).toBe(0);
  });

  it(
    'runs in namespaced mode with Roles only where it watches, denied elsewhere',
    { timeout: 90_000 },
    async () => {
      const run = await runWithChartRbac((ns) => [`watchNamespaces={${ns.join(',')}}`, 'replicaCount=2'], 2);
      started.push(run);
      expect(run.rbac.filter((o) => o.kind === 'Role').map((o) => o.metadata?.namespace)).toEqual(
        expect.arrayContaining(run.watched),
      );
      await expectHealthyOperator(run.operator, run.namespace);
      expect(await stop(run.operator)).toBe(0);
      const core = run.kubeConfig.makeApiClient(CoreV1Api);
      const [watched] = run.watched;
      await expect(core.listNamespacedSecret({ namespace: watched ?? '' })).resolves.toBeDefined();
      const denied = await core
        .listNamespacedSecret({ namespace: run.namespace })
        .catch((error: unknown) => error);
      expect(statusCodeOf(denied)).toBe(403);
      const clusterWide = await core.listSecretForAllNamespaces().catch((error: unknown) => error);
      expect(statusCodeOf(clusterWide)).toBe(403);
    },
  );
});
