/**
 * ProjectTemplate: an organization-wide project template (cluster-scoped, on a
 * ClusterConnection), on the generic managed reconciler. Projects refer to it with
 * `templateRef` (the Project kind's side).
 */
import { projectTemplateKind, type ProjectTemplateSpec } from '../../api/v1alpha1/index.ts';
import type { KindController } from '../kind-controller.ts';
import {
  clusterConnectionReference,
  type KindRegistration,
  type ReferenceDeclaration,
} from '../registration.ts';
import { projectTemplateAdapter } from './adapter.ts';
import type { ProjectTemplateStatusFields } from './mapping.ts';
import { projectTemplateReasons } from './reasons.ts';

/** The coffer.dev objects this kind's spec names. */
const references: readonly ReferenceDeclaration[] = [clusterConnectionReference];

export const projectTemplateController: KindController<
  ProjectTemplateSpec,
  undefined,
  ProjectTemplateStatusFields
> = {
  definition: projectTemplateKind,
  createAdapter: projectTemplateAdapter,
};

export const projectTemplateRegistration: KindRegistration = {
  definition: projectTemplateController.definition,
  runtime: { reconciler: 'managed', controller: projectTemplateController },
  references,
  rbac: [],
  reasons: projectTemplateReasons,
  sample: 'config/samples/project-template.yaml',
  docPage: 'docs/kinds/project-template.md',
  summary: 'An organization-wide project template.',
};
