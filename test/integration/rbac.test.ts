/**
 * The chart's RBAC is sufficient and minimal. The chart is rendered with the cached helm (default
 * values, cluster-wide, leader election on), its ServiceAccount, ClusterRole, Role and bindings are
 * applied to a control plane of this test's own — started with the OwnerReferencesPermissionEnforcement
 * admission plugin that hardened clusters (OpenShift) enable — and the operator runs in-process
 * authenticated as that ServiceAccount.
 *
 * Sufficient: the main scenarios of the kinds pass (`rbac-scenarios.ts`): the operator gets ready
 * and holds the leader Lease; a Bootstrap writes its output Secret and creates its Connection, both
 * Ready; a Project and a SecretBatch get Ready and a changed source Secret reaches the service;
 * events are recorded; deleting the SecretBatch removes its finalizer and its key; a Connection logs
 * in with a requested ServiceAccount token (TokenRequest, checked by a TokenReview); a WorkloadSecret
 * delivers and restarts a Deployment that opts in by annotation.
 *
 * Minimal: for every rule of every rendered role, an operator runs as a ServiceAccount of its own
 * that the chart's bindings (copied, renamed) grant the chart's roles with that one rule removed,
 * and the scenario named in `ruleNeeds` must fail, with a 403 in the operator's log as the reason.
 * A rule with no entry in `ruleNeeds` fails the test: give it a scenario or remove it from the
 * chart. The cases share nothing (own ServiceAccount, role copy, namespace, devserver and Lease),
 * so a few run at a time.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AuthorizationV1Api,
  type KubeConfig,
  type KubernetesObject,
  type V1PolicyRule,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyObjects } from '../../src/sandbox/control-plane/cluster.ts';
import { renderChartRbac } from '../support/chart.ts';
import { startControlPlane, testFieldManager, type ControlPlane } from '../support/control-plane.ts';
import { waitFor } from '../support/kube.ts';
import { finishRun, prepareRun, runScenarios, type ScenarioName } from './rbac-scenarios.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const chartNamespace = 'coffer-system';

interface Role extends KubernetesObject {
  kind: 'ClusterRole' | 'Role';
  metadata: { name: string; namespace?: string };
  rules: V1PolicyRule[];
}

interface Binding extends KubernetesObject {
  kind: 'ClusterRoleBinding' | 'RoleBinding';
  metadata: { name: string; namespace?: string };
  roleRef: { apiGroup: string; kind: string; name: string };
  subjects: { kind: string; name: string; namespace?: string }[];
}

const has = (list: string[] | undefined, item: string) => list?.includes(item) ?? false;

/**
 * Why each rule exists: the first scenario that fails without it. Matched against the rendered
 * rules; the chart template's comment on each rule says the same in words.
 */
const ruleNeeds: { what: string; matches: (rule: V1PolicyRule) => boolean; breaks: ScenarioName }[] = [
  {
    what: 'coffer.dev kinds: informers list and watch them; finalizers and annotations are patched',
    matches: (r) => has(r.apiGroups, 'coffer.dev') && has(r.resources, 'projects'),
    breaks: 'operator ready and leading',
  },
  {
    what: 'coffer.dev status subresources: Ready/Synced conditions',
    matches: (r) => has(r.apiGroups, 'coffer.dev') && has(r.resources, 'bootstraps/status'),
    breaks: 'Bootstrap writes its Secret and Connection, both Ready',
  },
  {
    what: 'coffer.dev finalizers subresources: blockOwnerDeletion on owned Secrets and Connections',
    matches: (r) => has(r.apiGroups, 'coffer.dev') && has(r.resources, 'bootstraps/finalizers'),
    breaks: 'Bootstrap writes its Secret and Connection, both Ready',
  },
  {
    what: 'create Connections: the Bootstrap creates the Connection it produces',
    matches: (r) =>
      has(r.apiGroups, 'coffer.dev') && has(r.resources, 'connections') && has(r.verbs, 'create'),
    breaks: 'Bootstrap writes its Secret and Connection, both Ready',
  },
  {
    what: 'Secrets: informer, credentials, published Secrets',
    matches: (r) => has(r.resources, 'secrets'),
    breaks: 'operator ready and leading',
  },
  {
    what: 'ConfigMaps: informer and CA bundles',
    matches: (r) => has(r.resources, 'configmaps'),
    breaks: 'operator ready and leading',
  },
  {
    what: 'Events about the resources',
    matches: (r) => has(r.resources, 'events'),
    breaks: 'events recorded',
  },
  {
    what: 'Namespaces: informer for ClusterConnection admission',
    matches: (r) => has(r.resources, 'namespaces'),
    breaks: 'operator ready and leading',
  },
  {
    what: 'ServiceAccount tokens: TokenRequest for auth.{kubernetes,jwt,oidc}.serviceAccountToken.serviceAccountRef',
    matches: (r) => has(r.resources, 'serviceaccounts/token'),
    breaks: 'Connection logs in with a ServiceAccount token (TokenRequest, TokenReview)',
  },
  {
    what: 'TokenReviews: a ServiceAccount token the API server accepts is never sent (AudienceNotAllowed)',
    matches: (r) => has(r.apiGroups, 'authentication.k8s.io') && has(r.resources, 'tokenreviews'),
    breaks: 'Connection logs in with a ServiceAccount token (TokenRequest, TokenReview)',
  },
  {
    what: 'apps workloads: WorkloadSecret rollout restarts list them and patch the pod template',
    matches: (r) => has(r.apiGroups, 'apps'),
    breaks: 'WorkloadSecret delivers and restarts an annotated Deployment',
  },
  {
    what: 'Leases: leader election',
    matches: (r) => has(r.apiGroups, 'coordination.k8s.io') && has(r.resources, 'leases'),
    breaks: 'operator ready and leading',
  },
];

const rbac = renderChartRbac('coffer', chartNamespace, ['leaderElection.enabled=true']);
const roles = rbac.filter((o): o is Role => o.kind === 'ClusterRole' || o.kind === 'Role');
const bindings = rbac.filter(
  (o): o is Binding => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding',
);
const account = rbac.find((o) => o.kind === 'ServiceAccount')?.metadata?.name ?? '';
const cases = roles.flatMap((role) =>
  role.rules.map((rule, index) => ({
    role,
    index,
    rule,
    /** The case's ServiceAccount, role copy and binding copies are named with this. */
    tag: `${account}-${role.kind === 'Role' ? 'r' : 'c'}${index + 1}`,
    label: `${role.kind} ${role.metadata.name} rule ${index + 1}: ${(rule.resources ?? []).slice(0, 2).join(', ')}${
      (rule.resources?.length ?? 0) > 2 ? ', ...' : ''
    } [${rule.verbs.join(', ')}]`,
  })),
);

/** True when the ServiceAccount `name` may `verb` the first resource of `rule` (in `namespace`). */
async function allowed(
  admin: KubeConfig,
  rule: V1PolicyRule,
  namespace: string,
  name = account,
): Promise<boolean> {
  const [resource = '', subresource] = (rule.resources?.[0] ?? '').split('/');
  const review = await admin.makeApiClient(AuthorizationV1Api).createSubjectAccessReview({
    body: {
      spec: {
        user: `system:serviceaccount:${chartNamespace}:${name}`,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${chartNamespace}`],
        resourceAttributes: {
          group: rule.apiGroups?.[0] ?? '',
          resource,
          ...(subresource ? { subresource } : {}),
          verb: rule.verbs[0] ?? 'get',
          namespace,
        },
      },
    },
  });
  return review.status?.allowed ?? false;
}

/**
 * The chart's roles with rule `index` of `role` removed, granted to the ServiceAccount `tag` by
 * copies of the chart's bindings: every object named `<name>-<tag>`.
 */
function withoutRule(role: Role, index: number, tag: string): KubernetesObject[] {
  const renamed = (name: string) => `${name}-${tag}`;
  const without: Role = {
    ...role,
    metadata: { ...role.metadata, name: renamed(role.metadata.name) },
    rules: role.rules.filter((_, i) => i !== index),
  };
  const granting = bindings.map((b) => ({
    ...b,
    metadata: { ...b.metadata, name: renamed(b.metadata.name) },
    roleRef: {
      ...b.roleRef,
      name: b.roleRef.name === role.metadata.name ? without.metadata.name : b.roleRef.name,
    },
    subjects: [{ kind: 'ServiceAccount', name: tag, namespace: chartNamespace }],
  }));
  return [without, ...granting];
}

/** Runs `work` with at most `limit` of them at a time. */
function limiter(limit: number): <T>(work: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (work) => {
    while (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await work();
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  };
}
const oneOfFew = limiter(3);

describe('the chart’s RBAC', () => {
  let plane: ControlPlane;
  let admin: KubeConfig;
  let serviceAccount: KubeConfig;

  beforeAll(async () => {
    plane = await startControlPlane({
      apiServerArgs: ['--enable-admission-plugins=OwnerReferencesPermissionEnforcement'],
    });
    admin = plane.kubeConfig();
    const crdDir = join(repo, 'crds');
    await plane.installCRDs(
      readdirSync(crdDir)
        .filter((f) => f.endsWith('.coffer.dev.yaml'))
        .map((f) => join(crdDir, f)),
    );
    await plane.createNamespace(chartNamespace);
    await applyObjects(admin, rbac, testFieldManager);
    serviceAccount = await plane.clientForServiceAccount(chartNamespace, account);
  }, 120_000);

  afterAll(async () => {
    await plane?.stop();
  }, 30_000);

  it('renders a ClusterRole, the leader-election Role and a ServiceAccount', () => {
    expect(roles.map((r) => `${r.kind}/${r.metadata.name}`)).toEqual([
      'ClusterRole/coffer-manager',
      'Role/coffer-leader-election',
    ]);
    expect(account).toBe('coffer');
  });

  it(
    'is sufficient: the main scenarios pass as the ServiceAccount, without a 403',
    { timeout: 240_000 },
    async () => {
      const run = await prepareRun(admin, chartNamespace);
      try {
        const result = await runScenarios(run, serviceAccount, 60_000);
        expect(
          result,
          `${result?.failed}: ${result?.error.message}\n${run.logs.join('').slice(-3000)}`,
        ).toBeUndefined();
        expect(run.logs.join('')).not.toMatch(/forbidden/i);
      } finally {
        await finishRun(run);
      }
    },
  );

  describe('is minimal: without any one rule, a scenario fails with a 403', () => {
    it.for(cases)('$label', { timeout: 240_000, concurrent: true }, ({ role, index, rule, tag }) =>
      oneOfFew(async () => {
        const need = ruleNeeds.find((n) => n.matches(rule));
        expect(need, `no scenario needs this rule: remove it from the chart or add a scenario`).toBeDefined();
        const caseAccount = await plane.clientForServiceAccount(chartNamespace, tag);
        await applyObjects(admin, withoutRule(role, index, tag), testFieldManager);
        const run = await prepareRun(admin, chartNamespace, true);
        // A Role's rule is checked where it applies; a ClusterRole's in the run's namespace.
        const namespace = role.metadata.namespace ?? run.namespace;
        const others = roles.flatMap((r) =>
          r.rules
            .filter((_, i) => r !== role || i !== index)
            .map((other) => ({ other, at: r.metadata.namespace ?? run.namespace })),
        );
        try {
          // RBAC changes reach the authorizer through a watch: wait until the copies are in force
          // (every other rule granted) and the removed rule is not granted.
          await waitFor(
            async () =>
              (await Promise.all(others.map(({ other, at }) => allowed(admin, other, at, tag)))).every(
                Boolean,
              ) && !(await allowed(admin, rule, namespace, tag)),
            {
              timeoutMs: 30_000,
              message:
                'the other rules to be granted and the removed one not (still granted: another rule grants the same, so this one is redundant)',
            },
          );
          const result = await runScenarios(
            run,
            caseAccount,
            30_000,
            need && { scenario: need.breaks, timeoutMs: 4_000 },
          );
          expect(result?.failed, need?.what).toBe(need?.breaks);
          await waitFor(() => /forbidden/i.test(run.logs.join('')), {
            timeoutMs: 20_000,
            message: 'a 403 in the operator log',
          });
        } finally {
          await finishRun(run);
        }
      }),
    );
  });
});
