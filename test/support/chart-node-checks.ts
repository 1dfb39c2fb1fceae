/**
 * The checks of the chart on a node (test/integration/e2e-chart-node.test.ts) that leave the
 * operator's leader alone, so that they run while the file waits for the kubelet to rotate a
 * projected token: the image imported into the node, never pulled; the operator Pods Ready as the
 * non-root user on a read-only root with no capabilities; only the release's ServiceAccount and
 * RBAC; every sample Ready and the demo Deployment's Pod running; a WorkloadSecret change replacing
 * that Pod exactly once. `chartNodeChecks` registers them as tests of the calling `describe`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  PatchStrategy,
  setHeaderOptions,
  type AppsV1Api,
  type CoreV1Api,
  type CustomObjectsApi,
  type KubeConfig,
} from '@kubernetes/client-node';
import { expect, it } from 'vitest';
import { group, version } from '../../src/api/v1alpha1/index.ts';
import { operatorDeployment } from '../../src/sandbox/node-install/install.ts';
import type { NodeSandbox } from '../../src/sandbox/node-install/start.ts';
import { rolledOut, waitForRollout } from '../../src/sandbox/node-install/workloads.ts';
import { allSettled } from '../../src/sandbox/status.ts';
import { ctr, hostPid, livePods, processFacts } from './node-host.ts';
import { leaseOf, operatorPods, type ReleaseRef } from './node-operator.ts';
import { bindingsOf } from './node-release.ts';
import { waitFor } from './wait-for.ts';

const execFileAsync = promisify(execFile);

/** The running chart on the node, filled in by the file's first tests. */
export interface ChartOnNode {
  sandbox: NodeSandbox;
  kc: KubeConfig;
  core: CoreV1Api;
  apps: AppsV1Api;
  custom: CustomObjectsApi;
  /** The node's directory (its containerd socket). */
  nodeDir: string;
  readonly release: ReleaseRef;
  /** The operator's leader-election Lease. */
  readonly lease: { readonly name: string; readonly namespace: string };
}

/** Registers the checks of the module comment, run against `on` once it is filled in. */
export function chartNodeChecks(on: ChartOnNode): void {
  it('installs the release with the image imported into the node, never pulled', async () => {
    const status = await on.sandbox.release.status();
    expect(status.info?.status).toBe('deployed');
    const deployment = await operatorDeployment(on.apps, on.release);
    const container = deployment.spec?.template.spec?.containers[0];
    expect(container?.image).toBe(on.sandbox.image.reference);
    expect(container?.imagePullPolicy).toBe('Never');
    const [pod] = await operatorPods(on.core, on.release);
    expect(pod?.status?.containerStatuses?.[0]?.image).toBe(on.sandbox.image.reference);
    // The node's containerd holds the image under that name with the digest the build produced.
    const row = (await ctr(on.nodeDir, 'images', 'ls'))
      .split('\n')
      .find((line) => line.startsWith(`${on.sandbox.image.reference} `));
    expect(row?.split(/\s+/)).toContain(on.sandbox.image.digest);
  });

  it('runs the operator Pods Ready, as the non-root user on a read-only root with no capabilities', async () => {
    const pods = await operatorPods(on.core, on.release);
    expect(pods).toHaveLength(2);
    for (const pod of pods) {
      expect(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
      const pid = await hostPid(on.nodeDir, pod.status?.containerStatuses?.[0]?.containerID ?? '');
      expect(processFacts(pid)).toEqual({
        uids: ['65532', '65532', '65532', '65532'],
        effectiveCapabilities: '0000000000000000',
        rootReadOnly: true,
      });
    }
  });

  it('runs the operator with only the ServiceAccount and RBAC of the release', async () => {
    const pods = await operatorPods(on.core, on.release);
    const account = pods[0]?.spec?.serviceAccountName ?? '';
    const sa = await on.core.readNamespacedServiceAccount({ name: account, namespace: on.release.namespace });
    expect(sa.metadata?.annotations?.['meta.helm.sh/release-name']).toBe(on.release.name);
    const bindings = await bindingsOf(on.kc, { name: account, namespace: on.release.namespace });
    expect(bindings.length).toBeGreaterThan(0);
    const foreign = bindings.filter(
      (b) => b.metadata?.annotations?.['meta.helm.sh/release-name'] !== on.release.name,
    );
    expect(foreign.map((b) => b.metadata?.name)).toEqual([]);
    // The leader's Lease names one of these Pods: the operator that reconciles.
    const { holder } = await leaseOf(on.kc, on.lease);
    expect(pods.filter((pod) => holder.includes(pod.metadata?.name ?? '-'))).toHaveLength(1);
  });

  it('gets every sample Ready through the operator, and the demo Deployment Pod running', async () => {
    const { ready, states } = await on.sandbox.waitUntilReady({ timeoutMs: 90_000 });
    expect(ready).toBe(true);
    expect(allSettled(states)).toBe(true);
    const demo = await on.apps.readNamespacedDeployment({
      name: 'demo-app',
      namespace: on.sandbox.namespace,
    });
    expect(rolledOut(demo)).toBe(true);
    const secret = await on.core.readNamespacedSecret({
      name: 'demo-app-env',
      namespace: on.sandbox.namespace,
    });
    expect(Object.keys(secret.data ?? {})).toContain('app.yaml');
    const kubeconfig = ['--kubeconfig', on.sandbox.cluster.kubeconfigPath];
    const logs = (
      await execFileAsync(on.sandbox.cluster.kubectl, [
        ...kubeconfig,
        '-n',
        on.sandbox.namespace,
        'logs',
        'deploy/demo-app',
      ])
    ).stdout;
    expect(logs).toContain('coffer-probe ready');
  }, 100_000);

  it('replaces the demo Deployment Pod exactly once when its WorkloadSecret changes', async () => {
    const where = { name: 'demo-app', namespace: on.sandbox.namespace };
    const selector = 'app.kubernetes.io/name=demo-app';
    const podUids = async () =>
      (await livePods(on.core, where.namespace, selector)).map((pod) => pod.metadata?.uid);
    const replicaSets = async () =>
      (await on.apps.listNamespacedReplicaSet({ namespace: where.namespace, labelSelector: selector })).items;
    const podsBefore = await podUids();
    expect(podsBefore).toHaveLength(1);
    expect(await replicaSets()).toHaveLength(1);
    const generation = (await on.apps.readNamespacedDeployment(where)).metadata?.generation ?? 0;

    const at = {
      group,
      version,
      plural: 'workloadsecrets',
      namespace: where.namespace,
      name: 'demo-app-env',
    };
    await on.custom.patchNamespacedCustomObject(
      { ...at, body: { spec: { template: { data: { greeting: 'hello from the node' } } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const changed = await waitFor(
      async () => {
        const secret = await on.core.readNamespacedSecret({
          name: 'demo-app-env',
          namespace: where.namespace,
        });
        return secret.data?.['greeting'];
      },
      { timeoutMs: 30_000, intervalMs: 250, message: 'the delivered Secret to carry the new key' },
    );
    expect(Buffer.from(changed, 'base64').toString()).toBe('hello from the node');
    await waitFor(
      async () => ((await on.apps.readNamespacedDeployment(where)).metadata?.generation ?? 0) > generation,
      {
        timeoutMs: 30_000,
        intervalMs: 250,
        message: 'the Deployment to be restarted',
      },
    );
    await waitForRollout(on.apps, where, 60_000);
    // The operator has settled on the change: the WorkloadSecret is Ready for its new generation.
    await waitFor(async () => allSettled(await on.sandbox.states()), {
      timeoutMs: 30_000,
      intervalMs: 250,
      message: 'every resource to be Ready and Synced',
    });
    const after = await podUids();
    expect(after).toHaveLength(1);
    expect(after).not.toContain(podsBefore[0]);
    const sets = await replicaSets();
    expect(sets).toHaveLength(2);
    expect(sets.map((set) => set.spec?.replicas ?? 0).sort()).toEqual([0, 1]);
    expect((await on.apps.readNamespacedDeployment(where)).metadata?.generation).toBe(generation + 1);
  }, 120_000);
}
