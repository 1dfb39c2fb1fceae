/**
 * AdditionalPrivilege: extra permissions of an Identity in a Project, permanent or temporary, on
 * the generic managed reconciler.
 */
import { additionalPrivilegeKind, type AdditionalPrivilegeSpec } from '../../api/v1alpha1/index.ts';
import type { KindController } from '../kind-controller.ts';
import { additionalPrivilegeAdapter } from './adapter.ts';
import type { PrivilegeStatusFields } from './mapping.ts';
import type { PrivilegeRefs } from './references.ts';

export const additionalPrivilegeController: KindController<
  AdditionalPrivilegeSpec,
  PrivilegeRefs,
  PrivilegeStatusFields
> = {
  definition: additionalPrivilegeKind,
  createAdapter: additionalPrivilegeAdapter,
  // The Identity (with its memberships) or the Project becoming Ready reconciles at once.
  dependencies: (obj) => [
    { kind: 'Identity', name: obj.spec.identityRef.name },
    { kind: 'Project', name: obj.spec.projectRef.name },
  ],
};
