/**
 * The operator's memory tuning (src/runtime/process-tuning.ts: `NODE_OPTIONS` and
 * `GLIBC_TUNABLES`) written where the operator is deployed from: the image's `ENV` (Dockerfile),
 * the Helm chart's `runtimeTuning` values and kustomize's manager Deployment, each in a region
 * between `# generated:process-tuning` and `# /generated:process-tuning` comment lines.
 */
import { tuningEnv } from '../../src/runtime/process-tuning.ts';
import type { GeneratedRegion, Generator } from './types.ts';

const name = 'process-tuning';
const source = 'src/runtime/process-tuning.ts';

/** The Dockerfile's `ENV` lines. */
export function dockerfileRegion(): string {
  const env = tuningEnv();
  return [
    `# Memory tuning of the operator (${source}, written by \`npm run generate\`).`,
    `ENV NODE_OPTIONS="${env.NODE_OPTIONS}" \\`,
    `    GLIBC_TUNABLES="${env.GLIBC_TUNABLES}"`,
    '',
  ].join('\n');
}

/** The chart values' `runtimeTuning` key with its documentation comment. */
export function chartValuesRegion(): string {
  const env = tuningEnv();
  return [
    '# -- Environment of the operator container that tunes its memory: V8 flags (NODE_OPTIONS) and',
    '# glibc malloc tunables (GLIBC_TUNABLES), as `npm run bench` measures them and the image sets',
    `# them (${source}, written here by \`npm run generate\`). An empty value leaves the`,
    '# variable unset. Change --max-old-space-size (the V8 heap limit) with `resources.limits.memory`.',
    'runtimeTuning:',
    `  NODE_OPTIONS: ${env.NODE_OPTIONS}`,
    `  GLIBC_TUNABLES: ${env.GLIBC_TUNABLES}`,
    '',
  ].join('\n');
}

/**
 * The manager container's environment entries in kustomize's Deployment, by name (the order the
 * chart's template renders its `runtimeTuning` map in).
 */
export function kustomizeRegion(): string {
  const indent = ' '.repeat(12);
  const entries = Object.entries(tuningEnv()).sort(([a], [b]) => (a < b ? -1 : 1));
  return [
    `${indent}# Memory tuning (${source}, written by \`npm run generate\`).`,
    ...entries.flatMap(([key, value]) => [`${indent}- name: ${key}`, `${indent}  value: ${value}`]),
    '',
  ].join('\n');
}

const regions: readonly GeneratedRegion[] = [
  { path: 'Dockerfile', name, content: dockerfileRegion() },
  { path: 'charts/coffer/values.yaml', name, content: chartValuesRegion() },
  { path: 'config/manager/manager.yaml', name, content: kustomizeRegion() },
];

export const processTuningGenerator: Generator = { name, generate: () => ({ regions }) };
