/**
 * The in-memory tree of one project environment (folders by path, secrets by key) and the
 * record-level operations the store and its batch operations share. Internal to the store.
 */
import { notFound } from './errors.ts';
import {
  normalizeMetadata,
  normalizeSecretValue,
  type FolderRecord,
  type FolderView,
  type SecretCreateInput,
  type SecretRecord,
  type SecretTag,
  type SecretUpdateInput,
  type SecretVersionRecord,
  type SecretView,
} from './secret-model.ts';

export interface FolderNode {
  record: FolderRecord;
  /** Secrets by key, in creation order (a rename keeps the position). */
  secrets: Map<string, SecretRecord>;
}

export interface EnvTree {
  projectId: string;
  environment: string;
  envId: string;
  /** Folders by normalised path; "/" is the root. */
  folders: Map<string, FolderNode>;
}

/** What record operations need from the store. */
export interface TreeContext {
  now(): string;
  newId(): string;
  /** Resolves tag ids in a project; throws 404 "Tag not found" for an unknown one. */
  resolveTags(projectId: string, tagIds: readonly string[]): SecretTag[];
  /** Looks tags up for a view; unknown (since deleted) ones are left out. */
  viewTags(projectId: string, tagIds: readonly string[]): SecretTag[];
  historyLimit: number;
  /** Records that a secret id now lives at `path` of `tree` (for lookups by id). */
  track(id: string, tree: EnvTree, path: string): void;
  /** Forgets a deleted secret id. */
  untrack(id: string): void;
}

/** The service's 404 for a missing folder in secret and folder operations. */
export function folderNotFound(tree: EnvTree, path: string): Error {
  return notFound(`Folder with path '${path}' in environment with slug '${tree.environment}' not found`);
}

/** The folder at `path`, or a 404 in the service's words. */
export function requireFolder(tree: EnvTree, path: string): FolderNode {
  const folder = tree.folders.get(path);
  if (!folder) throw folderNotFound(tree, path);
  return folder;
}

/** A new version-1 secret from a create input (value normalised, defaults applied). */
export function newSecretRecord(input: SecretCreateInput, ctx: TreeContext): SecretRecord {
  const now = ctx.now();
  return {
    id: ctx.newId(),
    version: 1,
    key: input.secretKey,
    value: normalizeSecretValue(input.secretValue ?? ''),
    comment: input.secretComment ?? '',
    skipMultilineEncoding: input.skipMultilineEncoding ?? false,
    reminderNote: input.secretReminderNote ?? null,
    reminderRepeatDays: input.secretReminderRepeatDays ?? null,
    metadata: normalizeMetadata(input.secretMetadata),
    tagIds: [...(input.tagIds ?? [])],
    createdAt: now,
    updatedAt: now,
    history: [],
  };
}

function snapshot(record: SecretRecord): SecretVersionRecord {
  return {
    version: record.version,
    key: record.key,
    value: record.value,
    comment: record.comment,
    skipMultilineEncoding: record.skipMultilineEncoding,
    reminderNote: record.reminderNote,
    reminderRepeatDays: record.reminderRepeatDays,
    metadata: record.metadata.map((m) => ({ ...m })),
    tagIds: [...record.tagIds],
    updatedAt: record.updatedAt,
  };
}

/**
 * Applies an update in place: only present fields change, the value is normalised, the key
 * becomes `newSecretName` when given, and the version goes up by one (always, as in the
 * service). The previous version is kept in the bounded history.
 */
export function applySecretUpdate(record: SecretRecord, input: SecretUpdateInput, ctx: TreeContext): void {
  record.history = [snapshot(record), ...record.history].slice(0, ctx.historyLimit);
  if (input.secretValue !== undefined) record.value = normalizeSecretValue(input.secretValue);
  if (input.secretComment !== undefined) record.comment = input.secretComment;
  if (input.skipMultilineEncoding !== undefined && input.skipMultilineEncoding !== null) {
    record.skipMultilineEncoding = input.skipMultilineEncoding;
  }
  if (input.secretReminderNote !== undefined) record.reminderNote = input.secretReminderNote;
  if (input.secretReminderRepeatDays !== undefined)
    record.reminderRepeatDays = input.secretReminderRepeatDays;
  if (input.secretMetadata !== undefined) record.metadata = normalizeMetadata(input.secretMetadata);
  if (input.tagIds !== undefined) record.tagIds = [...input.tagIds];
  if (input.newSecretName) record.key = input.newSecretName;
  record.version += 1;
  record.updatedAt = ctx.now();
}

/** Renames the key of `record` inside `folder`, keeping the secret's position. */
export function rekey(folder: FolderNode, oldKey: string, record: SecretRecord): void {
  if (oldKey === record.key) return;
  const entries = [...folder.secrets.entries()].map(([key, value]): [string, SecretRecord] =>
    key === oldKey ? [record.key, value] : [key, value],
  );
  folder.secrets = new Map(entries);
}

/** The response view of a secret. For an earlier version pass `{...record, ...historyEntry}`. */
export function secretView(tree: EnvTree, path: string, record: SecretRecord, ctx: TreeContext): SecretView {
  return {
    id: record.id,
    _id: record.id,
    workspace: tree.projectId,
    environment: tree.environment,
    version: record.version,
    type: 'shared',
    secretKey: record.key,
    secretValue: record.value,
    secretComment: record.comment,
    secretReminderNote: record.reminderNote,
    secretReminderRepeatDays: record.reminderRepeatDays,
    skipMultilineEncoding: record.skipMultilineEncoding,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    secretMetadata: record.metadata.map((m) => ({ ...m })),
    tags: ctx.viewTags(tree.projectId, record.tagIds),
    secretPath: path,
  };
}

/** The response view of a folder. */
export function folderView(tree: EnvTree, record: FolderRecord): FolderView {
  return {
    id: record.id,
    name: record.name,
    envId: tree.envId,
    version: record.version,
    parentId: record.parentId,
    isReserved: false,
    description: record.description,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    path: record.path,
  };
}

/** Tag slugs of a list of tag ids (for permission checks). */
export function tagSlugs(tree: EnvTree, tagIds: readonly string[], ctx: TreeContext): string[] {
  return ctx.viewTags(tree.projectId, tagIds).map((tag) => tag.slug);
}

/** `path` with its leading `from` (a folder path) replaced by `to`. */
function rebase(path: string, from: string, to: string): string {
  if (path === from) return to;
  return to === '/' ? path.slice(from.length) : to + path.slice(from.length);
}

/**
 * Moves the folder at `from` and everything below it to `to` (a rename keeps ids, versions of
 * secrets and creation order); `track` is told where each secret now lives.
 */
export function moveFolder(tree: EnvTree, from: string, to: string, ctx: Pick<TreeContext, 'track'>): void {
  const moved = [...tree.folders].filter(([path]) => path === from || path.startsWith(`${from}/`));
  for (const [path] of moved) tree.folders.delete(path);
  for (const [path, node] of moved) {
    const next = rebase(path, from, to);
    node.record.path = next;
    tree.folders.set(next, node);
    for (const secret of node.secrets.values()) ctx.track(secret.id, tree, next);
  }
}
