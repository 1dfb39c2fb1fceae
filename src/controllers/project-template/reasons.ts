/**
 * Reasons of ProjectTemplate.
 * Declared once with their class; see src/runtime/reasons.ts.
 */
import { declareReasons } from '../../runtime/reasons.ts';

export const projectTemplateReasons = declareReasons('ProjectTemplate', {
  TypeMismatch: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'The template found has another type, which the service cannot change.',
    remedy: 'Point `coffer.dev/external-id` at the right object, or fix the spec.',
  },
});
