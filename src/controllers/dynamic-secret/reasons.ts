/**
 * Reasons of DynamicSecret.
 * Declared once with their class; see src/runtime/reasons.ts.
 */
import { declareReasons } from '../../runtime/reasons.ts';

export const dynamicSecretReasons = declareReasons('DynamicSecret', {
  AdapterNotWritten: {
    class: 'terminal',
    conditions: ['Synced'],
    description:
      'The DynamicSecret adapter does not talk to the service yet (src/controllers/dynamic-secret/adapter.ts).',
  },
});
