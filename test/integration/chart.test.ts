/**
 * The Helm chart, validated for real: the cached `helm` (scripts/control-plane/install.sh) lints
 * and renders charts/coffer with default values and variants, the rendered objects are checked
 * for the properties the chart promises (hardened pod, probes, leader election, least-privilege
 * RBAC per mode), values.schema.json must reject bad values, and every rendered manifest goes
 * through a server-side dry-run apply on the run's real kube-apiserver.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  KubernetesObject,
  V1ClusterRole,
  V1Deployment,
  V1PolicyRule,
  V1Role,
} from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { kindRegistry } from '../../src/controllers/registry.ts';
import { tuningEnv } from '../../src/runtime/process-tuning.ts';
import { parseAllDocuments } from 'yaml';
import { locateBinaries, readPinnedVersions } from '../support/control-plane-binaries.ts';
import { clusterFromInjected } from '../support/kube.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const chartDir = join(repo, 'charts/coffer');
const kubeVersion = readPinnedVersions().kubernetes;

// Helm keeps caches and plugins under these; a private directory keeps the run hermetic.
const helmHome = mkdtempSync(join(tmpdir(), 'coffer-helm-'));
const helmEnv = {
  ...process.env,
  HELM_CACHE_HOME: join(helmHome, 'cache'),
  HELM_CONFIG_HOME: join(helmHome, 'config'),
  HELM_DATA_HOME: join(helmHome, 'data'),
};

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(binary: string | undefined, name: string, args: string[], input?: string): Run {
  if (!binary) throw new Error(`cannot run ${name}: not found; run \`npm run control-plane:install\``);
  const result = spawnSync(binary, args, {
    encoding: 'utf8',
    env: helmEnv,
    input,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw new Error(`cannot run ${binary}: ${result.error.message}`, { cause: result.error });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const binaries = locateBinaries();
const helm = (args: string[]): Run => run(binaries.helm, 'helm', args);
const kubectl = (args: string[], input?: string): Run => run(binaries.kubectl, 'kubectl', args, input);

/** `helm template` of the chart; `values` are `--set` pairs. Throws with helm's stderr on failure. */
function render(namespace: string, values: string[] = []): KubernetesObject[] {
  const args = ['template', 'coffer', chartDir, '-n', namespace, '--kube-version', kubeVersion];
  const result = helm([...args, ...values.flatMap((v) => ['--set', v])]);
  if (result.status !== 0) throw new Error(`cannot render the chart: ${result.stderr}`);
  return parseAllDocuments(result.stdout)
    .map((doc) => doc.toJS() as KubernetesObject | null)
    .filter((obj): obj is KubernetesObject => obj !== null);
}

function only<T extends KubernetesObject>(objects: KubernetesObject[], kind: string, name?: string): T {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata?.name === name));
  expect(found, `exactly one ${kind} ${name ?? ''}`).toHaveLength(1);
  return found[0] as T;
}

function operatorContainer(objects: KubernetesObject[]) {
  const deployment = only<V1Deployment>(objects, 'Deployment');
  const container = deployment.spec?.template.spec?.containers.find((c) => c.name === 'operator');
  if (!container) throw new Error('the Deployment has no operator container');
  return { deployment, container, args: container.args ?? [] };
}

const resourcesOf = (rules: V1PolicyRule[] | undefined): string[] =>
  (rules ?? []).flatMap((r) => r.resources ?? []);

/** Server-side dry-run of the manifests on the real API server; returns kubectl's result. */
function dryRunApply(objects: KubernetesObject[]): Run {
  const manifest = objects.map((o) => JSON.stringify(o)).join('\n');
  return kubectl(
    ['--kubeconfig', clusterFromInjected().kubeconfigPath, 'apply', '--dry-run=server', '-f', '-'],
    manifest,
  );
}

describe('Helm chart charts/coffer', () => {
  it('passes helm lint with default values and in namespaced mode', () => {
    for (const values of [[], ['watchNamespaces={team-a,team-b}', 'replicaCount=2']]) {
      const args = [
        'lint',
        chartDir,
        '--strict',
        '--kube-version',
        kubeVersion,
        ...values.flatMap((v) => ['--set', v]),
      ];
      const result = helm(args);
      expect(result.status, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    }
  });

  describe('default values', () => {
    let objects: KubernetesObject[];
    beforeAll(() => {
      objects = render('coffer-system');
    });

    it('runs a hardened pod: numeric non-root user, read-only root, no capabilities, seccomp', () => {
      const { deployment, container } = operatorContainer(objects);
      const pod = deployment.spec?.template.spec;
      expect(pod?.securityContext).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 65532,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(container.securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        runAsNonRoot: true,
        capabilities: { drop: ['ALL'] },
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(container.volumeMounts).toEqual([
        { name: 'tmp', mountPath: '/tmp' },
        { name: 'coffer-token', mountPath: '/var/run/secrets/coffer.dev/serviceaccount', readOnly: true },
      ]);
      expect(pod?.volumes?.[0]).toMatchObject({ name: 'tmp', emptyDir: {} });
      expect(container.resources?.requests).toMatchObject({ cpu: '50m', memory: '160Mi' });
      expect(container.resources?.limits).toMatchObject({ memory: '384Mi' });
      // The memory tuning the benchmarks measure (src/runtime/process-tuning.ts).
      const tuning = tuningEnv();
      expect(container.env).toContainEqual({ name: 'NODE_OPTIONS', value: tuning.NODE_OPTIONS });
      expect(container.env).toContainEqual({ name: 'GLIBC_TUNABLES', value: tuning.GLIBC_TUNABLES });
      expect(container.image).toBe('ghcr.io/coffer-dev/coffer:0.1.0');
    });

    it('probes /healthz and /readyz on the health port and exposes metrics', () => {
      const { container, args } = operatorContainer(objects);
      expect(container.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'health' });
      expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'health' });
      expect(container.ports).toEqual([
        { name: 'metrics', containerPort: 8080, protocol: 'TCP' },
        { name: 'health', containerPort: 8081, protocol: 'TCP' },
      ]);
      expect(args.slice(0, 4)).toEqual([
        'operator',
        '--metrics-bind-address=:8080',
        '--health-probe-bind-address=:8081',
        '--log-level=info',
      ]);
      const service = only<KubernetesObject & { spec: { ports: unknown[] } }>(
        objects,
        'Service',
        'coffer-metrics',
      );
      expect(service.spec.ports).toEqual([
        { name: 'metrics', port: 8080, targetPort: 'metrics', protocol: 'TCP' },
      ]);
      expect(objects.some((o) => o.kind === 'ServiceMonitor')).toBe(false);
    });

    it('elects a leader by default and grants Leases only in the release namespace', () => {
      const { args } = operatorContainer(objects);
      expect(args).toContain('--leader-elect');
      expect(args).toContain('--leader-election-namespace=coffer-system');
      expect(args.some((a) => a.startsWith('--namespaces'))).toBe(false);
      const role = only<V1Role>(objects, 'Role', 'coffer-leader-election');
      expect(role.metadata?.namespace).toBe('coffer-system');
      expect(role.rules).toEqual([
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
      ]);
      expect(objects.some((o) => o.kind === 'PodDisruptionBudget')).toBe(false);
    });

    it('grants cluster-wide RBAC through one ClusterRole bound to the ServiceAccount', () => {
      const role = only<V1ClusterRole>(objects, 'ClusterRole', 'coffer-manager');
      const byResource = new Map<string, string[]>();
      for (const rule of role.rules ?? [])
        for (const r of rule.resources ?? []) byResource.set(r, rule.verbs);
      expect(byResource.get('projects')).toEqual(['get', 'list', 'watch', 'patch']);
      expect(byResource.get('clusterconnections/status')).toEqual(['patch']);
      expect(byResource.get('secretbatches/finalizers')).toEqual(['update']);
      expect(byResource.get('secrets')).toEqual(['get', 'list', 'watch', 'create', 'update', 'delete']);
      // WorkloadSecret targets: Secrets and ConfigMaps it creates; rollout restarts patch workloads.
      expect(byResource.get('configmaps')).toEqual(['get', 'list', 'watch', 'create', 'update', 'delete']);
      expect(byResource.get('deployments')).toEqual(['list', 'patch']);
      expect(byResource.get('namespaces')).toEqual(['list', 'watch']);
      // Secretless login: TokenRequest for a named ServiceAccount, TokenReview for the audience guard.
      expect(byResource.get('serviceaccounts/token')).toEqual(['create']);
      expect(byResource.get('tokenreviews')).toEqual(['create']);
      const beyondKinds = ['secrets', 'configmaps', 'deployments', 'statefulsets', 'daemonsets', 'events'];
      expect(new Set(resourcesOf(role.rules).filter((r) => !r.includes('/')))).toEqual(
        new Set([
          ...kindRegistry.map((r) => r.definition.plural),
          ...beyondKinds,
          'tokenreviews',
          'namespaces',
        ]),
      );
      // No delete on coffer.dev objects, create and update only on Connections (Bootstrap), no wildcard.
      const verbs = (role.rules ?? []).flatMap((r) => r.verbs);
      expect(verbs).not.toContain('*');
      for (const rule of (role.rules ?? []).filter((r) => r.apiGroups?.includes('coffer.dev')))
        expectNarrowCofferWrites(rule);
      const binding = only<KubernetesObject & { subjects: unknown[] }>(objects, 'ClusterRoleBinding');
      expect(binding.subjects).toEqual([
        { kind: 'ServiceAccount', name: 'coffer', namespace: 'coffer-system' },
      ]);
      expect(only(objects, 'ServiceAccount').metadata?.name).toBe('coffer');
      expect(objects.filter((o) => o.kind === 'Role')).toHaveLength(1);
    });

    it('installs every CRD, kept when the release is uninstalled, and none with crds.install=false', () => {
      const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition');
      expect(crds).toHaveLength(kindRegistry.length);
      for (const crd of crds) {
        expect(crd.metadata?.name).toMatch(/\.coffer\.dev$/);
        expect(crd.metadata?.annotations?.['helm.sh/resource-policy']).toBe('keep');
      }
      const without = render('coffer-system', ['crds.install=false']);
      expect(without.some((o) => o.kind === 'CustomResourceDefinition')).toBe(false);
    });

    it('labels every object with the standard labels', () => {
      for (const obj of objects.filter((o) => o.kind !== 'CustomResourceDefinition')) {
        expect(obj.metadata?.labels, `${obj.kind}/${obj.metadata?.name}`).toMatchObject({
          'app.kubernetes.io/name': 'coffer',
          'app.kubernetes.io/instance': 'coffer',
          'app.kubernetes.io/managed-by': 'Helm',
          'helm.sh/chart': 'coffer-0.1.0',
        });
      }
    });
  });

  it('forces leader election on and adds a PodDisruptionBudget with more than one replica', () => {
    const objects = render('ops', ['replicaCount=3', 'leaderElection.enabled=false']);
    const { deployment, args } = operatorContainer(objects);
    expect(deployment.spec?.replicas).toBe(3);
    expect(args).toContain('--leader-elect');
    expect(only<KubernetesObject & { spec: unknown }>(objects, 'PodDisruptionBudget').spec).toEqual({
      minAvailable: 1,
      selector: {
        matchLabels: {
          'app.kubernetes.io/name': 'coffer',
          'app.kubernetes.io/instance': 'coffer',
          'app.kubernetes.io/component': 'operator',
        },
      },
    });
    const single = render('ops', ['leaderElection.enabled=false']);
    expect(operatorContainer(single).args).not.toContain('--leader-elect');
    expect(single.some((o) => o.kind === 'Role')).toBe(false);
  });

  it('passes tuning flags, image overrides and a ServiceMonitor through', () => {
    const objects = render('ops', [
      'operator.maxConcurrentReconciles=8',
      'operator.defaultPollInterval=5m',
      'operator.extraArgs={--graceful-shutdown-timeout=20s}',
      'image.repository=registry.example/coffer',
      'image.tag=1.2.3',
      'imagePullSecrets[0].name=regcred',
      'metrics.serviceMonitor.enabled=true',
      'runtimeTuning.GLIBC_TUNABLES=',
      'runtimeTuning.NODE_OPTIONS=--max-old-space-size=512',
    ]);
    const { deployment, container, args } = operatorContainer(objects);
    // An empty value leaves glibc's defaults: no GLIBC_TUNABLES at all.
    expect(container.env?.map((e) => e.name)).not.toContain('GLIBC_TUNABLES');
    expect(container.env).toContainEqual({ name: 'NODE_OPTIONS', value: '--max-old-space-size=512' });
    expect(args).toEqual(
      expect.arrayContaining([
        '--max-concurrent-reconciles=8',
        '--default-poll-interval=5m',
        '--graceful-shutdown-timeout=20s',
      ]),
    );
    expect(container.image).toBe('registry.example/coffer:1.2.3');
    expect(deployment.spec?.template.spec?.imagePullSecrets).toEqual([{ name: 'regcred' }]);
    expect(only(objects, 'ServiceMonitor').metadata?.namespace).toBe('ops');
  });

  it('renders Roles per watched namespace and a minimal ClusterRole in namespaced mode', () => {
    const objects = render('ops', ['watchNamespaces={team-a,team-b}']);
    expect(operatorContainer(objects).args).toContain('--namespaces=team-a,team-b');
    const roles = objects.filter(
      (o): o is V1Role => o.kind === 'Role' && o.metadata?.name === 'coffer-manager',
    );
    expect(roles.map((r) => r.metadata?.namespace).sort()).toEqual(['team-a', 'team-b']);
    for (const role of roles) {
      const resources = resourcesOf(role.rules);
      expect(resources).toEqual(
        expect.arrayContaining(['projects', 'projects/status', 'secrets', 'configmaps', 'events']),
      );
      expect(resources).not.toContain('clusterconnections');
      expect(resources).not.toContain('projecttemplates');
      expect(resources).not.toContain('namespaces');
    }
    const bindings = objects.filter((o) => o.kind === 'RoleBinding' && o.metadata?.name === 'coffer-manager');
    expect(bindings.map((b) => b.metadata?.namespace).sort()).toEqual(['team-a', 'team-b']);
    expect(objects.some((o) => o.metadata?.name === 'coffer-manager' && o.kind === 'ClusterRole')).toBe(
      false,
    );
    const clusterRole = only<V1ClusterRole>(objects, 'ClusterRole', 'coffer-cluster');
    expect(resourcesOf(clusterRole.rules).sort()).toEqual([
      'clusterconnections',
      'clusterconnections/finalizers',
      'clusterconnections/status',
      'namespaces',
      'projecttemplates',
      'projecttemplates/finalizers',
      'projecttemplates/status',
      // Cluster-scoped: the audience guard of a ClusterConnection's requested tokens.
      'tokenreviews',
    ]);
    only(objects, 'ClusterRoleBinding', 'coffer-cluster');
    // Events about cluster-scoped objects land in "default": only that is granted there.
    const events = only<V1Role>(objects, 'Role', 'coffer-cluster-events');
    expect(events.metadata?.namespace).toBe('default');
    expect(events.rules).toEqual([{ apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] }]);
    const withDefault = render('ops', ['watchNamespaces={default}']);
    expect(withDefault.some((o) => o.metadata?.name === 'coffer-cluster-events')).toBe(false);
  });

  it.each([
    { reason: 'negative replicas', set: ['replicaCount=-1'], expected: "at '/replicaCount'" },
    {
      reason: 'replicas of the wrong type',
      set: ['--set-string', 'replicaCount=two'],
      expected: "at '/replicaCount'",
    },
    { reason: 'unknown log level', set: ['operator.logLevel=loud'], expected: "at '/operator/logLevel'" },
    { reason: 'bad namespace name', set: ['watchNamespaces={Team_A}'], expected: "at '/watchNamespaces/0'" },
    {
      reason: 'unknown top-level key',
      set: ['replicas=2'],
      expected: "additional properties 'replicas' not allowed",
    },
    {
      reason: 'unknown nested key',
      set: ['operator.logLvl=debug'],
      expected: "additional properties 'logLvl' not allowed",
    },
    { reason: 'bad pull policy', set: ['image.pullPolicy=Sometimes'], expected: "at '/image/pullPolicy'" },
    { reason: 'port out of range', set: ['metrics.port=70000'], expected: "at '/metrics/port'" },
    {
      reason: 'bad duration',
      set: ['operator.defaultPollInterval=ten minutes'],
      expected: "at '/operator/defaultPollInterval'",
    },
    {
      reason: 'zero workers',
      set: ['operator.maxConcurrentReconciles=0'],
      expected: "at '/operator/maxConcurrentReconciles'",
    },
    {
      reason: 'bad Lease name',
      set: ['leaderElection.id=Coffer.Leader'],
      expected: "at '/leaderElection/id'",
    },
  ])('rejects $reason through values.schema.json', ({ set, expected }) => {
    const args = set[0] === '--set-string' ? set : set.flatMap((v) => ['--set', v]);
    for (const command of ['template', 'lint']) {
      const base = command === 'template' ? ['template', 'coffer', chartDir] : ['lint', chartDir];
      const result = helm([...base, '--kube-version', kubeVersion, ...args]);
      expect(result.status, `helm ${command} must fail`).not.toBe(0);
      const output = result.stdout + result.stderr;
      expect(output).toMatch(/values don't meet the specifications of the schema/);
      expect(output).toContain(expected);
    }
  });

  describe('server-side dry-run on the real API server', () => {
    it('accepts the default manifests (with the auth-delegator binding)', async () => {
      const cluster = clusterFromInjected();
      const namespace = await cluster.createNamespace();
      const objects = render(namespace, ['authDelegator.enabled=true']);
      const result = dryRunApply(objects);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toContain(`deployment.apps/coffer created (server dry run)`);
      expect(result.stdout).toContain(
        `clusterrolebinding.rbac.authorization.k8s.io/coffer-auth-delegator created (server dry run)`,
      );
      expect(result.stdout).toContain(
        `clusterrole.rbac.authorization.k8s.io/coffer-manager created (server dry run)`,
      );
      expect(result.stdout).toMatch(
        /customresourcedefinition\S*\/projects\.coffer\.dev (created|configured|unchanged)/,
      );
    });

    it('accepts the namespaced variant with three replicas', async () => {
      const cluster = clusterFromInjected();
      const [release, teamA, teamB] = await Promise.all([1, 2, 3].map(() => cluster.createNamespace()));
      const objects = render(release ?? '', [
        'crds.install=false',
        `watchNamespaces={${teamA},${teamB}}`,
        'replicaCount=3',
      ]);
      const result = dryRunApply(objects);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toContain(
        `role.rbac.authorization.k8s.io/coffer-manager created (server dry run)`,
      );
      expect(result.stdout).toContain(`poddisruptionbudget.policy/coffer created (server dry run)`);
    });

    it('is rejected by the API server when a manifest is wrong (the dry-run really validates)', async () => {
      const namespace = await clusterFromInjected().createNamespace();
      const objects = render(namespace, ['crds.install=false']);
      const { deployment } = operatorContainer(objects);
      const broken = structuredClone(deployment) as unknown as { spec: { replicas: unknown } };
      broken.spec.replicas = 'three';
      const result = dryRunApply([broken as unknown as KubernetesObject]);
      expect(result.status).not.toBe(0);
    });
  });
});

/**
 * No delete on coffer.dev objects; create only on Connections (the Bootstrap's); full updates only
 * where a whole object is replaced (that Connection) and on the finalizers subresource.
 */
function expectNarrowCofferWrites(rule: { resources?: string[]; verbs: string[] }): void {
  expect(rule.verbs).not.toContain('delete');
  if (rule.verbs.includes('create')) expect(rule.resources).toEqual(['connections']);
  const finalizersOnly = (rule.resources ?? []).every((r) => r.endsWith('/finalizers'));
  if (rule.verbs.includes('update') && !finalizersOnly) expect(rule.resources).toEqual(['connections']);
}
