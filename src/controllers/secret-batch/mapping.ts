/**
 * SecretBatch ↔ service secrets: value normalisation, the keyed value hash, the external id, the
 * batch item for one key and the per-key field comparison. Pure functions (no I/O).
 *
 * Normalisation (facts §D): the service trims every written value and keeps exactly one trailing
 * newline when the original ended with one. Comparing the raw Kubernetes value with the stored one
 * would see `"  x  "` ≠ `"x"` forever, so values are normalised before they are compared, hashed
 * and sent: the service then stores exactly what was sent, and the only way a value "differs" is
 * a real change on either side.
 */
import { createHmac } from 'node:crypto';
import type { SecretBatchStatus } from '../../api/v1alpha1/index.ts';
import type { BatchUpdateSecretsInput, Secret } from '../../client/index.ts';

/** The adapter's part of SecretBatch status. */
export type SecretBatchStatusFields = Pick<
  SecretBatchStatus,
  'ownedKeys' | 'ownedKeyCount' | 'driftCorrections' | 'lastSyncTime' | 'events'
>;

/** One owned key as status records it. */
export type OwnedKey = NonNullable<SecretBatchStatus['ownedKeys']>[number];

/** One item of the batch update request. */
export type BatchItem = BatchUpdateSecretsInput['secrets'][number];

/** One key this resource wants in the service, with its value resolved from Kubernetes. */
export interface DesiredSecret {
  readonly key: string;
  /** The value as read from the Secret or the spec literal (never logged). */
  readonly value: string;
  readonly previousKey?: string;
  readonly comment?: string;
  readonly skipMultilineEncoding?: boolean;
  readonly reminder?: { readonly note?: string; readonly repeatDays: number };
  readonly metadata?: readonly { readonly key: string; readonly value: string }[];
  readonly tagIds?: readonly string[];
}

/** Orders by key in code-unit order (the same in every locale). */
export function byKey(a: { readonly key: string }, b: { readonly key: string }): number {
  if (a.key === b.key) return 0;
  return a.key < b.key ? -1 : 1;
}

/** The service's value normalisation: trimmed, one trailing `\n` kept when there was one. */
export function normalizeValue(value: string): string {
  const trimmed = value.trim();
  return value.endsWith('\n') ? `${trimmed}\n` : trimmed;
}

function hmac(salt: string, key: string, value: string): Buffer {
  return createHmac('sha256', salt).update(key).update('\0').update(normalizeValue(value)).digest();
}

/**
 * HMAC-SHA256 of `key` and the normalised `value`, keyed with `salt` (the resource uid),
 * truncated to 128 bits and base64url-encoded (22 characters: status holds one per key, and the
 * operator caches every status). Keyed and per resource, so status reveals neither equal values
 * across resources nor a value found in a precomputed table.
 */
export function valueHash(salt: string, key: string, value: string): string {
  return hmac(salt, key, value).subarray(0, 16).toString('base64url');
}

/**
 * Whether `recorded` is the hash of this value: a `valueHash`, or the full HMAC in hex (64
 * characters) that earlier builds recorded, so an upgrade does not rewrite every value.
 */
export function hashMatches(recorded: string | undefined, salt: string, key: string, value: string): boolean {
  if (recorded === undefined) return false;
  if (recorded.length === 64) return recorded === hmac(salt, key, value).toString('hex');
  return recorded === valueHash(salt, key, value);
}

/** Where a batch writes. */
export interface BatchScope {
  readonly projectId: string;
  readonly environment: string;
  readonly secretPath: string;
}

/** `<projectId>:<environment>:<secretPath>` (ids and slugs contain no `:`). */
export function externalIdOf(scope: BatchScope): string {
  return `${scope.projectId}:${scope.environment}:${scope.secretPath}`;
}

/** Inverse of `externalIdOf`; undefined when `id` is not of that form. */
export function parseExternalId(id: string): BatchScope | undefined {
  const match = /^([^:]+):([^:]+):(\/.*)$/.exec(id);
  if (!match) return undefined;
  const [, projectId = '', environment = '', secretPath = '/'] = match;
  return { projectId, environment, secretPath };
}

/** The batch item writing `desired` (renaming `renameFrom` to its key when given). */
export function batchItem(desired: DesiredSecret, renameFrom?: string): BatchItem {
  return {
    secretKey: renameFrom ?? desired.key,
    ...(renameFrom === undefined ? {} : { newSecretName: desired.key }),
    secretValue: normalizeValue(desired.value),
    ...(desired.comment === undefined ? {} : { secretComment: desired.comment }),
    ...(desired.skipMultilineEncoding === undefined
      ? {}
      : { skipMultilineEncoding: desired.skipMultilineEncoding }),
    ...(desired.reminder === undefined
      ? {}
      : {
          secretReminderNote: desired.reminder.note ?? null,
          secretReminderRepeatDays: desired.reminder.repeatDays,
        }),
    ...(desired.metadata === undefined
      ? {}
      : { secretMetadata: desired.metadata.map((m) => ({ key: m.key, value: m.value })) }),
    ...(desired.tagIds === undefined ? {} : { tagIds: [...desired.tagIds] }),
  };
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = [...a].sort();
  const right = [...b].sort();
  return left.length === right.length && left.every((v, i) => v === right[i]);
}

function metadataEntries(list: readonly { key: string; value?: string | undefined }[]): string[] {
  return list.map((m) => JSON.stringify([m.key, m.value ?? '']));
}

function reminderDiffers(desired: DesiredSecret, current: Secret): boolean {
  const reminder = desired.reminder;
  if (reminder === undefined) return false;
  return (
    (current.secretReminderNote ?? '') !== (reminder.note ?? '') ||
    (current.secretReminderRepeatDays ?? undefined) !== reminder.repeatDays
  );
}

function metadataDiffers(desired: DesiredSecret, current: Secret): boolean {
  if (desired.metadata === undefined) return false;
  return !sameSet(metadataEntries(current.secretMetadata ?? []), metadataEntries(desired.metadata));
}

function tagsDiffer(desired: DesiredSecret, current: Secret): boolean {
  if (desired.tagIds === undefined) return false;
  return !sameSet(
    (current.tags ?? []).map((t) => t.id),
    desired.tagIds,
  );
}

function flagDiffers(desired: DesiredSecret, current: Secret): boolean {
  const wanted = desired.skipMultilineEncoding;
  return wanted !== undefined && (current.skipMultilineEncoding ?? false) !== wanted;
}

/**
 * Names of the fields other than the value that differ. Fields the spec leaves unset are not
 * compared (the service keeps them as they are), so a comment set in the service's UI on a key
 * whose spec has no comment is not drift.
 */
export function fieldDifferences(desired: DesiredSecret, current: Secret): string[] {
  const checks: [string, boolean][] = [
    ['comment', desired.comment !== undefined && (current.secretComment ?? '') !== desired.comment],
    ['skipMultilineEncoding', flagDiffers(desired, current)],
    ['reminder', reminderDiffers(desired, current)],
    ['metadata', metadataDiffers(desired, current)],
    ['tagIds', tagsDiffer(desired, current)],
  ];
  return checks.filter(([, differs]) => differs).map(([name]) => name);
}

/** The owned keys recorded in a status (entries without a key name are ignored). */
export function ownedKeysOf(status: unknown): OwnedKey[] {
  const list = (status as { ownedKeys?: unknown } | undefined)?.ownedKeys;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (entry): entry is OwnedKey =>
      typeof entry === 'object' && entry !== null && typeof (entry as { key?: unknown }).key === 'string',
  );
}
