/**
 * The operator's RBAC from the kind registry, in the two places it is installed from:
 * - charts/coffer/templates/_rbac-rules.tpl: named templates with the rules of each role, which
 *   templates/rbac.yaml includes (cluster-wide mode; namespaced mode's cluster part, per-namespace
 *   part and `default`-namespace events; leader election);
 * - config/rbac/role.yaml and leader_election_role.yaml, the kustomize base's roles.
 * test/integration/rbac.test.ts proves every rule is needed; kustomize.test.ts that both agree.
 */
import { kindRegistry } from '../../src/controllers/registry.ts';
import { everyKindRbac, leaderElectionRbac } from '../../src/controllers/rbac-needs.ts';
import { cofferResources, cofferRules, needRules, type Rule } from './rbac-rules.ts';
import { generatedFrom, type GeneratedFile, type Generator } from './types.ts';

const source = 'the kind registry (src/controllers/registry.ts)';

const quoted = (items: readonly string[]): string => `[${items.map((item) => `'${item}'`).join(', ')}]`;

/** YAML of a rules list, each line prefixed with `indent`. */
export function renderRules(rules: readonly Rule[], indent = ''): string {
  const lines = rules.flatMap((rule) => [
    ...rule.comment.map((line) => `# ${line}`),
    `- apiGroups: ${quoted(rule.apiGroups)}`,
    ...(rule.resources.length === 1
      ? [`  resources: ${quoted(rule.resources)}`]
      : ['  resources:', ...rule.resources.map((resource) => `    - ${resource}`)]),
    `  verbs: ${quoted(rule.verbs)}`,
  ]);
  return lines.map((line) => `${indent}${line}\n`).join('');
}

/** The rules of each role the chart renders. */
export function roleRules(): Record<string, Rule[]> {
  const clusterScoped = kindRegistry.filter((k) => k.definition.scope === 'Cluster');
  const namespaced = kindRegistry.filter((k) => k.definition.scope === 'Namespaced');
  const namespacedNeeds = needRules(kindRegistry, everyKindRbac, false);
  const clusterNeeds = needRules(kindRegistry, everyKindRbac, true);
  return {
    clusterWide: [...cofferRules(cofferResources(kindRegistry)), ...namespacedNeeds, ...clusterNeeds],
    clusterPart: [...cofferRules(cofferResources(clusterScoped)), ...clusterNeeds],
    perNamespace: [...cofferRules(cofferResources(namespaced)), ...namespacedNeeds],
    clusterEvents: needRules([], everyKindRbac, false),
    leaderElection: needRules([], leaderElectionRbac, false),
  };
}

const templateDocs: Record<string, string> = {
  clusterWide: 'Everything, in the ClusterRole of cluster-wide mode (watchNamespaces empty).',
  clusterPart: 'Namespaced mode: what is cluster-scoped by nature, in a ClusterRole.',
  perNamespace: 'Namespaced mode: everything namespaced, in a Role per watched namespace.',
  clusterEvents:
    'Namespaced mode: Events about cluster-scoped objects, recorded in the "default" namespace as\n' +
    'Kubernetes does for objects without a namespace.',
  leaderElection: 'Leader election, in a Role in the Lease’s namespace.',
};

function chartTemplate(rules: Record<string, Rule[]>): GeneratedFile {
  const blocks = Object.entries(rules).map(
    ([name, list]) =>
      `{{/*\n${templateDocs[name] ?? name}\n*/}}\n{{- define "coffer.rules.${name}" -}}\n` +
      `${renderRules(list).trimEnd()}\n{{- end }}\n`,
  );
  return {
    path: 'charts/coffer/templates/_rbac-rules.tpl',
    content: `{{/* ${generatedFrom(source)} */}}\n${blocks.join('\n')}`,
  };
}

interface KustomizeRole {
  readonly path: string;
  readonly kind: 'ClusterRole' | 'Role';
  readonly name: string;
  readonly about: string;
}

function kustomizeRole(role: KustomizeRole, rules: readonly Rule[]): GeneratedFile {
  return {
    path: role.path,
    content:
      `# ${generatedFrom(source)}\n# ${role.about}\n` +
      `apiVersion: rbac.authorization.k8s.io/v1\nkind: ${role.kind}\nmetadata:\n  name: ${role.name}\n` +
      `rules:\n${renderRules(rules, '  ')}`,
  };
}

export const rbacGenerator: Generator = {
  name: 'rbac',
  generate: () => {
    const rules = roleRules();
    return {
      files: [
        chartTemplate(rules),
        kustomizeRole(
          {
            path: 'config/rbac/role.yaml',
            kind: 'ClusterRole',
            name: 'coffer-manager',
            about: 'The operator’s cluster-wide permissions (the chart’s cluster-wide mode).',
          },
          rules['clusterWide'] ?? [],
        ),
        kustomizeRole(
          {
            path: 'config/rbac/leader_election_role.yaml',
            kind: 'Role',
            name: 'coffer-leader-election',
            about: 'Leader election, in the operator’s namespace only.',
          },
          rules['leaderElection'] ?? [],
        ),
      ],
    };
  },
};
