/**
 * Records, inputs and response views of the secret store, plus the path and value
 * normalisation the service applies. Everything here is plain, JSON-serialisable data.
 */

/** A project environment: the unit the folder tree belongs to. */
export interface Scope {
  projectId: string;
  /** The environment slug. */
  environment: string;
}

/** One `secretMetadata` entry as stored and returned. */
export interface SecretMetadataEntry {
  key: string;
  value: string;
  isEncrypted: boolean;
}

/** A project tag as secret views embed it. */
export interface SecretTag {
  id: string;
  slug: string;
  name: string;
  color?: string | null;
}

/** The stored state of one version of a secret. */
export interface SecretVersionRecord {
  version: number;
  key: string;
  value: string;
  comment: string;
  skipMultilineEncoding: boolean;
  reminderNote: string | null;
  reminderRepeatDays: number | null;
  metadata: SecretMetadataEntry[];
  tagIds: string[];
  updatedAt: string;
}

/** A stored secret: its current version plus up to `historyLimit` earlier ones. */
export interface SecretRecord extends SecretVersionRecord {
  id: string;
  createdAt: string;
  history: SecretVersionRecord[];
}

/** A stored folder; `path` is its normalised absolute path (root is "/"). */
export interface FolderRecord {
  id: string;
  name: string;
  path: string;
  parentId: string | null;
  description: string | null;
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** A secret as the raw endpoints return it (`secretValueHidden` is the HTTP layer's to add). */
export interface SecretView {
  id: string;
  _id: string;
  workspace: string;
  environment: string;
  version: number;
  type: 'shared';
  secretKey: string;
  secretValue: string;
  secretComment: string;
  secretReminderNote: string | null;
  secretReminderRepeatDays: number | null;
  skipMultilineEncoding: boolean;
  createdAt: string;
  updatedAt: string;
  secretMetadata: SecretMetadataEntry[];
  tags: SecretTag[];
  secretPath: string;
}

/** A folder as the folder endpoints return it. */
export interface FolderView {
  id: string;
  name: string;
  envId: string;
  version: number;
  parentId: string | null;
  isReserved: false;
  description: string | null;
  createdAt: string;
  updatedAt: string;
  path: string;
}

/** A change to publish as a project event. */
export interface SecretChange {
  type: 'secret:create' | 'secret:update' | 'secret:delete';
  environment: string;
  secretPath: string;
  secretKey: string;
}

/** A mutation's result and the changes it made (in order). */
export interface Mutation<T> {
  result: T;
  changes: SecretChange[];
}

/** Fields a create may carry. Omitted optional fields take the service's defaults. */
export interface SecretCreateInput {
  secretKey: string;
  secretValue?: string | undefined;
  secretComment?: string | undefined;
  skipMultilineEncoding?: boolean | null | undefined;
  secretReminderNote?: string | null | undefined;
  secretReminderRepeatDays?: number | null | undefined;
  secretMetadata?: ReadonlyArray<{
    key: string;
    value?: string | undefined;
    isEncrypted?: boolean | undefined;
  }>;
  tagIds?: readonly string[] | undefined;
}

/** Fields an update may carry. Omitted fields stay unchanged; `null` clears the nullable ones. */
export interface SecretUpdateInput extends SecretCreateInput {
  newSecretName?: string | undefined;
}

/** A batch-update item: an update plus an optional per-item path. */
export interface SecretBatchUpdateItem extends SecretUpdateInput {
  secretPath?: string | undefined;
}

/** How a batch update treats keys that do not exist. */
export type BatchUpdateMode = 'failOnNotFound' | 'upsert' | 'ignore';

/** A permission check the store asks for before it writes; throw to refuse. */
export interface SecretAccessCheck {
  action: 'create' | 'edit' | 'delete';
  environment: string;
  secretPath: string;
  secretName: string;
  secretTags: string[];
}
export type Authorize = (check: SecretAccessCheck) => void;

/**
 * The service's path normalisation: default "/", leading slash added, repeated slashes
 * collapsed, trailing slash removed (except for the root).
 */
export function normalizeSecretPath(path: string | undefined): string {
  const trimmed = (path ?? '').trim();
  const collapsed = `/${trimmed}`.replace(/\/{2,}/g, '/');
  return collapsed.length > 1 && collapsed.endsWith('/') ? collapsed.slice(0, -1) : collapsed;
}

/** Parent path of a normalised non-root path. */
export function parentPath(path: string): string {
  const index = path.lastIndexOf('/');
  return index <= 0 ? '/' : path.slice(0, index);
}

/** Joins a normalised folder path and a child name. */
export function childPath(path: string, name: string): string {
  return path === '/' ? `/${name}` : `${path}/${name}`;
}

/** True when `path` is `ancestor` or lies below it. */
export function isWithin(path: string, ancestor: string): boolean {
  return ancestor === '/' || path === ancestor || path.startsWith(`${ancestor}/`);
}

/**
 * The service's value normalisation: trimmed, and if the original ended with "\n" exactly one
 * trailing "\n" is kept.
 */
export function normalizeSecretValue(value: string): string {
  const trimmed = value.trim();
  return value.endsWith('\n') ? `${trimmed}\n` : trimmed;
}

/** Metadata entries with the service's defaults (`value` "", `isEncrypted` false). */
export function normalizeMetadata(input: SecretCreateInput['secretMetadata']): SecretMetadataEntry[] {
  return (input ?? []).map((entry) => ({
    key: entry.key,
    value: entry.value ?? '',
    isEncrypted: entry.isEncrypted ?? false,
  }));
}
