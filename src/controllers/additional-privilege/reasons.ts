/**
 * Reasons of AdditionalPrivilege.
 * Declared once with their class; see src/runtime/reasons.ts.
 */
import { declareReasons } from '../../runtime/reasons.ts';

export const additionalPrivilegeReasons = declareReasons('AdditionalPrivilege', {
  MembershipMissing: {
    class: 'waiting',
    conditions: ['Synced'],
    description: 'The identity is not (yet) a member of the project in the service.',
  },
  NotYetActive: {
    class: 'waiting',
    conditions: ['Ready'],
    description: 'The temporary window has not started yet.',
  },
  Expired: {
    class: 'terminal',
    conditions: ['Ready'],
    description: 'The temporary window ended; set renew: true (or change the spec) for a fresh one.',
  },
});
