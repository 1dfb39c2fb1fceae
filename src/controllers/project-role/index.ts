/**
 * ProjectRole: a custom role in a project, on the generic managed reconciler. Identity
 * memberships may grant it by slug or through `projectRoleRef` (the Identity kind's side).
 */
import { projectRoleKind, type ProjectRoleSpec } from '../../api/v1alpha1/index.ts';
import type { KindController } from '../kind-controller.ts';
import { connectionReference, type KindRegistration, type ReferenceDeclaration } from '../registration.ts';
import { projectRoleAdapter } from './adapter.ts';
import type { ProjectRoleStatusFields } from './mapping.ts';
import type { ProjectRoleRefs } from './references.ts';
import { projectRoleReasons } from './reasons.ts';

/** The coffer.dev objects this kind's spec names. */
const references: readonly ReferenceDeclaration[] = [
  connectionReference,
  {
    path: 'spec.projectRef',
    kinds: ['Project'],
    needs: 'Ready',
    watch: true,
    purpose: 'the project the role belongs to',
  },
];

export const projectRoleController: KindController<
  ProjectRoleSpec,
  ProjectRoleRefs,
  ProjectRoleStatusFields
> = {
  definition: projectRoleKind,
  createAdapter: projectRoleAdapter,
};

export const projectRoleRegistration: KindRegistration = {
  definition: projectRoleController.definition,
  runtime: { reconciler: 'managed', controller: projectRoleController },
  references,
  rbac: [],
  reasons: projectRoleReasons,
  sample: 'config/samples/project-role.yaml',
  docPage: 'docs/kinds/project-role.md',
  summary: 'A custom role in a project.',
};
