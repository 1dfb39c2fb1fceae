/**
 * Reasons of WorkloadSecret.
 * Declared once with their class; see src/runtime/reasons.ts. A key that is not a valid Secret key
 * (`InvalidKey`), content over 1 MiB (`TooLarge`) and a Secret type whose required keys are not
 * delivered (`InvalidSpec`) use the generic reasons.
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
    description:
      'A template does not parse or render, or meets a limit (time, memory, output size); the message gives the ' +
      'key, line and column, never a value.',
  },
  TargetConflict: {
    class: 'terminal',
    conditions: ['Synced'],
    description:
      'A target Secret or ConfigMap exists and was not created by this WorkloadSecret; it is never modified, ' +
      'and no other target is written either.',
    remedy:
      'Delete or rename the object; or, to let this WorkloadSecret take it over, whoever may write the object ' +
      'annotates it `coffer.dev/adopt-by: WorkloadSecret/<name>` and the WorkloadSecret sets ' +
      '`spec.target.adoptExisting: true`.',
  },
  InvalidValue: {
    class: 'terminal',
    conditions: ['Synced'],
    description:
      'A value cannot be delivered exactly: it is not well-formed Unicode (a lone UTF-16 surrogate), or a ' +
      'docker config key of a Secret of that type is not a JSON object; the message names the key, never ' +
      'the value. Nothing is written.',
    remedy: 'Fix the value in the service, or leave the key out with the source’s exclude.',
  },
  LeaseNotRenewed: {
    class: 'waiting',
    conditions: ['Synced'],
    description:
      'A lease of a dynamicSecret source could not be renewed, replaced or revoked because the service did not ' +
      'answer (unreachable, 5xx, timeout); the current lease and the target are kept until it expires, never ' +
      'emptied, and the attempt is retried with backoff. The message names the lease and its expiry.',
  },
});
