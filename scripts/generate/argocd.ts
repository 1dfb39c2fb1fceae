/**
 * Generates the Argo CD health checks of every kind from its declared reasons (the generic tables
 * of src/controllers/reasons.ts plus the table the kind's registration names): config/argocd/coffer.dev_<Kind>/
 * health.lua — a per-kind table reason → class, then the shared body in argocd/health-body.lua —
 * and the kustomization that merges them into argocd-cm. Verdicts (in order): paused →
 * Suspended; no conditions or an old observedGeneration → Progressing; a terminal reason on
 * Synced or Ready → Degraded (also while being deleted); an unknown Synced=False reason →
 * Degraded; any other Synced=False → Progressing; Ready=True → Healthy; anything else →
 * Progressing.
 */
import { readFileSync } from 'node:fs';
import { kindReasonTables, reasonsOfKind } from '../../src/controllers/reasons.ts';
import { kindRegistry } from '../../src/controllers/registry.ts';
import { generatedNotice, type GeneratedFile, type Generator } from './types.ts';

const dir = 'config/argocd';
const body = readFileSync(new URL('./argocd/health-body.lua', import.meta.url), 'utf8');

/** The kinds in alphabetical order (stable file and kustomization order). */
function kindNames(): string[] {
  const names = kindRegistry.map((registration) => registration.definition.kind).sort();
  for (const name of names) {
    if (!Object.hasOwn(kindReasonTables, name))
      throw new Error(`cannot generate ${name}: it has no reason table`);
  }
  return names;
}

/** The health.lua of `kind`: header, reason table, shared body. */
export function healthLua(kind: string): string {
  const rows = reasonsOfKind(kind)
    .filter((reason) => reason.conditions.length > 0)
    .sort((a, b) => a.name.localeCompare(b.name));
  const table = rows.map((reason) => `  ${reason.name} = "${reason.class}",`).join('\n');
  return [
    `-- ${generatedNotice}`,
    `-- Argo CD health check for coffer.dev/${kind}, from the reasons declared in`,
    "-- the generic reason tables and the kind's own (src/controllers/reasons.ts).",
    "-- Written for Argo CD's Lua 5.1 VM (gopher-lua); runs in Lua 5.4 too.",
    `local kind = "${kind}"`,
    '',
    '-- Every reason the operator can set on Ready or Synced, with its class.',
    'local classes = {',
    table,
    '}',
    '',
    body,
  ].join('\n');
}

function kustomization(kinds: readonly string[]): string {
  const files = kinds.map(
    (kind) => `      - resource.customizations.health.coffer.dev_${kind}=coffer.dev_${kind}/health.lua`,
  );
  return [
    `# ${generatedNotice}`,
    '# Argo CD health checks for every coffer.dev kind, as the argocd-cm keys Argo CD reads:',
    '#   kubectl kustomize config/argocd | kubectl apply --server-side --field-manager=coffer -n argocd -f -',
    '# Server-side apply merges only these keys into an existing argocd-cm. See docs/gitops.md.',
    'apiVersion: kustomize.config.k8s.io/v1beta1',
    'kind: Kustomization',
    'namespace: argocd',
    'generatorOptions:',
    '  disableNameSuffixHash: true',
    '  labels:',
    '    app.kubernetes.io/part-of: argocd',
    'configMapGenerator:',
    '  - name: argocd-cm',
    '    files:',
    ...files,
    '',
  ].join('\n');
}

/** The health check files and the kustomization. */
export function argocdFiles(): GeneratedFile[] {
  const kinds = kindNames();
  return [
    ...kinds.map((kind) => ({ path: `${dir}/coffer.dev_${kind}/health.lua`, content: healthLua(kind) })),
    { path: `${dir}/kustomization.yaml`, content: kustomization(kinds) },
  ];
}

export const argocdGenerator: Generator = {
  name: 'argocd',
  generate: () => ({ files: argocdFiles(), ownedDirs: [dir] }),
};
