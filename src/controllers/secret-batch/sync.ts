/**
 * The write path of a SecretBatch: create missing folders (when allowed), one batch update for
 * every key that differs (creates under upsert, renames with `newSecretName`), one batch delete
 * for owned keys that left the spec (deletion policy Delete), and the status that results.
 */
import type { SecretBatchSpec } from '../../api/v1alpha1/index.ts';
import { ApprovalRequiredError, isInvalid, type Secret, type ServiceClient } from '../../client/index.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import { rfc3339 } from '../../runtime/conditions.ts';
import { TerminalError, WaitingError } from '../../runtime/errors.ts';
import { createOrReadFolder, folderNotFound, listFolder, type FolderContents } from './folder.ts';
import {
  ownedKeysOf,
  type BatchScope,
  type DesiredSecret,
  type OwnedKey,
  type SecretBatchStatusFields,
} from './mapping.ts';
import { ownedAfter, planBatch, type Plan, type PlanInput } from './plan.ts';
import { secretBatchReasons } from './reasons.ts';

/** Requeue while keys are missing under failOnNotFound, or the folder may not be created. */
export const WAIT_REQUEUE_MS = 60_000;

/** The resource, the folder it writes into, and the client of its connection. */
export interface SyncTarget {
  readonly client: ServiceClient;
  readonly obj: ManagedObject<SecretBatchSpec>;
  readonly scope: BatchScope;
}

/** What observe saw: the folder (undefined when missing) and the desired keys. */
export interface Snapshot {
  readonly current: ReadonlyMap<string, Secret> | undefined;
  readonly desired: readonly DesiredSecret[];
}

/**
 * Told of a write before it is sent (the keys it writes, renames or deletes), and again when it
 * failed: the project event hub then takes the write's echo for what it is (see `OwnWrites`).
 */
export interface OwnWriteNotice {
  expect(keys: readonly string[]): void;
  forget(): void;
}

/** Every key a plan's writes touch: written, renamed from and to, and deleted. */
export function keysWritten(plan: Plan): string[] {
  const written = plan.writes.flatMap((w) =>
    w.newSecretName ? [w.secretKey, w.newSecretName] : [w.secretKey],
  );
  return [...written, ...plan.deletes];
}

/** The plan input for `obj` against `current`. */
export function planInput(
  obj: ManagedObject<SecretBatchSpec>,
  desired: readonly DesiredSecret[],
  current: ReadonlyMap<string, Secret>,
): PlanInput {
  return {
    desired,
    current,
    owned: ownedKeysOf(obj.status),
    mode: obj.spec.mode,
    prune: obj.spec.deletionPolicy !== 'Orphan',
    salt: obj.metadata.uid ?? `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`,
  };
}

function driftCorrectionsOf(obj: ManagedObject<SecretBatchSpec>): number {
  const value = obj.status?.driftCorrections;
  return typeof value === 'number' ? value : 0;
}

/** Adapter status fields from the owned keys; counters and times carried over. */
export function statusFields(
  obj: ManagedObject<SecretBatchSpec>,
  owned: readonly OwnedKey[],
  extra: Partial<SecretBatchStatusFields> = {},
): SecretBatchStatusFields {
  const lastSync = obj.status?.lastSyncTime;
  return {
    ownedKeys: [...owned],
    ownedKeyCount: owned.length,
    driftCorrections: driftCorrectionsOf(obj),
    ...(typeof lastSync === 'string' ? { lastSyncTime: lastSync } : {}),
    ...extra,
  };
}

function missingError(scope: BatchScope, missing: readonly string[]): WaitingError {
  return new WaitingError(
    secretBatchReasons.names.SecretsNotFound,
    `cannot update secrets in ${scope.environment}:${scope.secretPath}: ${missing.join(', ')} ` +
      'do not exist and mode is failOnNotFound (create them in the service or use mode upsert)',
    WAIT_REQUEUE_MS,
  );
}

async function write(
  client: ServiceClient,
  scope: BatchScope,
  plan: Plan,
  options: WriteOptions,
): Promise<Secret[]> {
  const where = {
    workspaceId: scope.projectId,
    environment: scope.environment,
    secretPath: scope.secretPath,
  };
  let written: Secret[] = [];
  const keys = keysWritten(plan);
  if (keys.length > 0) options.notice?.expect(keys);
  try {
    if (plan.writes.length > 0) {
      const body = { ...where, mode: options.mode, secrets: [...plan.writes] };
      written = await client.secrets.batchUpdate(body, { signal: options.signal });
    }
    if (plan.deletes.length > 0) {
      const secrets = plan.deletes.map((secretKey) => ({ secretKey }));
      await client.secrets.batchDelete({ ...where, secrets }, { signal: options.signal });
    }
  } catch (error) {
    options.notice?.forget();
    if (!(error instanceof ApprovalRequiredError)) throw error;
    throw new TerminalError(
      secretBatchReasons.names.ApprovalRequired,
      `cannot write secrets in ${scope.environment}:${scope.secretPath}: an approval policy covers the folder and ` +
        `the write became change request ${error.approvalId}; approve it in the service`,
      { cause: error },
    );
  }
  return written;
}

/** The folder's secrets, creating the folder path first when it is missing and allowed. */
async function folderContents(
  target: SyncTarget,
  snapshot: Snapshot,
  signal: AbortSignal,
): Promise<FolderContents> {
  const { client, obj, scope } = target;
  if (snapshot.current) return { fresh: false, current: snapshot.current };
  if (!obj.spec.createFolders) throw folderNotFound(scope, WAIT_REQUEUE_MS);
  return createOrReadFolder(client, scope, signal);
}

interface WriteOptions {
  readonly mode: 'upsert' | 'failOnNotFound';
  readonly signal: AbortSignal;
  readonly notice?: OwnWriteNotice | undefined;
}

/**
 * The writes of a plan into a folder this reconcile just created, as one batch create: create
 * never replaces a key, so should anything have been written into the folder since (or a service
 * release answer a create of an existing folder with that folder), the service refuses the whole
 * batch (400) instead of overwriting a key Coffer does not own. Undefined when refused.
 */
async function createInFreshFolder(
  client: ServiceClient,
  scope: BatchScope,
  plan: Plan,
  options: WriteOptions,
): Promise<Secret[] | undefined> {
  const secrets = plan.writes.map(({ newSecretName: _rename, secretValue, ...item }) => ({
    ...item,
    secretValue: secretValue ?? '',
  }));
  if (secrets.length === 0) return [];
  options.notice?.expect(keysWritten(plan));
  try {
    const where = {
      workspaceId: scope.projectId,
      environment: scope.environment,
      secretPath: scope.secretPath,
    };
    return await client.secrets.batchCreate({ ...where, secrets }, { signal: options.signal });
  } catch (error) {
    options.notice?.forget();
    if (isInvalid(error)) return undefined;
    throw error;
  }
}

function checkedPlan(input: PlanInput, scope: BatchScope): Plan {
  const plan = planBatch(input);
  if (plan.missing.length > 0) throw missingError(scope, plan.missing);
  return plan;
}

/**
 * Writes what differs and returns the plan input and plan it wrote with, and what the service
 * answered: into a folder just created by one batch create (see `createInFreshFolder`), else — or
 * when that was refused, after listing the folder — by a batch update and a batch delete.
 */
async function writeFolder(
  target: SyncTarget,
  snapshot: Snapshot,
  folder: FolderContents,
  options: WriteOptions,
): Promise<{ input: PlanInput; plan: Plan; written: Secret[] }> {
  const { client, obj, scope } = target;
  const input = planInput(obj, snapshot.desired, folder.current);
  const plan = checkedPlan(input, scope);
  if (folder.fresh && options.mode === 'upsert') {
    const written = await createInFreshFolder(client, scope, plan, options);
    if (written) return { input, plan, written };
    const current = (await listFolder(client, scope, options.signal)) ?? new Map<string, Secret>();
    return writeFolder(target, snapshot, { fresh: false, current }, options);
  }
  return { input, plan, written: await write(client, scope, plan, options) };
}

/** Brings the folder in line with the spec; returns the resulting status fields. */
export async function syncBatch(
  target: SyncTarget,
  snapshot: Snapshot,
  context: {
    signal: AbortSignal;
    now: Date;
    extra: Partial<SecretBatchStatusFields>;
    notice?: OwnWriteNotice | undefined;
  },
): Promise<SecretBatchStatusFields> {
  const { obj } = target;
  const folder = await folderContents(target, snapshot, context.signal);
  const options = { mode: obj.spec.mode, signal: context.signal, notice: context.notice };
  const { input, plan, written } = await writeFolder(target, snapshot, folder, options);
  const wrote = plan.writes.length > 0 || plan.deletes.length > 0;
  return statusFields(obj, ownedAfter(input, written), {
    driftCorrections: driftCorrectionsOf(obj) + plan.drifted.length,
    ...(wrote ? { lastSyncTime: rfc3339(context.now) } : {}),
    ...context.extra,
  });
}
