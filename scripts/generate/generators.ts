/**
 * The generator modules `npm run generate` runs, one line each (contract: ./types.ts). Each owns
 * its files; two modules writing the same path is an error.
 */
import { apiKindsGenerator } from './api-kinds.ts';
import { argocdGenerator } from './argocd.ts';
import { crdsGenerator } from './crds.ts';
import { fieldTablesGenerator } from './field-tables.ts';
import { processTuningGenerator } from './process-tuning.ts';
import { rbacGenerator } from './rbac.ts';
import { readmeGenerator } from './readme.ts';
import { reasonsDocsGenerator } from './reasons-docs.ts';
import { samplesGenerator } from './samples.ts';
import type { Generator } from './types.ts';

export const generators: readonly Generator[] = [
  crdsGenerator,
  rbacGenerator,
  readmeGenerator,
  argocdGenerator,
  reasonsDocsGenerator,
  apiKindsGenerator,
  samplesGenerator,
  fieldTablesGenerator,
  processTuningGenerator,
];
