/**
 * The operator installed on the control plane's node the way a user installs it: the image
 * imported into the node's containerd (never pulled), `helm install` of `charts/coffer` with the
 * image set to it and `pullPolicy: Never`, then the wait for the operator Deployment's rollout
 * (its Pods Ready by the chart's own probes, as the chart's non-root, read-only-root user).
 */
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api, type KubeConfig, type V1Deployment } from '@kubernetes/client-node';
import { defaultControllers } from '../control-plane/controller-manager.ts';
import type { LocalNode } from '../control-plane/node/node.ts';
import { HelmRelease } from './helm.ts';
import { importImage as importArchive, type OperatorImage } from '../image/image.ts';
import { imageValues } from './operator-image.ts';
import { waitForRollout } from './workloads.ts';

/**
 * kube-controller-manager's controllers a cluster running the chart and the samples needs: the
 * defaults (namespaces, garbage collection, token Secrets), the node lifecycle controller (it lifts
 * the node's not-ready taint), Deployments and ReplicaSets, the `default` ServiceAccounts, the
 * `kube-root-ca.crt` ConfigMap projected token volumes mount, and EndpointSlices of Services.
 */
export const nodeInstallControllers: readonly string[] = [
  ...defaultControllers,
  'node-lifecycle-controller',
  'deployment-controller',
  'replicaset-controller',
  'serviceaccount-controller',
  'root-ca-certificate-publisher-controller',
  'endpointslice-controller',
];

/**
 * kube-apiserver flags for the same: the ServiceAccount admission plugin (Pods get their
 * ServiceAccount's token and the cluster CA mounted) beside the node's NodeRestriction.
 */
export const nodeInstallApiServerArgs: readonly string[] = [
  '--enable-admission-plugins=NodeRestriction,ServiceAccount',
];

/** Release name and namespace `coffer sandbox --node` installs the chart as. */
export const defaultRelease = { name: 'coffer', namespace: 'coffer-system' } as const;

/** Imports the image archive into the node's containerd (namespace `k8s.io`, where the kubelet looks). */
export function importImage(node: LocalNode, archive: string): Promise<void> {
  return importArchive(archive, join(node.dir, 'containerd.sock'));
}

/** The chart values for `image`: the chart's defaults otherwise, plus `extra` (merged one level deep). */
export function chartValues(
  image: Pick<OperatorImage, 'reference'>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const { image: extraImage, ...rest } = extra;
  return { image: { ...imageValues(image.reference), ...(extraImage as object | undefined) }, ...rest };
}

/** An installed release and its operator Deployment. */
export interface InstalledOperator {
  readonly release: HelmRelease;
  readonly deployment: V1Deployment;
}

/** Options of {@link installOperator}. */
export interface InstallOptions {
  readonly kubeConfig: KubeConfig;
  readonly kubeconfigPath: string;
  readonly helm: string;
  readonly image: Pick<OperatorImage, 'reference'>;
  /** Chart values besides the image (default: none, the chart's defaults). */
  readonly values?: Record<string, unknown>;
  readonly release?: { readonly name: string; readonly namespace: string };
  /** How long the operator's rollout may take (default 120 s). */
  readonly timeoutMs?: number;
}

/** The operator Deployment of `release` (selected by the chart's instance label). */
export async function operatorDeployment(
  apps: AppsV1Api,
  release: { readonly name: string; readonly namespace: string },
): Promise<V1Deployment> {
  const list = await apps.listNamespacedDeployment({
    namespace: release.namespace,
    labelSelector: `app.kubernetes.io/instance=${release.name}`,
  });
  const [deployment, ...more] = list.items;
  if (!deployment || more.length > 0)
    throw new Error(
      `cannot find the operator deployment of release ${release.name}: ${list.items.length} found`,
    );
  return deployment;
}

/**
 * `helm install`s the chart with `options.image` (imported beforehand with {@link importImage})
 * and resolves once the operator Deployment is rolled out. The release is returned for upgrades
 * and uninstall; its private helm home is removed by `release.close()`.
 */
export async function installOperator(options: InstallOptions): Promise<InstalledOperator> {
  const where = options.release ?? defaultRelease;
  const release = new HelmRelease({
    helm: options.helm,
    kubeconfig: options.kubeconfigPath,
    name: where.name,
    namespace: where.namespace,
  });
  try {
    await release.install(chartValues(options.image, options.values));
    const apps = options.kubeConfig.makeApiClient(AppsV1Api);
    const name = (await operatorDeployment(apps, where)).metadata?.name ?? where.name;
    const core = options.kubeConfig.makeApiClient(CoreV1Api);
    const timeoutMs = options.timeoutMs ?? 120_000;
    const deployment = await waitForRollout(apps, { namespace: where.namespace, name }, timeoutMs, core);
    return { release, deployment };
  } catch (error) {
    release.close();
    throw error;
  }
}
