/**
 * config/samples/kustomization.yaml from the kind registry: every kind's sample in registry
 * (dependency) order, except those whose registration says why it is left out.
 */
import { kindRegistry } from '../../src/controllers/registry.ts';
import { generatedFrom, type Generator } from './types.ts';

const dir = 'config/samples/';

/** The kustomization's text. */
export function samplesKustomization(): string {
  const listed = kindRegistry.filter((kind) => kind.sampleLeftOut === undefined);
  const leftOut = kindRegistry.filter((kind) => kind.sampleLeftOut !== undefined);
  const relative = (path: string) => (path.startsWith(dir) ? path.slice(dir.length) : path);
  return [
    `# ${generatedFrom('the kind registry (src/controllers/registry.ts)')}`,
    '# The samples `coffer sandbox` applies once the Connection "coffer" exists. Apply them yourself with:',
    '#   kubectl apply -n default -k config/samples',
    '# Not listed:',
    ...leftOut.map((kind) => `#   ${relative(kind.sample)}: ${kind.sampleLeftOut ?? ''}`),
    'apiVersion: kustomize.config.k8s.io/v1beta1',
    'kind: Kustomization',
    'resources:',
    ...listed.map((kind) => `  - ${relative(kind.sample)}`),
    '',
  ].join('\n');
}

export const samplesGenerator: Generator = {
  name: 'samples',
  generate: () => ({ files: [{ path: `${dir}kustomization.yaml`, content: samplesKustomization() }] }),
};
