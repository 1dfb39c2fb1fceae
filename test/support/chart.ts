/**
 * Renders the Helm chart (`charts/coffer`) with the cached helm binary, for tests and the
 * benchmark that run the operator as the chart deploys it: its ServiceAccount, (Cluster)Roles and
 * bindings, and its container args.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { locateBinaries, readPinnedVersions } from './control-plane-binaries.ts';

const chartDir = join(import.meta.dirname, '..', '..', 'charts', 'coffer');

/** The kinds that make up the chart's RBAC. */
export const rbacKinds: ReadonlySet<string> = new Set([
  'ServiceAccount',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
]);

/**
 * `helm template` of the chart as release `release` in `namespace`, with `crds.install=false` and
 * each of `sets` (`key=value`) applied. Throws with helm's message when helm is missing or fails.
 */
export function renderChart(
  release: string,
  namespace: string,
  sets: readonly string[] = [],
): KubernetesObject[] {
  const helm = locateBinaries().helm;
  if (!helm) throw new Error('cannot render the chart: helm not found; run `npm run control-plane:install`');
  // A private helm home: nothing is read from or written to the user's helm configuration.
  const home = mkdtempSync(join(tmpdir(), 'coffer-helm-'));
  try {
    const args = ['template', release, chartDir, '-n', namespace];
    args.push('--kube-version', readPinnedVersions().kubernetes);
    for (const set of ['crds.install=false', ...sets]) args.push('--set', set);
    const env = { ...process.env, HELM_CACHE_HOME: home, HELM_CONFIG_HOME: home, HELM_DATA_HOME: home };
    const result = spawnSync(helm, args, { encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 });
    if (result.error) throw new Error(`cannot run helm: ${result.error.message}`, { cause: result.error });
    if (result.status !== 0) throw new Error(`cannot render the chart: ${result.stderr}`);
    return parseAllDocuments(result.stdout)
      .map((doc) => doc.toJS() as KubernetesObject | null)
      .filter((obj): obj is KubernetesObject => obj !== null);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** The chart's RBAC objects (ServiceAccount, roles, bindings) rendered with `sets`. */
export function renderChartRbac(
  release: string,
  namespace: string,
  sets: readonly string[] = [],
): KubernetesObject[] {
  return renderChart(release, namespace, sets).filter((obj) => rbacKinds.has(obj.kind ?? ''));
}
