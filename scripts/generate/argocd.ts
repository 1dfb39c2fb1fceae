/**
 * Generates the Argo CD health checks of every kind from its declared reasons (the generic tables
 * of src/controllers/reasons.ts plus the table the kind's registration names), in Argo CD's own
 * layout: resource_customizations/coffer.dev/<Kind>/health.lua — a per-kind table reason → class,
 * then the shared body in argocd/health-body.lua. Beside each, health_test.yaml and testdata/ are
 * captured from live objects by the integration tests (`npm run capture:argocd`), not generated.
 * The same scripts go into config/argocd/argocd-cm.yaml as the argocd-cm keys
 * `resource.customizations.health.coffer.dev_<Kind>`.
 *
 * Verdicts (in order): paused → Suspended; no conditions or an old observedGeneration →
 * Progressing; a terminal reason on Synced or Ready → Degraded (also while being deleted); an
 * unknown Synced=False reason → Degraded; any other Synced=False → Progressing; Ready=True →
 * Healthy; anything else → Progressing.
 */
import { readFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { kindReasonTables, reasonsOfKind } from '../../src/controllers/reasons.ts';
import { kindRegistry } from '../../src/controllers/registry.ts';
import { generatedNotice, type GeneratedFile, type Generator } from './types.ts';

/** Argo CD's folder of health checks for the coffer.dev group. */
export const customizationsDir = 'resource_customizations/coffer.dev';
const configDir = 'config/argocd';
const body = readFileSync(new URL('./argocd/health-body.lua', import.meta.url), 'utf8');

/** The kinds in alphabetical order (stable file and key order). */
function kindNames(): string[] {
  const names = kindRegistry.map((registration) => registration.definition.kind).sort();
  for (const name of names) {
    if (!Object.hasOwn(kindReasonTables, name))
      throw new Error(`cannot generate ${name}: it has no reason table`);
  }
  return names;
}

/** The path of `kind`'s health.lua. */
export function healthLuaPath(kind: string): string {
  return `${customizationsDir}/${kind}/health.lua`;
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

/** The argocd-cm key Argo CD reads `kind`'s health check from. */
export function argocdCmKey(kind: string): string {
  return `resource.customizations.health.coffer.dev_${kind}`;
}

/** The argocd-cm ConfigMap carrying every health check, ready for server-side apply. */
function argocdCm(kinds: readonly string[]): string {
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'argocd-cm',
      namespace: 'argocd',
      labels: { 'app.kubernetes.io/part-of': 'argocd' },
    },
    data: Object.fromEntries(kinds.map((kind) => [argocdCmKey(kind), healthLua(kind)])),
  };
  return [
    `# ${generatedNotice}`,
    `# The health checks of ${customizationsDir}/<Kind>/health.lua as the argocd-cm keys Argo CD reads:`,
    '#   kubectl apply --server-side --field-manager=coffer -f config/argocd/argocd-cm.yaml',
    '# Server-side apply merges only these keys into an existing argocd-cm. See docs/gitops.md.',
    stringify(configMap, { lineWidth: 0, blockQuote: 'literal' }),
  ].join('\n');
}

function kustomization(): string {
  return [
    `# ${generatedNotice}`,
    '# The argocd-cm keys of the coffer.dev health checks, for kustomize users:',
    '#   kubectl kustomize config/argocd | kubectl apply --server-side --field-manager=coffer -f -',
    'apiVersion: kustomize.config.k8s.io/v1beta1',
    'kind: Kustomization',
    'resources:',
    '  - argocd-cm.yaml',
    '',
  ].join('\n');
}

/** The health checks, the argocd-cm that carries them and its kustomization. */
export function argocdFiles(): GeneratedFile[] {
  const kinds = kindNames();
  return [
    ...kinds.map((kind) => ({ path: healthLuaPath(kind), content: healthLua(kind) })),
    { path: `${configDir}/argocd-cm.yaml`, content: argocdCm(kinds) },
    { path: `${configDir}/kustomization.yaml`, content: kustomization() },
  ];
}

export const argocdGenerator: Generator = {
  name: 'argocd',
  generate: () => ({ files: argocdFiles(), ownedDirs: [configDir] }),
};
