/**
 * Reasons of Identity.
 * Declared once with their class; see src/runtime/reasons.ts.
 */
import { declareReasons } from '../../runtime/reasons.ts';

export const identityReasons = declareReasons('Identity', {
  InvalidReference: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'A projectRoleRef names a ProjectRole of another project.',
  },
  UnknownRole: {
    class: 'waiting',
    conditions: ['Synced'],
    description: 'A membership names a role slug the project does not have (yet).',
  },
  OrganizationUnknown: {
    class: 'waiting',
    conditions: ['Synced'],
    description: 'The Connection does not report its organization id yet.',
  },
  AmbiguousName: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'Several identities of the organization have this name; name the right one by id.',
  },
});
