/**
 * A SecretBatch's observation once its external id is recorded: it exists; it is up to date when
 * the plan against the folder changes nothing; a missing folder is drift. The status lists the
 * keys owned as things stand (nothing written yet).
 */
import type { SecretBatchSpec } from '../../api/v1alpha1/index.ts';
import type { Secret } from '../../client/index.ts';
import type { ManagedObject, Observation } from '../../managed/external-client.ts';
import type { BatchScope, SecretBatchStatusFields } from './mapping.ts';
import { describeChanges, isEmptyPlan, ownedAfter, planBatch } from './plan.ts';
import { planInput, statusFields, type Snapshot } from './sync.ts';

/** What observe read, where, and the external id it names. */
export type Seen = Snapshot & { readonly scope: BatchScope; readonly id: string };

/** The observation of `obj` from `seen`; `extra` joins the status (the hub's stream state). */
export function observationOf(
  obj: ManagedObject<SecretBatchSpec>,
  seen: Seen,
  extra: Partial<SecretBatchStatusFields>,
): Observation<SecretBatchStatusFields> {
  const input = planInput(obj, seen.desired, seen.current ?? new Map<string, Secret>());
  const status = statusFields(obj, ownedAfter(input, []), extra);
  if (!seen.current) {
    return {
      exists: true,
      upToDate: false,
      externalId: seen.id,
      status,
      diff: `folder ${seen.scope.secretPath} is missing`,
    };
  }
  const plan = planBatch(input);
  const diff = describeChanges(plan.changes);
  return {
    exists: true,
    upToDate: isEmptyPlan(plan),
    externalId: seen.id,
    status,
    ...(diff ? { diff } : {}),
  };
}
