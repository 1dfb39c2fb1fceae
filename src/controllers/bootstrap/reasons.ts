/**
 * Reasons of Bootstrap.
 * Declared once with their class; see src/runtime/reasons.ts.
 */
import { declareReasons } from '../../runtime/reasons.ts';

export const bootstrapReasons = declareReasons('Bootstrap', {
  AlreadyBootstrapped: {
    class: 'terminal',
    conditions: ['Ready', 'Synced'],
    description:
      'The service says the instance is already set up (by someone else, or earlier with the output Secret since deleted).',
    remedy: 'The token cannot be recovered: use a Connection with existing credentials.',
  },
  ConnectionNotOwned: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'A Connection with the output name exists and is not owned by this Bootstrap.',
  },
});
