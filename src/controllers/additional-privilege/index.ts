/**
 * AdditionalPrivilege: extra permissions of an Identity in a Project, permanent or temporary, on
 * the generic managed reconciler.
 */
import { additionalPrivilegeKind, type AdditionalPrivilegeSpec } from '../../api/v1alpha1/index.ts';
import type { KindController } from '../kind-controller.ts';
import { connectionReference, type KindRegistration, type ReferenceDeclaration } from '../registration.ts';
import { additionalPrivilegeAdapter } from './adapter.ts';
import type { PrivilegeStatusFields } from './mapping.ts';
import type { PrivilegeRefs } from './references.ts';
import { additionalPrivilegeReasons } from './reasons.ts';

/** The coffer.dev objects this kind's spec names. */
const references: readonly ReferenceDeclaration[] = [
  connectionReference,
  {
    path: 'spec.identityRef',
    kinds: ['Identity'],
    needs: 'Ready',
    watch: true,
    purpose: 'the identity given the privilege (a member of the project)',
  },
  {
    path: 'spec.projectRef',
    kinds: ['Project'],
    needs: 'Ready',
    watch: true,
    purpose: 'the project the privilege applies in',
  },
];

export const additionalPrivilegeController: KindController<
  AdditionalPrivilegeSpec,
  PrivilegeRefs,
  PrivilegeStatusFields
> = {
  definition: additionalPrivilegeKind,
  createAdapter: additionalPrivilegeAdapter,
};

export const additionalPrivilegeRegistration: KindRegistration = {
  definition: additionalPrivilegeController.definition,
  runtime: { reconciler: 'managed', controller: additionalPrivilegeController },
  references,
  rbac: [],
  reasons: additionalPrivilegeReasons,
  sample: 'config/samples/additional-privilege.yaml',
  docPage: 'docs/kinds/additional-privilege.md',
  summary: 'Extra (optionally temporary) permissions of an identity in a project.',
};
