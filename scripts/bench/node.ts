/**
 * The operator as users run it, measured (not a test): a local control plane with a node, the
 * image built from the Dockerfile (src/sandbox/image) and imported into the node, `helm install`
 * of charts/coffer with the chart's defaults, then the samples against a devserver on the node's
 * address. Prints how long the node and the operator's Pod take to get Ready, and the operator
 * container's memory as the kubelet counts it — working set and anonymous memory, from its cgroup
 * and from the kubelet's /stats/summary — at rest and once the samples are Ready.
 *
 *   npm run bench:node -- [--rest 30s]
 *
 * Needs root, the control plane's binaries (npm run control-plane:install), buildah, and no other
 * node on the machine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { CoreV1Api, CustomObjectsApi, type V1Pod } from '@kubernetes/client-node';
import { kindControllers, directKindControllers, kindRegistry } from '../../src/controllers/index.ts';
import { startDevServer } from '../../src/devserver/server.ts';
import { tryParseDuration } from '../../src/runtime/duration.ts';
import { startControlPlane } from '../../src/sandbox/control-plane/control-plane.ts';
import { nodeName } from '../../src/sandbox/control-plane/node/config.ts';
import { buildOperatorImage } from '../../src/sandbox/image/image.ts';
import {
  defaultRelease,
  importImage,
  installOperator,
  nodeInstallApiServerArgs,
  nodeInstallControllers,
} from '../../src/sandbox/node-install/install.ts';
import { planSamples } from '../../src/sandbox/samples.ts';
import { applyResources, whatCanGetReady } from '../../src/sandbox/start.ts';
import { allSettled, readStates } from '../../src/sandbox/status.ts';
import { parseCommandLine } from '../command-line.ts';
import { cgroupMemory, containerPid, kubeletMemory, type ContainerMemory } from './node-memory.ts';

const usage = `usage: npm run bench:node -- [--rest 30s]

The operator installed with the chart on a local node: node and operator Pod start-up times, and
the operator's working set and anonymous memory at rest and with the samples Ready.

  --rest DURATION  how long the operator idles before each memory reading (default 30s)`;

const { values } = parseCommandLine(usage, () =>
  parseArgs({ options: { rest: { type: 'string', default: '30s' } } }),
);
const restMs = tryParseDuration(values.rest) ?? 30_000;
const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const keepAlive = setInterval(() => undefined, 1_000);
const startedAt = performance.now();
const since = (): number => performance.now() - startedAt;

async function poll<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 300_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const isReady = (conditions: { type: string; status: string }[] | undefined): boolean =>
  conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

const work = mkdtempSync(join(tmpdir(), 'coffer-bench-node-'));
const building = buildOperatorImage({ archive: join(work, 'operator.oci.tar') });
building.catch(() => undefined);
const plane = await startControlPlane({
  node: true,
  controllers: nodeInstallControllers,
  apiServerArgs: nodeInstallApiServerArgs,
  dirPrefix: 'coffer-bench-node-',
});
const planeMs = since();
const kc = plane.kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const node = plane.node;
if (!node) throw new Error('the control plane has no node');
const nodeReadyMs = await poll('the node to be Ready', async () =>
  isReady((await core.readNode({ name: nodeName })).status?.conditions) ? since() : undefined,
);
try {
  const image = await building;
  await importImage(node, image.archive);
  const devserver = await startDevServer({ host: node.network.nodeIp, port: 0 });
  const helm = plane.binaries.helm;
  if (!helm) throw new Error('helm not found; run npm run control-plane:install');

  // The operator Pod, watched from the moment `helm install` starts.
  const installAt = performance.now();
  const operatorPod = (): Promise<V1Pod | undefined> =>
    core
      .listNamespacedPod({
        namespace: defaultRelease.namespace,
        labelSelector: 'app.kubernetes.io/name=coffer',
      })
      .then((list) => list.items[0]);
  const pod = poll('the operator container to run', async () => {
    const found = await operatorPod();
    return found?.status?.containerStatuses?.[0]?.state?.running
      ? { found, at: performance.now() }
      : undefined;
  });
  const readyz = pod.then(({ found }) =>
    poll('the operator to answer /readyz', async () => {
      const res = await fetch(`http://${found.status?.podIP}:8081/readyz`, {
        signal: AbortSignal.timeout(1_000),
      });
      return res.ok ? performance.now() : undefined;
    }),
  );
  const podReady = poll('the operator Pod to be Ready', async () =>
    isReady((await operatorPod())?.status?.conditions) ? performance.now() : undefined,
  );
  const installed = await installOperator({
    kubeConfig: kc,
    kubeconfigPath: plane.kubeconfigPath,
    helm,
    image,
  });
  const installedAt = performance.now();
  const { found, at: runningAt } = await pod;
  const [readyzAt, podReadyAt] = await Promise.all([readyz, podReady]);

  const socket = join(node.dir, 'containerd.sock');
  const where = {
    node: nodeName,
    namespace: defaultRelease.namespace,
    pod: found.metadata?.name ?? '',
    container: 'operator',
  };
  const pid = await containerPid(socket, found.status?.containerStatuses?.[0]?.containerID ?? '');
  const kubectl = plane.binaries.kubectl ?? 'kubectl';
  const memory = async (): Promise<{
    cgroup: ContainerMemory;
    kubelet: ContainerMemory & { time: string };
  }> => {
    // The kubelet samples every few seconds: wait for a figure taken after this reading began.
    const asked = new Date();
    const kubelet = await poll('a kubelet sample', async () => {
      const sample = await kubeletMemory(kubectl, plane.kubeconfigPath, where);
      return new Date(sample.time) >= new Date(asked.getTime() - 1_000) ? sample : undefined;
    });
    return { cgroup: cgroupMemory(pid), kubelet };
  };
  await sleep(restMs);
  const atRest = await memory();

  const plan = planSamples('default', devserver.url);
  const samplesAt = performance.now();
  await applyResources(
    kc,
    { ...plan, samples: plan.samples.filter((obj) => obj.kind !== 'Deployment') },
    undefined,
  );
  const { registeredKinds, blocked } = whatCanGetReady(plan, {
    kindControllers,
    directKindControllers,
    kindRegistry,
  });
  const custom = kc.makeApiClient(CustomObjectsApi);
  const samplesReadyAt = await poll('the samples to be Ready', async () =>
    allSettled(await readStates(custom, plan.resources, registeredKinds, blocked))
      ? performance.now()
      : undefined,
  );
  const samplesReady = await memory();
  await sleep(restMs);
  const samplesRest = await memory();

  const figure = (name: string, value: string): void => console.log(`${name.padEnd(58)} ${value}`);
  console.log(`\noperator image ${image.reference} (${image.digest.slice(0, 19)}), chart defaults`);
  figure('control plane and node started (startControlPlane)', seconds(planeMs));
  figure('node Ready (from the start)', seconds(nodeReadyMs));
  figure('helm install → operator container running', seconds(runningAt - installAt));
  figure('operator container running → /readyz 200', seconds(readyzAt - runningAt));
  figure('operator container running → Pod Ready (chart probes)', seconds(podReadyAt - runningAt));
  figure('helm install → rollout complete', seconds(installedAt - installAt));
  figure(
    `samples applied → all ${plan.resources.length - blocked.size} Ready and Synced`,
    seconds(samplesReadyAt - samplesAt),
  );
  const row = (name: string, m: { cgroup: ContainerMemory; kubelet: ContainerMemory }): void =>
    figure(
      name,
      `working set ${mib(m.cgroup.workingSet)} (kubelet ${mib(m.kubelet.workingSet)}), anon ${mib(m.cgroup.anon)} (kubelet rss ${mib(m.kubelet.anon)})`,
    );
  row(`operator memory at rest (${seconds(restMs)} after Ready)`, atRest);
  row('operator memory when the samples are Ready', samplesReady);
  row(`operator memory ${seconds(restMs)} after the samples are Ready`, samplesRest);
  installed.release.close();
  await devserver.close();
} finally {
  await plane.stop();
  rmSync(work, { recursive: true, force: true });
  clearInterval(keepAlive);
}
