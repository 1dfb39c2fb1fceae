/**
 * ProjectRole: a custom role in a project, on the generic managed reconciler. Identity
 * memberships may grant it by slug or through `projectRoleRef` (the Identity kind's side).
 */
import { projectRoleKind, type ProjectRoleSpec } from '../../api/v1alpha1/index.ts';
import type { KindController } from '../kind-controller.ts';
import { projectRoleAdapter, type ProjectRoleRefs } from './adapter.ts';
import type { ProjectRoleStatusFields } from './mapping.ts';

export const projectRoleController: KindController<
  ProjectRoleSpec,
  ProjectRoleRefs,
  ProjectRoleStatusFields
> = {
  definition: projectRoleKind,
  createAdapter: projectRoleAdapter,
  // The Project becoming Ready lets a waiting role be created at once.
  dependencies: (obj) => [{ kind: 'Project', name: obj.spec.projectRef.name }],
};
