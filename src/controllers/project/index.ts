/**
 * Project: a service project (workspace) with its environments, on the generic managed
 * reconciler. Default deletion policy Orphan (deleting a project destroys its secrets).
 */
import { projectKind, type ProjectSpec } from '../../api/v1alpha1/index.ts';
import type { KindController } from '../kind-controller.ts';
import { connectionReference, type KindRegistration, type ReferenceDeclaration } from '../registration.ts';
import { projectAdapter, type ProjectRefs } from './adapter.ts';
import type { ProjectStatusFields } from './mapping.ts';
import { projectReasons } from './reasons.ts';

/** The coffer.dev objects this kind's spec names. */
const references: readonly ReferenceDeclaration[] = [
  connectionReference,
  {
    path: 'spec.templateRef',
    kinds: ['ProjectTemplate'],
    needs: 'Ready',
    watch: true,
    purpose: 'the template the project is created from',
  },
];

export const projectController: KindController<ProjectSpec, ProjectRefs, ProjectStatusFields> = {
  definition: projectKind,
  createAdapter: projectAdapter,
};

export const projectRegistration: KindRegistration = {
  definition: projectController.definition,
  runtime: { reconciler: 'managed', controller: projectController },
  references,
  rbac: [],
  reasons: projectReasons,
  sample: 'config/samples/project.yaml',
  docPage: 'docs/kinds/project.md',
  summary: 'A project and its environments.',
};
