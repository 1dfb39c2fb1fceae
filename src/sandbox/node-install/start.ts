/**
 * `startNodeSandbox`: the sandbox run as users run Coffer (`coffer sandbox --node`). A local control
 * plane with a node; the operator image (built while the control plane starts) imported into the
 * node's containerd; a devserver on this machine listening on the node's address (where Pods reach
 * it, inside what the node's egress rule allows); `helm install` of the chart with that image,
 * waiting for the operator Deployment's Pod to be Ready; then the Bootstrap and the samples. The
 * samples' workloads (the demo-app Deployment, on the probe image) are applied once every resource
 * is Ready, so the Secrets they mount exist when their Pods start. Stop removes everything; the
 * node's own teardown restores the machine.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { directKindControllers, kindControllers, kindRegistry } from '../../controllers/index.ts';
import { startDevServer } from '../../devserver/server.ts';
import { ensureBinaries, type SandboxCluster } from '../cluster-source.ts';
import { applyObjects } from '../control-plane/cluster.ts';
import { startControlPlane, type ControlPlane } from '../control-plane/control-plane.ts';
import { onProcessExit } from '../control-plane/process.ts';
import { planSamples, type SamplePlan } from '../samples.ts';
import { runCleanups, Sandbox, type Cleanup, type Phases, type WaitOptions } from '../sandbox.ts';
import type { ResourceState } from '../status.ts';
import {
  applyResources,
  ensureNamespace,
  SANDBOX_FIELD_MANAGER,
  startBackend,
  whatCanGetReady,
} from '../start.ts';
import type { HelmRelease } from './helm.ts';
import { importImage, installOperator, nodeInstallApiServerArgs, nodeInstallControllers } from './install.ts';
import { buildOperatorImage, type OperatorImage } from '../image/image.ts';
import { runnableOnNode, waitForRollout } from './workloads.ts';

/** Options of {@link startNodeSandbox}. */
export interface NodeSandboxOptions {
  /** Namespace of the samples (default `default`). */
  readonly namespace?: string;
  /** Progress lines (default: nowhere). */
  readonly log?: (line: string) => void;
  readonly env?: NodeJS.ProcessEnv;
  /** Chart values besides the image (default: the chart's defaults). */
  readonly values?: Record<string, unknown>;
  /** Use this image instead of building one. */
  readonly image?: OperatorImage;
  /** How long to wait for another node on this machine to stop (default 0: refuse at once). */
  readonly waitForNodeMs?: number;
}

/** A sandbox whose operator runs on the node as the chart deploys it. */
export class NodeSandbox extends Sandbox {
  readonly plane: ControlPlane;
  readonly release: HelmRelease;
  readonly image: OperatorImage;
  /** The samples' Deployments, applied by {@link waitUntilReady} once the resources are Ready. */
  readonly workloads: readonly SamplePlan['samples'][number][];

  constructor(
    parts: ConstructorParameters<typeof Sandbox>[0] & {
      plane: ControlPlane;
      release: HelmRelease;
      image: OperatorImage;
      workloads: SamplePlan['samples'];
    },
  ) {
    super(parts);
    this.plane = parts.plane;
    this.release = parts.release;
    this.image = parts.image;
    this.workloads = parts.workloads;
  }

  /**
   * Stops everything (see `Sandbox.stop`). The node's processes are unref'd children, and one
   * that outlives its stop timeout is killed from a timer: without something else to wait for, the
   * event loop would end before their exit is seen, so a timer keeps it alive meanwhile.
   */
  override async stop(): Promise<void> {
    const keepAlive = setInterval(() => undefined, 1_000);
    try {
      await super.stop();
    } finally {
      clearInterval(keepAlive);
    }
  }

  /**
   * Waits for every resource to be Ready and Synced (see `Sandbox.waitUntilReady`), then applies
   * the workloads and waits for their rollout within what is left of `timeoutMs`.
   */
  override async waitUntilReady(options: WaitOptions): Promise<{ ready: boolean; states: ResourceState[] }> {
    const deadline = Date.now() + options.timeoutMs;
    const result = await super.waitUntilReady(options);
    if (!result.ready) return result;
    const kc = this.cluster.kubeConfig();
    await applyObjects(kc, this.workloads, SANDBOX_FIELD_MANAGER);
    const apps = kc.makeApiClient(AppsV1Api);
    for (const workload of this.workloads) {
      const where = { namespace: this.namespace, name: workload.metadata.name };
      await waitForRollout(apps, where, Math.max(1, deadline - Date.now()));
    }
    return result;
  }
}

async function timed<T>(phases: Phases, name: string, step: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const result = await step();
  phases.push({ name, ms: Date.now() - started });
  return result;
}

function temporaryDirectory(cleanups: Cleanup[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-sandbox-node-data-'));
  // PostgreSQL runs as its own user and must reach its directory in here (search only).
  chmodSync(dir, 0o711);
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const unregister = onProcessExit(remove);
  cleanups.push(() => {
    remove();
    unregister();
  });
  return dir;
}

function clusterOf(plane: ControlPlane): SandboxCluster {
  return {
    local: true,
    kubeconfigPath: plane.kubeconfigPath,
    kubectl: plane.binaries.kubectl ?? 'kubectl',
    dir: plane.dir,
    kubeConfig: () => plane.kubeConfig(),
    stop: () => plane.stop(),
  };
}

async function startInOrder(
  options: NodeSandboxOptions,
  cleanups: Cleanup[],
  phases: Phases,
): Promise<NodeSandbox> {
  const startedAt = Date.now();
  const log = options.log ?? (() => undefined);
  const namespace = options.namespace ?? 'default';
  const dir = temporaryDirectory(cleanups);
  const binaries = await ensureBinaries({ log, env: options.env, controllerManager: true });
  if (!binaries.helm)
    throw new Error('cannot install the chart: helm not found; run `npm run control-plane:install`');
  const building = options.image
    ? Promise.resolve(options.image)
    : buildOperatorImage({ archive: join(dir, 'operator-image.oci.tar'), env: options.env });
  building.catch(() => undefined);
  const plane = await timed(phases, 'control plane and node', () =>
    startControlPlane({
      log,
      env: options.env,
      fieldManager: SANDBOX_FIELD_MANAGER,
      dirPrefix: 'coffer-sandbox-',
      node: true,
      waitForNodeMs: options.waitForNodeMs,
      controllers: nodeInstallControllers,
      apiServerArgs: nodeInstallApiServerArgs,
    }),
  );
  cleanups.push(() => plane.stop());
  const node = plane.node;
  if (!node) throw new Error('cannot start the sandbox: the control plane has no node');
  const kc = plane.kubeConfig();
  const image = await timed(phases, 'operator image', async () => {
    const built = await building;
    await importImage(node, built.archive);
    return built;
  });
  log(`operator image ${image.reference} imported into the node`);
  const [devserver, dynamicSecrets] = await Promise.all([
    startDevServer({ host: node.network.nodeIp, port: 0, dataFile: join(dir, 'devserver.json') }),
    startBackend(kc, { dir, log, env: options.env }, cleanups),
  ]);
  cleanups.push(() => devserver.close());
  await ensureNamespace(kc.makeApiClient(CoreV1Api), namespace);
  log(`devserver listening on ${devserver.url}`);
  const { release } = await timed(phases, 'helm install', () =>
    installOperator({
      kubeConfig: kc,
      kubeconfigPath: plane.kubeconfigPath,
      helm: binaries.helm as string,
      image,
      ...(options.values ? { values: options.values } : {}),
    }),
  );
  cleanups.push(() => release.close());
  log(`operator running in ${release.namespace} (helm release ${release.name})`);
  const plan = planSamples(namespace, devserver.url, { dynamicSecrets });
  const isWorkload = (obj: SamplePlan['samples'][number]) => obj.kind === 'Deployment';
  const resources = { ...plan, samples: plan.samples.filter((obj) => !isWorkload(obj)) };
  await timed(phases, 'samples', () => applyResources(kc, resources, undefined));
  return new NodeSandbox({
    cluster: clusterOf(plane),
    namespace,
    devserver,
    operator: undefined,
    plan,
    ...whatCanGetReady(plan, { kindControllers, directKindControllers, kindRegistry }),
    operatorLogPath: join(node.dir, 'pod-logs'),
    operatorLogCommand: `${plane.binaries.kubectl ?? 'kubectl'} -n ${release.namespace} logs deploy/${release.name}`,
    dataDir: undefined,
    phases,
    startedAt,
    cleanups,
    plane,
    release,
    image,
    workloads: plan.samples.filter(isWorkload).map(runnableOnNode),
  });
}

/**
 * Starts the sandbox on a node (see the module comment). On failure, everything started so far is
 * stopped before the error is rethrown.
 */
export async function startNodeSandbox(options: NodeSandboxOptions = {}): Promise<NodeSandbox> {
  const cleanups: Cleanup[] = [];
  try {
    return await startInOrder(options, cleanups, []);
  } catch (error) {
    await runCleanups(cleanups).catch(() => undefined);
    throw error;
  }
}
