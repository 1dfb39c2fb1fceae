/**
 * ProjectTemplate: an organization-wide project template (cluster-scoped, on a
 * ClusterConnection), on the generic managed reconciler. Projects refer to it with
 * `templateRef` (the Project kind's side).
 */
import { projectTemplateKind, type ProjectTemplateSpec } from '../../api/v1alpha1/index.ts';
import type { KindController } from '../kind-controller.ts';
import { projectTemplateAdapter } from './adapter.ts';
import type { ProjectTemplateStatusFields } from './mapping.ts';

export const projectTemplateController: KindController<
  ProjectTemplateSpec,
  undefined,
  ProjectTemplateStatusFields
> = {
  definition: projectTemplateKind,
  createAdapter: projectTemplateAdapter,
};
