/**
 * When an Integration that exists and matches its spec is still not Ready: the service kept the
 * credentials out of the integration's auth record, or it reports the last sync as failed (only
 * for an active integration). The messages name record ids and the service's sync message, never
 * credential values.
 */
import type { NotReady } from '../../managed/external-client.ts';
import type { IntegrationStatusFields } from './mapping.ts';
import { integrationReasons } from './reasons.ts';

/** Ready reason when the service did not store the credentials in the integration's record. */
export const CREDENTIALS_NOT_APPLIED = integrationReasons.names.CredentialsNotApplied;
/** Ready reason when the service reports the integration's last sync as failed. */
export const SYNC_FAILED = integrationReasons.names.SyncFailed;

/** Why the integration with `status` is not Ready, or undefined when nothing stands in the way. */
export function integrationNotReady(status: IntegrationStatusFields | undefined): NotReady | undefined {
  if (status?.credentialsApplied === false) {
    return {
      reason: CREDENTIALS_NOT_APPLIED,
      message:
        `the service stored the credentials in a new auth record instead of record ${status.integrationAuthId ?? ''} ` +
        'that this integration uses (an integration cannot move to another record); the new record was removed. ' +
        'Update the credentials in the service, or re-create the integration there and adopt it',
    };
  }
  if (status?.isActive === true && status.isSynced === false) {
    return {
      reason: SYNC_FAILED,
      message: `the service reports that the last sync failed: ${status.syncMessage ?? 'no message'}`,
    };
  }
  return undefined;
}
