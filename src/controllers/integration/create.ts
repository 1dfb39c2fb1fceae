/**
 * Creating a native integration: store the credentials, then `POST /api/v1/integration` with the
 * auth record. The service now refuses that create with 403 and points to Secret Syncs; this is
 * reported as `IntegrationsDeprecated`, terminal (no retry until the resource changes), and a
 * credentials record the attempt created is removed again.
 *
 * The refusal stands for the generation it was reported for (`standingRefusal`): the create's own
 * annotation writes (create-pending set and cleared) trigger another reconcile, which must not ask
 * the service again. A new generation or a `coffer.dev/reconcile-requested-at` request retries.
 */
import type { IntegrationSpec } from '../../api/v1alpha1/index.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import { CONDITION_SYNCED, getCondition } from '../../runtime/conditions.ts';
import { isSecretSyncRefusal, type Integration, type ServiceClient } from '../../client/index.ts';
import { describeError } from '../../managed/service-errors.ts';
import { TerminalError } from '../../runtime/errors.ts';
import {
  ANNOTATION_EXTERNAL_ID,
  ANNOTATION_RECONCILE_REQUESTED_AT,
  getAnnotation,
} from '../../runtime/object-meta.ts';
import { deleteAuthRecord, storeCredentials } from './auth-records.ts';
import type { Credentials } from './credentials.ts';
import { createRequest } from './mapping.ts';
import { integrationReasons } from './reasons.ts';

/** Condition reason when the service no longer creates native integrations. */
export const INTEGRATIONS_DEPRECATED = integrationReasons.names.IntegrationsDeprecated;

const advice =
  `; adopt an existing integration with the ${ANNOTATION_EXTERNAL_ID} annotation, or move to the ` +
  'service’s Secret Syncs';

/** Creates the integration with freshly stored credentials; see the module comment. */
export async function createIntegration(
  client: ServiceClient,
  spec: IntegrationSpec,
  target: { projectId: string; credentials: Credentials },
  signal: AbortSignal,
): Promise<Integration> {
  const stored = await storeCredentials(client, spec, target, signal);
  try {
    return await client.integrations.create(createRequest(spec, stored.id), { signal });
  } catch (error) {
    // Best effort: the create's own error is what the resource must report.
    if (stored.created) await deleteAuthRecord(client, stored.id, signal).catch(() => undefined);
    if (!isSecretSyncRefusal(error)) throw error;
    throw new TerminalError(
      INTEGRATIONS_DEPRECATED,
      `cannot create integration: ${describeError(error)}${advice}`,
      { cause: error },
    );
  }
}

/**
 * The refusal recorded in `Synced` for the current generation, unless a reconcile was requested
 * since: then the create is not attempted again.
 */
export function standingRefusal(obj: ManagedObject<IntegrationSpec>): TerminalError | undefined {
  const synced = getCondition(obj.status?.conditions, CONDITION_SYNCED);
  if (synced?.status !== 'False' || synced.reason !== INTEGRATIONS_DEPRECATED) return undefined;
  if (synced.observedGeneration !== obj.metadata.generation) return undefined;
  const requested = getAnnotation(obj, ANNOTATION_RECONCILE_REQUESTED_AT);
  if (requested !== undefined && requested !== obj.status?.lastHandledReconcileAt) return undefined;
  return new TerminalError(INTEGRATIONS_DEPRECATED, synced.message);
}
