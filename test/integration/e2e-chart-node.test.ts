/**
 * Coffer as users run it, on the control plane's node (src/sandbox/node-install/): the operator
 * image built from the Dockerfile and imported into the node's containerd, `helm install` of
 * charts/coffer with it, the samples applied against a devserver on the node's address. Each step
 * asserts what a user would check with kubectl: the operator's Pod Ready, running as non-root on a
 * read-only root filesystem with the chart's ServiceAccount and nothing else; the samples Ready
 * through it and the demo Deployment's Pod running; a WorkloadSecret change replacing that Pod
 * exactly once; `helm upgrade` rolling the operator with everything staying Ready and nothing
 * restarted; `helm uninstall` leaving none of the release's objects and keeping the CRDs.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  ApiextensionsV1Api,
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  RbacAuthorizationV1Api,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type V1Pod,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allKinds, group, version } from '../../src/api/v1alpha1/index.ts';
import { chartValues, operatorDeployment } from '../../src/sandbox/node-install/install.ts';
import { startNodeSandbox, type NodeSandbox } from '../../src/sandbox/node-install/start.ts';
import { nodeLockWaitMs, reserveNodeForFile } from '../support/control-plane.ts';
import { rolledOut, waitForRollout } from '../../src/sandbox/node-install/workloads.ts';
import { allSettled } from '../../src/sandbox/status.ts';
import { waitFor } from '../support/wait-for.ts';

const execFileAsync = promisify(execFile);
const release = { name: 'coffer', namespace: 'coffer-system' };
const instance = `app.kubernetes.io/instance=${release.name}`;
/** The chart's defaults, but a readiness probe every second instead of every 10 s: the file's budget. */
const values = { readinessProbe: { initialDelaySeconds: 1, periodSeconds: 1 } };

/** The Pods of `namespace` matching `labelSelector` that are not being deleted. */
async function livePods(core: CoreV1Api, namespace: string, labelSelector: string): Promise<V1Pod[]> {
  const pods = await core.listNamespacedPod({ namespace, labelSelector });
  return pods.items.filter((pod) => !pod.metadata?.deletionTimestamp);
}

/** The operator Pods of the release that are not being deleted. */
function operatorPods(core: CoreV1Api): Promise<V1Pod[]> {
  return livePods(core, release.namespace, instance);
}

/** The output of `ctr … args` against the node's containerd, in the kubelet's namespace. */
async function ctr(sandbox: NodeSandbox, ...args: string[]): Promise<string> {
  const socket = join(sandbox.plane.node?.dir ?? '', 'containerd.sock');
  const { stdout } = await execFileAsync('ctr', ['--address', socket, '-n', 'k8s.io', ...args]);
  return stdout;
}

/** The host PID of the container `containerId` (`containerd://<id>`), from the node's containerd. */
async function hostPid(sandbox: NodeSandbox, containerId: string): Promise<number> {
  const id = containerId.replace(/^containerd:\/\//, '');
  const line = (await ctr(sandbox, 'tasks', 'ls')).split('\n').find((row) => row.startsWith(id));
  if (!line) throw new Error(`no task for container ${id}`);
  return Number(line.trim().split(/\s+/)[1]);
}

/** What the kernel says about process `pid`: its user ids, effective capabilities, and whether its `/` is mounted read-only. */
function processFacts(pid: number): { uids: string[]; effectiveCapabilities: string; rootReadOnly: boolean } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const root = readFileSync(`/proc/${pid}/mountinfo`, 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .find((fields) => fields[4] === '/');
  return {
    uids: /^Uid:\s+(.*)$/m.exec(status)?.[1]?.split(/\s+/) ?? [],
    effectiveCapabilities: /^CapEff:\s+(\S+)$/m.exec(status)?.[1] ?? '',
    rootReadOnly: (root?.[5] ?? '').split(',').includes('ro'),
  };
}

describe('the chart on a node, with the image built from the Dockerfile', () => {
  let sandbox: NodeSandbox;
  let releaseNode: (() => void) | undefined;
  let kc: KubeConfig;
  let core: CoreV1Api;
  let apps: AppsV1Api;

  const kubectl = async (...args: string[]): Promise<string> => {
    const { stdout } = await execFileAsync(
      sandbox.cluster.kubectl,
      ['--kubeconfig', sandbox.cluster.kubeconfigPath, ...args],
      { timeout: 30_000 },
    );
    return stdout;
  };

  beforeAll(async () => {
    releaseNode = await reserveNodeForFile();
    sandbox = await startNodeSandbox({ log: (line) => console.log(line), values });
    console.log(sandbox.phases.map((phase) => `${phase.name} ${phase.ms} ms`).join(', '));
    kc = sandbox.cluster.kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
    apps = kc.makeApiClient(AppsV1Api);
  }, nodeLockWaitMs + 240_000);

  afterAll(async () => {
    await sandbox?.stop();
    releaseNode?.();
  }, 60_000);

  it('installs the release with the image imported into the node, never pulled', async () => {
    const status = await sandbox.release.status();
    expect(status.info?.status).toBe('deployed');
    const deployment = await operatorDeployment(apps, release);
    const container = deployment.spec?.template.spec?.containers[0];
    expect(container?.image).toBe(sandbox.image.reference);
    expect(container?.imagePullPolicy).toBe('Never');
    const [pod] = await operatorPods(core);
    expect(pod?.status?.containerStatuses?.[0]?.image).toBe(sandbox.image.reference);
    // The node's containerd holds the image under that name with the digest the build produced.
    const row = (await ctr(sandbox, 'images', 'ls'))
      .split('\n')
      .find((line) => line.startsWith(`${sandbox.image.reference} `));
    expect(row?.split(/\s+/)).toContain(sandbox.image.digest);
  });

  it('runs the operator Pod Ready, as the non-root user on a read-only root with no capabilities', async () => {
    const pods = await operatorPods(core);
    expect(pods).toHaveLength(1);
    const pod = pods[0] as V1Pod;
    expect(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    const pid = await hostPid(sandbox, pod.status?.containerStatuses?.[0]?.containerID ?? '');
    expect(processFacts(pid)).toEqual({
      uids: ['65532', '65532', '65532', '65532'],
      effectiveCapabilities: '0000000000000000',
      rootReadOnly: true,
    });
  });

  it('runs the operator with only the ServiceAccount and RBAC of the release', async () => {
    const [pod] = await operatorPods(core);
    const account = pod?.spec?.serviceAccountName ?? '';
    const sa = await core.readNamespacedServiceAccount({ name: account, namespace: release.namespace });
    expect(sa.metadata?.annotations?.['meta.helm.sh/release-name']).toBe(release.name);
    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    const bindings = [
      ...(await rbac.listClusterRoleBinding()).items,
      ...(await rbac.listRoleBindingForAllNamespaces()).items,
    ].filter((binding) =>
      (binding.subjects ?? []).some(
        (s) => s.kind === 'ServiceAccount' && s.name === account && s.namespace === release.namespace,
      ),
    );
    expect(bindings.length).toBeGreaterThan(0);
    const foreign = bindings.filter(
      (b) => b.metadata?.annotations?.['meta.helm.sh/release-name'] !== release.name,
    );
    expect(foreign.map((b) => b.metadata?.name)).toEqual([]);
    // The leader's Lease names this Pod: it is the operator that reconciles.
    const lease = await kc
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ name: 'coffer-operator-leader', namespace: release.namespace });
    expect(lease.spec?.holderIdentity).toContain(pod?.metadata?.name);
  });

  it('gets every sample Ready through the operator, and the demo Deployment Pod running', async () => {
    const { ready, states } = await sandbox.waitUntilReady({ timeoutMs: 90_000 });
    expect(ready).toBe(true);
    expect(allSettled(states)).toBe(true);
    const demo = await apps.readNamespacedDeployment({ name: 'demo-app', namespace: sandbox.namespace });
    expect(rolledOut(demo)).toBe(true);
    const secret = await core.readNamespacedSecret({ name: 'demo-app-env', namespace: sandbox.namespace });
    expect(Object.keys(secret.data ?? {})).toContain('app.yaml');
    const logs = await kubectl('-n', sandbox.namespace, 'logs', 'deploy/demo-app');
    expect(logs).toContain('coffer-probe ready');
  }, 100_000);

  it('replaces the demo Deployment Pod exactly once when its WorkloadSecret changes', async () => {
    const where = { name: 'demo-app', namespace: sandbox.namespace };
    const selector = 'app.kubernetes.io/name=demo-app';
    const podUids = async () =>
      (await livePods(core, where.namespace, selector)).map((pod) => pod.metadata?.uid);
    const replicaSets = async () =>
      (await apps.listNamespacedReplicaSet({ namespace: where.namespace, labelSelector: selector })).items;
    const before = await podUids();
    expect(before).toHaveLength(1);
    expect(await replicaSets()).toHaveLength(1);
    const generation = (await apps.readNamespacedDeployment(where)).metadata?.generation ?? 0;

    const custom = kc.makeApiClient(CustomObjectsApi);
    const at = {
      group,
      version,
      plural: 'workloadsecrets',
      namespace: where.namespace,
      name: 'demo-app-env',
    };
    await custom.patchNamespacedCustomObject(
      { ...at, body: { spec: { template: { data: { greeting: 'hello from the node' } } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const changed = await waitFor(
      async () => {
        const secret = await core.readNamespacedSecret({ name: 'demo-app-env', namespace: where.namespace });
        return secret.data?.['greeting'];
      },
      { timeoutMs: 30_000, intervalMs: 250, message: 'the delivered Secret to carry the new key' },
    );
    expect(Buffer.from(changed, 'base64').toString()).toBe('hello from the node');
    await waitFor(
      async () => ((await apps.readNamespacedDeployment(where)).metadata?.generation ?? 0) > generation,
      {
        timeoutMs: 30_000,
        intervalMs: 250,
        message: 'the Deployment to be restarted',
      },
    );
    await waitForRollout(apps, where, 60_000);
    // The operator has settled on the change: the WorkloadSecret is Ready for its new generation.
    await waitFor(async () => allSettled(await sandbox.states()), {
      timeoutMs: 30_000,
      intervalMs: 250,
      message: 'every resource to be Ready and Synced',
    });
    const after = await podUids();
    expect(after).toHaveLength(1);
    expect(after).not.toContain(before[0]);
    const sets = await replicaSets();
    expect(sets).toHaveLength(2);
    expect(sets.map((set) => set.spec?.replicas ?? 0).sort()).toEqual([0, 1]);
    expect((await apps.readNamespacedDeployment(where)).metadata?.generation).toBe(generation + 1);
  }, 120_000);

  it('rolls the operator on helm upgrade, with every resource staying Ready and nothing restarted', async () => {
    const [old] = await operatorPods(core);
    const demo = await apps.readNamespacedDeployment({ name: 'demo-app', namespace: sandbox.namespace });
    const demoPods = await livePods(core, sandbox.namespace, 'app.kubernetes.io/name=demo-app');
    await sandbox.release.upgrade(chartValues(sandbox.image, { ...values, operator: { logLevel: 'debug' } }));
    expect((await sandbox.release.status()).version).toBe(2);
    const deployment = await operatorDeployment(apps, release);
    expect(deployment.spec?.template.spec?.containers[0]?.args).toContain('--log-level=debug');
    await waitForRollout(
      apps,
      { name: deployment.metadata?.name ?? '', namespace: release.namespace },
      90_000,
    );
    await waitFor(async () => (await operatorPods(core)).length === 1, {
      timeoutMs: 60_000,
      intervalMs: 250,
      message: 'the old operator Pod to be gone',
    });
    const [current] = await operatorPods(core);
    expect(current?.metadata?.uid).not.toBe(old?.metadata?.uid);
    const { ready } = await sandbox.waitUntilReady({ timeoutMs: 60_000 });
    expect(ready).toBe(true);
    const demoAfter = await apps.readNamespacedDeployment({ name: 'demo-app', namespace: sandbox.namespace });
    expect(demoAfter.metadata?.generation).toBe(demo.metadata?.generation);
    const podsAfter = await livePods(core, sandbox.namespace, 'app.kubernetes.io/name=demo-app');
    expect(podsAfter.map((pod) => pod.metadata?.uid)).toEqual(demoPods.map((pod) => pod.metadata?.uid));
  }, 150_000);

  it('leaves none of the release objects on helm uninstall, and keeps the CRDs', async () => {
    await sandbox.release.uninstall();
    await waitFor(
      async () => (await core.listNamespacedPod({ namespace: release.namespace })).items.length === 0,
      {
        timeoutMs: 60_000,
        intervalMs: 250,
        message: 'the operator Pods to be gone',
      },
    );
    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    const left = [
      ...(await apps.listNamespacedDeployment({ namespace: release.namespace })).items,
      ...(await apps.listNamespacedReplicaSet({ namespace: release.namespace })).items,
      ...(await core.listNamespacedService({ namespace: release.namespace })).items,
      ...(await core.listNamespacedSecret({ namespace: release.namespace })).items,
      ...(await core.listNamespacedServiceAccount({ namespace: release.namespace })).items.filter(
        (sa) => sa.metadata?.name !== 'default',
      ),
      ...(await rbac.listClusterRole({ labelSelector: instance })).items,
      ...(await rbac.listClusterRoleBinding({ labelSelector: instance })).items,
      ...(await rbac.listRoleBindingForAllNamespaces({ labelSelector: instance })).items,
      ...(await rbac.listRoleForAllNamespaces({ labelSelector: instance })).items,
    ].map((obj) => obj.metadata?.name);
    expect(left).toEqual([]);
    const crds = (await kc.makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition()).items
      .map((crd) => crd.spec.group)
      .filter((crdGroup) => crdGroup === group);
    expect(crds).toHaveLength(allKinds.length);
  }, 90_000);

  it('leaves the machine clean when stopped', async () => {
    await sandbox.stop();
    expect(existsSync(sandbox.plane.dir)).toBe(false);
    const { stdout } = await execFileAsync('ip', ['-j', 'link', 'show']);
    expect((JSON.parse(stdout) as { ifname: string }[]).map((link) => link.ifname)).not.toContain('coffer0');
  }, 60_000);
});
