/**
 * The kustomize bases in config/, rendered with the cached kubectl (its built-in kustomize):
 * config/default must hold the same RBAC rules and the same hardened operator pod as the Helm
 * chart with default values, and every base must pass a server-side dry-run apply on the run's
 * real kube-apiserver. config/argocd must carry exactly the tested Lua health scripts
 * (resource_customizations/coffer.dev/<Kind>/health.lua).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  KubernetesObject,
  V1ClusterRole,
  V1Container,
  V1Deployment,
  V1PolicyRule,
  V1Role,
} from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { kindRegistry } from '../../src/controllers/registry.ts';
import { parseAllDocuments } from 'yaml';
import { locateBinaries, readPinnedVersions } from '../support/control-plane-binaries.ts';
import { clusterFromInjected } from '../support/kube.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const binaries = locateBinaries();
const helmHome = mkdtempSync(join(tmpdir(), 'coffer-helm-'));

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(binary: string | undefined, args: string[], input?: string): Run {
  if (!binary) throw new Error('cannot run kubectl/helm: not found; run `npm run control-plane:install`');
  const env = {
    ...process.env,
    HELM_CACHE_HOME: helmHome,
    HELM_CONFIG_HOME: helmHome,
    HELM_DATA_HOME: helmHome,
  };
  const result = spawnSync(binary, args, { encoding: 'utf8', env, input, maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw new Error(`cannot run ${binary}: ${result.error.message}`, { cause: result.error });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function parseObjects(text: string): KubernetesObject[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as KubernetesObject | null)
    .filter((obj): obj is KubernetesObject => obj !== null);
}

/** `kubectl kustomize config/<dir>`; throws with kubectl's stderr on failure. */
function kustomize(dir: string): KubernetesObject[] {
  const result = run(binaries.kubectl, ['kustomize', join(repo, 'config', dir)]);
  if (result.status !== 0) throw new Error(`cannot render config/${dir}: ${result.stderr}`);
  return parseObjects(result.stdout);
}

/** The chart with default values, in the same namespace as config/default. */
function renderChart(): KubernetesObject[] {
  const kubeVersion = readPinnedVersions().kubernetes;
  const args = [
    'template',
    'coffer',
    join(repo, 'charts/coffer'),
    '-n',
    'coffer-system',
    '--kube-version',
    kubeVersion,
  ];
  const result = run(binaries.helm, [...args, '--set', 'crds.install=false']);
  if (result.status !== 0) throw new Error(`cannot render the chart: ${result.stderr}`);
  return parseObjects(result.stdout);
}

function find<T extends KubernetesObject>(objects: KubernetesObject[], kind: string, name: string): T {
  const found = objects.find((o) => o.kind === kind && o.metadata?.name === name);
  if (!found)
    throw new Error(
      `no ${kind} ${name} among ${objects.map((o) => `${o.kind}/${o.metadata?.name}`).join(', ')}`,
    );
  return found as T;
}

/** Rules as sorted `group|resource|verb` triples, so grouping and order do not matter. */
function permissions(rules: V1PolicyRule[] | undefined): string[] {
  const triples = (rules ?? []).flatMap((rule) =>
    (rule.apiGroups ?? []).flatMap((group) =>
      (rule.resources ?? []).flatMap((resource) => rule.verbs.map((verb) => `${group}|${resource}|${verb}`)),
    ),
  );
  return [...new Set(triples)].sort();
}

function operator(objects: KubernetesObject[]): { deployment: V1Deployment; container: V1Container } {
  const deployment = find<V1Deployment>(objects, 'Deployment', 'coffer');
  const container = deployment.spec?.template.spec?.containers.find((c) => c.name === 'operator');
  if (!container) throw new Error('the Deployment has no operator container');
  return { deployment, container };
}

/** Moves every namespaced object (and ServiceAccount subjects) from `from` into `to`. */
function relocate(objects: KubernetesObject[], from: string, to: string): KubernetesObject[] {
  return objects.map((obj) => {
    const copy = structuredClone(obj) as KubernetesObject & { subjects?: { namespace?: string }[] };
    if (copy.metadata?.namespace === from) copy.metadata.namespace = to;
    for (const subject of copy.subjects ?? []) if (subject.namespace === from) subject.namespace = to;
    return copy;
  });
}

function dryRunApply(objects: KubernetesObject[]): Run {
  const manifest = objects.map((o) => JSON.stringify(o)).join('\n');
  const args = ['--kubeconfig', clusterFromInjected().kubeconfigPath, 'apply', '--dry-run=server', '-f', '-'];
  return run(binaries.kubectl, args, manifest);
}

describe('kustomize bases in config/', () => {
  let chart: KubernetesObject[];
  let base: KubernetesObject[];
  beforeAll(() => {
    chart = renderChart();
    base = [...kustomize('rbac'), ...kustomize('manager')];
  });

  it('grants exactly the chart’s cluster-wide rules', () => {
    const fromChart = find<V1ClusterRole>(chart, 'ClusterRole', 'coffer-manager');
    const fromKustomize = find<V1ClusterRole>(base, 'ClusterRole', 'coffer-manager');
    expect(permissions(fromKustomize.rules)).toEqual(permissions(fromChart.rules));
    expect(permissions(fromKustomize.rules)).toContain('coffer.dev|projects/status|patch');
  });

  it('grants exactly the chart’s leader-election rules', () => {
    const fromChart = find<V1Role>(chart, 'Role', 'coffer-leader-election');
    const fromKustomize = find<V1Role>(base, 'Role', 'coffer-leader-election');
    expect(permissions(fromKustomize.rules)).toEqual(permissions(fromChart.rules));
  });

  it('runs the same hardened operator pod as the chart', () => {
    const a = operator(chart);
    const b = operator(base);
    for (const key of [
      'securityContext',
      'livenessProbe',
      'readinessProbe',
      'ports',
      'resources',
      'volumeMounts',
    ] as const) {
      expect(b.container[key], key).toEqual(a.container[key]);
    }
    expect(b.deployment.spec?.template.spec?.securityContext).toEqual(
      a.deployment.spec?.template.spec?.securityContext,
    );
    expect(b.deployment.spec?.template.spec?.volumes).toEqual(a.deployment.spec?.template.spec?.volumes);
    // The chart names the Lease namespace; the base lets the operator take it from POD_NAMESPACE.
    const args = (c: V1Container): string[] =>
      (c.args ?? []).filter((x) => !x.startsWith('--leader-election-namespace='));
    expect(args(b.container)).toEqual(args(a.container));
    expect(b.container.env).toEqual(a.container.env);
    expect(b.container.image).toBe(a.container.image);
  });

  it('renders config/default: CRDs, namespace coffer-system, RBAC bound to its ServiceAccount', () => {
    expect(
      existsSync(join(repo, 'crds/kustomization.yaml')),
      'crds/kustomization.yaml (written by npm run generate)',
    ).toBe(true);
    const objects = kustomize('default');
    const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition');
    expect(crds.map((c) => c.metadata?.name)).toContain('projects.coffer.dev');
    expect(crds).toHaveLength(kindRegistry.length);
    expect(find(objects, 'Namespace', 'coffer-system').metadata?.labels).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'restricted',
    });
    for (const obj of objects.filter(
      (o) =>
        !['Namespace', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding'].includes(
          o.kind ?? '',
        ),
    )) {
      expect(obj.metadata?.namespace, `${obj.kind}/${obj.metadata?.name}`).toBe('coffer-system');
    }
    const binding = find<KubernetesObject & { subjects: unknown[] }>(
      objects,
      'ClusterRoleBinding',
      'coffer-manager',
    );
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'coffer', namespace: 'coffer-system' },
    ]);
  });

  it('passes a server-side dry-run of config/default on the real API server', async () => {
    const namespace = await clusterFromInjected().createNamespace();
    const objects = relocate(kustomize('default'), 'coffer-system', namespace);
    const result = dryRunApply(objects);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('deployment.apps/coffer created (server dry run)');
    expect(result.stdout).toContain(
      'clusterrole.rbac.authorization.k8s.io/coffer-manager created (server dry run)',
    );
    expect(result.stdout).toMatch(/customresourcedefinition\.apiextensions\.k8s\.io\/projects\.coffer\.dev/);
  });

  it('generates the argocd-cm keys from the tested health scripts', async () => {
    const objects = kustomize('argocd');
    expect(objects).toHaveLength(1);
    const configMap = objects[0] as KubernetesObject & { data: Record<string, string> };
    expect(configMap.metadata).toMatchObject({ name: 'argocd-cm', namespace: 'argocd' });
    const keys = Object.keys(configMap.data);
    // One health script per kind, keyed by group_Kind as Argo CD looks it up.
    expect(keys.map((k) => k.replace('resource.customizations.health.', '')).sort()).toEqual(
      kindRegistry.map((r) => `coffer.dev_${r.definition.kind}`).sort(),
    );
    for (const key of keys) {
      const kind = key.replace('resource.customizations.health.coffer.dev_', '');
      expect(configMap.data[key]).toBe(
        readFileSync(join(repo, 'resource_customizations/coffer.dev', kind, 'health.lua'), 'utf8'),
      );
    }
    const namespace = await clusterFromInjected().createNamespace();
    const result = dryRunApply(relocate(objects, 'argocd', namespace));
    expect(result.status, result.stderr).toBe(0);
  });

  it('points the ServiceMonitor in config/prometheus at the metrics Service', () => {
    const [monitor] = kustomize('prometheus') as (KubernetesObject & {
      spec: { selector: { matchLabels: Record<string, string> }; endpoints: { port: string }[] };
    })[];
    const service = find<KubernetesObject & { spec: { ports: { name: string }[] } }>(
      base,
      'Service',
      'coffer-metrics',
    );
    expect(service.metadata?.labels).toMatchObject(
      monitor?.spec.selector.matchLabels ?? { missing: 'monitor' },
    );
    expect(service.spec.ports.map((p) => p.name)).toContain(monitor?.spec.endpoints[0]?.port);
  });
});
