/**
 * RBAC rules from the kind registry: the coffer.dev rules every kind gets (read, watch and patch
 * the resource; patch its status; update its finalizers) and the kinds' declared needs, merged
 * into one rule per API group and resource with the verbs united. Pure data; `rbac.ts` renders it.
 */
import type { KindRegistration, RbacNeed } from '../../src/controllers/registration.ts';
import { rbacVerbs } from '../../src/controllers/registration.ts';
import { resourceNotes } from '../../src/controllers/rbac-needs.ts';

/** A PolicyRule with the comment lines rendered above it. */
export interface Rule {
  readonly comment: readonly string[];
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

/** A need with the kinds that declared it. */
interface Attributed {
  readonly need: RbacNeed;
  readonly kinds: readonly string[];
}

/** Plural resource names of `kinds`: cluster-scoped first, then namespaced, each sorted. */
export function cofferResources(kinds: readonly KindRegistration[]): string[] {
  const plurals = (scope: string) =>
    kinds
      .filter((k) => k.definition.scope === scope)
      .map((k) => k.definition.plural)
      .sort();
  return [...plurals('Cluster'), ...plurals('Namespaced')];
}

/** The rules every kind gets on its own resource, for `resources` (plural names). */
export function cofferRules(resources: readonly string[]): Rule[] {
  if (resources.length === 0) return [];
  const group = ['coffer.dev'];
  return [
    {
      comment: [
        'Read and watch every resource to reconcile it; patch to add and remove the coffer.dev/finalizer',
        '(coffer.dev/dependents on connections, held while resources using them may need them) and to',
        'record the coffer.dev/external-id and create-pending annotations (always JSON/merge patches,',
        'never a full update). No delete: these objects belong to their users.',
      ],
      apiGroups: group,
      resources,
      verbs: ['get', 'list', 'watch', 'patch'],
    },
    {
      comment: [
        'Status subresource: the Ready/Synced conditions, observedGeneration and outputs (merge patches',
        'only, written when something changed).',
      ],
      apiGroups: group,
      resources: resources.map((r) => `${r}/status`),
      verbs: ['patch'],
    },
    {
      comment: [
        'Finalizers subresource: published Secrets carry an owner reference with blockOwnerDeletion,',
        'which the OwnerReferencesPermissionEnforcement admission plugin (on in OpenShift and some',
        'hardened clusters) only allows to those who may update the owner’s finalizers.',
      ],
      apiGroups: group,
      resources: resources.map((r) => `${r}/finalizers`),
      verbs: ['update'],
    },
  ];
}

function attributed(kinds: readonly KindRegistration[], extra: readonly RbacNeed[]): Attributed[] {
  return [
    ...kinds.flatMap((k) => k.rbac.map((need) => ({ need, kinds: [k.definition.kind] }))),
    ...extra.map((need) => ({ need, kinds: [] })),
  ];
}

/** `text` broken into lines of at most `width` characters (at spaces); later lines get `indent`. */
export function wrap(text: string, width: number, indent = ''): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent + word;
    } else line = line ? `${line} ${word}` : word;
  }
  return line ? [...lines, line] : lines;
}

function mergedComment(resource: string, group: Attributed[]): string[] {
  const byWhy = new Map<string, string[]>();
  for (const { need, kinds } of group) byWhy.set(need.why, [...(byWhy.get(need.why) ?? []), ...kinds]);
  const apiGroup = group[0]?.need.apiGroup ?? '';
  const note = resourceNotes[resource];
  const title = `${resource}${apiGroup ? ` (${apiGroup})` : ''}:${note ? ` ${note}` : ''}`;
  return [
    ...wrap(title, 96),
    ...[...byWhy].flatMap(([why, kinds]) =>
      wrap(`- ${kinds.length > 0 ? `${kinds.join(', ')}: ` : ''}${why}.`, 96, '  '),
    ),
  ];
}

/**
 * One rule per API group and resource from the kinds' needs (and `extra`, needed for every
 * kind), coffer.dev resources first; `clusterScoped` picks the needs on cluster-scoped resources
 * or those on namespaced ones.
 */
export function needRules(
  kinds: readonly KindRegistration[],
  extra: readonly RbacNeed[],
  clusterScoped: boolean,
): Rule[] {
  const groups = new Map<string, Attributed[]>();
  for (const item of attributed(kinds, extra)) {
    if ((item.need.clusterScoped ?? false) !== clusterScoped) continue;
    const key = `${item.need.apiGroup}|${item.need.resource}`;
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  const ordered = [...groups.values()].sort(
    (a, b) => Number(a[0]?.need.apiGroup !== 'coffer.dev') - Number(b[0]?.need.apiGroup !== 'coffer.dev'),
  );
  return ordered.map((group) => {
    const first = group[0]?.need;
    const verbs = new Set(group.flatMap((item) => item.need.verbs));
    return {
      comment: mergedComment(first?.resource ?? '', group),
      apiGroups: [first?.apiGroup ?? ''],
      resources: [first?.resource ?? ''],
      verbs: rbacVerbs.filter((verb) => verbs.has(verb)),
    };
  });
}
