/**
 * Reasons of Connection and ClusterConnection (both run the same sync).
 * Declared once with their class; see src/runtime/reasons.ts.
 */
import { declareReasons } from '../../runtime/reasons.ts';

export const connectionReasons = declareReasons('Connection', {
  InvalidCredentials: {
    class: 'terminal',
    conditions: ['Ready', 'Synced'],
    description: 'The service rejected the credentials; fix the Secret or the auth settings.',
  },
});
