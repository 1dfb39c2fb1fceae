/**
 * Reasons of Integration.
 * Declared once with their class; see src/runtime/reasons.ts.
 */
import { declareReasons } from '../../runtime/reasons.ts';

export const integrationReasons = declareReasons('Integration', {
  IntegrationsDeprecated: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'The service no longer creates native integrations of this kind.',
  },
  AmbiguousNaturalKey: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'Several integrations match integration, environment and path; name the right one by id.',
  },
  CredentialsNotApplied: {
    class: 'terminal',
    conditions: ['Ready'],
    description: 'The service stored the credentials in a new auth record this integration cannot use.',
  },
  SyncFailed: {
    class: 'terminal',
    conditions: ['Ready'],
    description: 'The service reports that the last sync of the integration failed.',
  },
});
