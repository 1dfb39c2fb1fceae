/**
 * CRDs from the kind registry: crds/<plural>.coffer.dev.yaml with crds/kustomization.yaml (which
 * config/crd builds on) and the Helm chart's templates/crds/ (src/api/crd/render.ts).
 */
import { buildAllCrds } from '../../src/api/crd/build.ts';
import { generatedDirs, renderCrdFiles } from '../../src/api/crd/render.ts';
import { kindDefinitions } from '../../src/controllers/registry.ts';
import type { Generator } from './types.ts';

export const crdsGenerator: Generator = {
  name: 'crds',
  generate: () => ({
    files: [...renderCrdFiles(buildAllCrds(kindDefinitions))].map(([path, content]) => ({ path, content })),
    ownedDirs: generatedDirs,
  }),
};
