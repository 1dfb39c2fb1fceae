/**
 * Reasons of WorkloadSecret.
 * Declared once with their class; see src/runtime/reasons.ts. A key that is not a valid Secret key
 * (`InvalidKey`) and content over 1 MiB (`TooLarge`) use the generic reasons.
 */
import { declareReasons } from '../../runtime/reasons.ts';

export const workloadSecretReasons = declareReasons('WorkloadSecret', {
  SourceNotFound: {
    class: 'waiting',
    conditions: ['Synced'],
    description:
      'A source names a project, environment or folder that does not exist (yet); nothing is delivered and an ' +
      'existing target is left as it is.',
  },
  TemplateError: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'A template does not parse or render; the message gives the key, line and column.',
  },
  TargetConflict: {
    class: 'terminal',
    conditions: ['Synced'],
    description:
      'A target Secret or ConfigMap exists and was not created by this WorkloadSecret; it is never modified.',
    remedy: 'Delete or rename the object, or set spec.target.adoptExisting: true to take it over.',
  },
});
