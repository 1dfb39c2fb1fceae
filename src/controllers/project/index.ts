/**
 * Project: a service project (workspace) with its environments, on the generic managed
 * reconciler. Default deletion policy Orphan (deleting a project destroys its secrets).
 */
import { projectKind, type ProjectSpec } from '../../api/v1alpha1/index.ts';
import type { KindController } from '../kind-controller.ts';
import { projectAdapter, type ProjectRefs } from './adapter.ts';
import type { ProjectStatusFields } from './mapping.ts';

export const projectController: KindController<ProjectSpec, ProjectRefs, ProjectStatusFields> = {
  definition: projectKind,
  createAdapter: projectAdapter,
  // A ProjectTemplate becoming Ready lets a waiting Project be created at once.
  dependencies: (obj) =>
    obj.spec.templateRef ? [{ kind: 'ProjectTemplate', name: obj.spec.templateRef.name }] : [],
};
