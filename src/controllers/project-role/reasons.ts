/**
 * Reasons of ProjectRole.
 * Declared once with their class; see src/runtime/reasons.ts.
 */
import { declareReasons } from '../../runtime/reasons.ts';

export const projectRoleReasons = declareReasons('ProjectRole', {
  RoleInUse: {
    class: 'waiting',
    conditions: ['Synced'],
    description: 'Deleting: memberships still use the role; retried until they are gone.',
  },
});
