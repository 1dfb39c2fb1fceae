/**
 * Secrets and folders of every project environment, with the service's semantics:
 *
 * - each environment has a folder tree rooted at "/" (created by {@link SecretStore.addEnvironment});
 *   paths are normalised (leading slash, no trailing slash, "/" by default);
 * - folder creation creates missing parent folders and refuses an existing folder (400); names are letters,
 *   digits, `-` and `_`; deleting a folder deletes everything below it;
 * - single and batch create/update/delete of secrets (see `secret-batch.ts` for the batch
 *   semantics); values are normalised, versions go up on every change, omitted fields stay;
 * - every mutation returns `{result, changes}`: the response data and the `secret:*` changes to
 *   publish as project events (folder and environment deletions publish none, like the service).
 *
 * Permission checks are the caller's: mutations accept an `authorize` callback the store calls
 * for every secret it is about to create, edit or delete, before writing anything.
 * Failures throw {@link DomainError}s with the service's statuses and messages.
 *
 * The store is JSON-serialisable: `JSON.stringify(store)` and {@link SecretStore.fromJSON}.
 */
import { randomUUID } from 'node:crypto';
import { badRequest, notFound, validationFailure } from './errors.ts';
import { batchCreate, batchDelete, batchUpdate } from './secret-batch.ts';
import {
  childPath,
  isWithin,
  normalizeSecretPath,
  type Authorize,
  type BatchUpdateMode,
  type FolderRecord,
  type FolderView,
  type Mutation,
  type Scope,
  type SecretBatchUpdateItem,
  type SecretCreateInput,
  type SecretRecord,
  type SecretTag,
  type SecretUpdateInput,
  type SecretView,
} from './secret-model.ts';
import {
  folderView,
  moveFolder,
  requireFolder,
  secretView,
  type EnvTree,
  type FolderNode,
  type TreeContext,
} from './secret-tree.ts';
import { createSecret, deleteSecret, updateSecret } from './secret-single.ts';

export interface SecretStoreOptions {
  /** Clock for timestamps (default: the system clock). */
  now?: () => Date;
  /** Id generator (default: random UUIDs). */
  newId?: () => string;
  /** Resolves a project's tag by id; without it, any `tagIds` entry is unknown (404). */
  tagLookup?: (projectId: string, tagId: string) => SecretTag | undefined;
  /** Earlier versions kept per secret for reads by version (default 10). */
  historyLimit?: number;
}

/** The serialised form. */
export interface SecretStoreState {
  version: 1;
  environments: Array<{
    projectId: string;
    environment: string;
    envId: string;
    folders: Array<FolderRecord & { secrets: SecretRecord[] }>;
  }>;
}

const FOLDER_NAME = /^[a-zA-Z0-9\-_]+$/;
const FOLDER_NAME_MESSAGE = 'Folder name can only contain alphanumeric, dashes, and underscore';

export class SecretStore {
  private readonly trees = new Map<string, Map<string, EnvTree>>();
  private readonly index = new Map<string, { tree: EnvTree; path: string }>();
  private readonly ctx: TreeContext;
  private readonly clock: () => Date;
  private readonly newId: () => string;

  constructor(options: SecretStoreOptions = {}) {
    this.clock = options.now ?? (() => new Date());
    this.newId = options.newId ?? randomUUID;
    const lookup = options.tagLookup ?? (() => undefined);
    this.ctx = {
      now: () => this.clock().toISOString(),
      newId: this.newId,
      historyLimit: options.historyLimit ?? 10,
      resolveTags: (projectId, ids) =>
        ids.map((id) => {
          const tag = lookup(projectId, id);
          if (!tag) throw notFound('Tag not found');
          return tag;
        }),
      viewTags: (projectId, ids) => ids.flatMap((id) => lookup(projectId, id) ?? []),
      track: (id, tree, path) => this.index.set(id, { tree, path }),
      untrack: (id) => this.index.delete(id),
    };
  }

  // ------------------------------------------------------------------------------------------
  // Environments

  /** Creates an environment's empty tree with its root folder; 400 if it already exists. */
  addEnvironment(scope: Scope, envId: string): FolderView {
    const project = this.trees.get(scope.projectId) ?? new Map<string, EnvTree>();
    if (project.has(scope.environment)) throw badRequest('Environment with slug already exists');
    const tree: EnvTree = { ...scope, envId, folders: new Map() };
    const root = this.newFolder('root', '/', null);
    tree.folders.set('/', { record: root, secrets: new Map() });
    project.set(scope.environment, tree);
    this.trees.set(scope.projectId, project);
    return folderView(tree, root);
  }

  /** True when the environment has a tree. */
  hasEnvironment(scope: Scope): boolean {
    return this.trees.get(scope.projectId)?.has(scope.environment) ?? false;
  }

  /** Moves an environment's tree to a new slug (secret views then report the new slug). */
  renameEnvironment(scope: Scope, newSlug: string): void {
    const tree = this.tree(scope);
    const project = this.trees.get(scope.projectId);
    if (newSlug === scope.environment || !project) return;
    if (project.has(newSlug)) throw badRequest('Environment with slug already exists');
    project.delete(scope.environment);
    tree.environment = newSlug;
    project.set(newSlug, tree);
  }

  /** Deletes an environment with all its folders and secrets (no-op when absent). */
  removeEnvironment(scope: Scope): void {
    const tree = this.trees.get(scope.projectId)?.get(scope.environment);
    if (!tree) return;
    for (const node of tree.folders.values()) this.untrackFolder(node);
    this.trees.get(scope.projectId)?.delete(scope.environment);
  }

  /** Deletes every environment of a project. */
  removeProject(projectId: string): void {
    for (const environment of [...(this.trees.get(projectId)?.keys() ?? [])]) {
      this.removeEnvironment({ projectId, environment });
    }
    this.trees.delete(projectId);
  }

  // ------------------------------------------------------------------------------------------
  // Folders

  /**
   * Creates folder `name` under `path` (default "/"), creating missing parents; 400 "Folder with
   * name '<name>' already exists in path '<path>'" when it is already there (the service's
   * `createFolder` at 4af40163: only the parents are reused).
   */
  createFolder(
    scope: Scope,
    input: { name: string; path?: string; description?: string | null },
  ): FolderView {
    const tree = this.tree(scope);
    const target = childPath(normalizeSecretPath(input.path), input.name.trim());
    const segments = target.split('/').filter(Boolean);
    if (!FOLDER_NAME.test(input.name.trim()) || !segments.every((s) => FOLDER_NAME.test(s))) {
      const field = FOLDER_NAME.test(input.name.trim()) ? 'path' : 'name';
      throw validationFailure([{ code: 'custom', path: [field], message: FOLDER_NAME_MESSAGE }]);
    }
    if (tree.folders.has(target)) {
      throw badRequest(
        `Folder with name '${input.name.trim()}' already exists in path '${normalizeSecretPath(input.path)}'`,
      );
    }
    let current = '/';
    let node = tree.folders.get('/') as FolderNode;
    for (const [i, segment] of segments.entries()) {
      current = childPath(current, segment);
      const existing = tree.folders.get(current);
      if (existing) {
        node = existing;
        continue;
      }
      const description = i === segments.length - 1 ? (input.description ?? null) : null;
      const record = this.newFolder(segment, current, node.record.id, description);
      node = { record, secrets: new Map() };
      tree.folders.set(current, node);
    }
    return folderView(tree, node.record);
  }

  /** The folder at `path`, if any. */
  getFolder(scope: Scope, path: string): FolderView | undefined {
    const tree = this.tree(scope);
    const node = tree.folders.get(normalizeSecretPath(path));
    return node ? folderView(tree, node.record) : undefined;
  }

  /**
   * Folders directly under `path`, or all below it with `recursive`; an unknown path lists
   * nothing (as the service does).
   */
  listFolders(scope: Scope, options: { path?: string; recursive?: boolean } = {}): FolderView[] {
    const tree = this.tree(scope);
    const path = normalizeSecretPath(options.path);
    const parent = tree.folders.get(path);
    if (!parent) return [];
    return [...tree.folders.values()]
      .filter(({ record }) =>
        options.recursive
          ? record.path !== path && isWithin(record.path, path)
          : record.parentId === parent.record.id,
      )
      .map(({ record }) => folderView(tree, record));
  }

  /**
   * Deletes the folder named (or with id) `idOrName` directly under `path`, with everything
   * below it, as the service's `deleteFolder`: 404 when the parent path or the folder does not
   * exist; unless `forceDelete`, 400 (`deleteFolder`) when the folder holds secrets or folders.
   */
  deleteFolder(scope: Scope, input: { idOrName: string; path?: string; forceDelete: boolean }): FolderView {
    const tree = this.tree(scope);
    const path = normalizeSecretPath(input.path);
    const parent = tree.folders.get(path);
    if (!parent)
      throw notFound(`Folder with path '${path}' in environment with slug '${tree.environment}' not found`);
    const children = [...tree.folders.values()].filter((n) => n.record.parentId === parent.record.id);
    const target =
      children.find((n) => n.record.name === input.idOrName) ??
      children.find((n) => n.record.id === input.idOrName);
    if (!target) throw notFound(`Folder with ID '${input.idOrName}' not found`);
    if (!input.forceDelete && holdsAnything(tree, target)) {
      const message = `Cannot delete folder "${target.record.name}" because it contains resources. Use forceDelete=true to delete it forcefully.`;
      throw badRequest(message, 'deleteFolder');
    }
    for (const [folderPath, node] of [...tree.folders]) {
      if (!isWithin(folderPath, target.record.path)) continue;
      this.untrackFolder(node);
      tree.folders.delete(folderPath);
    }
    return folderView(tree, target.record);
  }

  /**
   * Renames (and re-describes) the folder with id — or, for old clients, name — `idOrName`
   * directly under `path`, as the service's `updateFolder` does: 404 for an unknown parent path or
   * folder, 400 "Folder with specified name already exists" when a sibling has the new name.
   * Returns the folder before and after.
   */
  updateFolder(
    scope: Scope,
    input: { idOrName: string; path?: string; name: string; description?: string | null },
  ): { folder: FolderView; old: FolderView } {
    const tree = this.tree(scope);
    const parent = requireFolder(tree, normalizeSecretPath(input.path));
    const siblings = [...tree.folders.values()].filter((n) => n.record.parentId === parent.record.id);
    const target =
      siblings.find((n) => n.record.id === input.idOrName) ??
      siblings.find((n) => n.record.name === input.idOrName);
    if (!target) throw notFound(`Folder with ID '${input.idOrName}' not found`);
    const name = input.name.trim();
    if (!FOLDER_NAME.test(name))
      throw validationFailure([{ code: 'custom', path: ['name'], message: FOLDER_NAME_MESSAGE }]);
    if (name !== target.record.name && siblings.some((n) => n.record.name === name))
      throw badRequest('Folder with specified name already exists');
    const old = folderView(tree, target.record);
    moveFolder(tree, target.record.path, childPath(parent.record.path, name), this.ctx);
    Object.assign(target.record, {
      name,
      ...(input.description === undefined ? {} : { description: input.description }),
      version: target.record.version + 1,
      updatedAt: this.ctx.now(),
    });
    return { folder: folderView(tree, target.record), old };
  }

  // ------------------------------------------------------------------------------------------
  // Secret reads

  /** Secrets of the folder at `path` (and below, with `recursive`); 404 for an unknown path. */
  listSecrets(scope: Scope, options: { path?: string; recursive?: boolean } = {}): SecretView[] {
    const tree = this.tree(scope);
    const path = normalizeSecretPath(options.path);
    if (!tree.folders.has(path)) {
      throw notFound(
        `Folder with path '${path}' in environment '${tree.environment}' was not found. Please ensure the environment slug and secret path is correct.`,
        'SecretPathNotFound',
      );
    }
    const folders = [...tree.folders].filter(([p]) => (options.recursive ? isWithin(p, path) : p === path));
    return folders.flatMap(([p, node]) =>
      [...node.secrets.values()].map((r) => secretView(tree, p, r, this.ctx)),
    );
  }

  /** One secret by key (optionally an earlier `version`); 404 when absent. */
  getSecret(scope: Scope, input: { secretKey: string; path?: string; version?: number }): SecretView {
    const tree = this.tree(scope);
    const path = normalizeSecretPath(input.path);
    const folder = tree.folders.get(path);
    if (!folder)
      throw notFound(`Folder with path '${path}' in environment with slug '${tree.environment}' not found`);
    const record = folder.secrets.get(input.secretKey);
    const version =
      input.version === undefined || input.version === record?.version
        ? record
        : record?.history.find((h) => h.version === input.version);
    if (!record || !version) throw notFound(`Secret with name '${input.secretKey}' not found`);
    return secretView(tree, path, { ...record, ...version }, this.ctx);
  }

  /** One secret by id; 404 "Secret with ID '…' not found". */
  getSecretById(secretId: string): SecretView {
    const entry = this.index.get(secretId);
    const record =
      entry &&
      [...(entry.tree.folders.get(entry.path)?.secrets.values() ?? [])].find((r) => r.id === secretId);
    if (!entry || !record) throw notFound(`Secret with ID '${secretId}' not found`);
    return secretView(entry.tree, entry.path, record, this.ctx);
  }

  /** Where a secret id lives (project, environment, path), if it exists. */
  locateSecret(secretId: string): (Scope & { path: string }) | undefined {
    const entry = this.index.get(secretId);
    return (
      entry && { projectId: entry.tree.projectId, environment: entry.tree.environment, path: entry.path }
    );
  }

  // ------------------------------------------------------------------------------------------
  // Secret writes

  /** Creates one secret; 404 unknown folder, 400 "Secret already exists". */
  createSecret(
    scope: Scope,
    input: SecretCreateInput & { path?: string },
    authorize?: Authorize,
  ): Mutation<SecretView> {
    return createSecret(this.tree(scope), input, this.ctx, authorize);
  }

  /** Updates one secret; 404 when absent, 400 on a rename collision. */
  updateSecret(
    scope: Scope,
    input: SecretUpdateInput & { path?: string },
    authorize?: Authorize,
  ): Mutation<SecretView> {
    return updateSecret(this.tree(scope), input, this.ctx, authorize);
  }

  /** Deletes one secret; 404 "Secret not found" when absent. */
  deleteSecret(
    scope: Scope,
    input: { secretKey: string; path?: string },
    authorize?: Authorize,
  ): Mutation<SecretView> {
    return deleteSecret(this.tree(scope), input, this.ctx, authorize);
  }

  /** Batch create (see `batchCreate`). */
  createSecrets(
    scope: Scope,
    input: { secretPath?: string; secrets: readonly SecretCreateInput[] },
    authorize?: Authorize,
  ): Mutation<SecretView[]> {
    return batchCreate(this.tree(scope), input, this.ctx, authorize);
  }

  /** Batch update with `failOnNotFound` / `upsert` / `ignore` (see `batchUpdate`). */
  updateSecrets(
    scope: Scope,
    input: { secretPath?: string; mode?: BatchUpdateMode; secrets: readonly SecretBatchUpdateItem[] },
    authorize?: Authorize,
  ): Mutation<SecretView[]> {
    return batchUpdate(this.tree(scope), input, this.ctx, authorize);
  }

  /** Batch delete; every key must exist (see `batchDelete`). */
  deleteSecrets(
    scope: Scope,
    input: { secretPath?: string; secrets: ReadonlyArray<{ secretKey: string }> },
    authorize?: Authorize,
  ): Mutation<SecretView[]> {
    return batchDelete(this.tree(scope), input, this.ctx, authorize);
  }

  // ------------------------------------------------------------------------------------------
  // Serialisation

  toJSON(): SecretStoreState {
    const environments = [...this.trees.values()].flatMap((project) =>
      [...project.values()].map((tree) => ({
        projectId: tree.projectId,
        environment: tree.environment,
        envId: tree.envId,
        folders: [...tree.folders.values()].map((node) => ({
          ...node.record,
          secrets: [...node.secrets.values()],
        })),
      })),
    );
    return { version: 1, environments };
  }

  /** Rebuilds a store from {@link SecretStore.toJSON} output (deep-copied). */
  static fromJSON(state: SecretStoreState, options: SecretStoreOptions = {}): SecretStore {
    const store = new SecretStore(options);
    const copy = structuredClone(state);
    for (const env of copy.environments) {
      const tree: EnvTree = {
        projectId: env.projectId,
        environment: env.environment,
        envId: env.envId,
        folders: new Map(),
      };
      for (const { secrets, ...record } of env.folders) {
        tree.folders.set(record.path, { record, secrets: new Map(secrets.map((s) => [s.key, s])) });
        for (const secret of secrets) store.index.set(secret.id, { tree, path: record.path });
      }
      const project = store.trees.get(env.projectId) ?? new Map<string, EnvTree>();
      project.set(env.environment, tree);
      store.trees.set(env.projectId, project);
    }
    return store;
  }

  // ------------------------------------------------------------------------------------------

  private tree(scope: Scope): EnvTree {
    const tree = this.trees.get(scope.projectId)?.get(scope.environment);
    if (!tree) {
      throw notFound(
        `Environment with slug '${scope.environment}' in project with ID '${scope.projectId}' not found`,
      );
    }
    return tree;
  }

  private newFolder(
    name: string,
    path: string,
    parentId: string | null,
    description: string | null = null,
  ): FolderRecord {
    const now = this.ctx.now();
    return {
      id: this.newId(),
      name,
      path,
      parentId,
      description,
      version: 1,
      createdAt: now,
      updatedAt: now,
    };
  }

  private untrackFolder(node: FolderNode): void {
    for (const secret of node.secrets.values()) this.index.delete(secret.id);
  }
}

/** Whether a folder holds a secret or a folder (what the service's delete refuses without force). */
function holdsAnything(tree: EnvTree, folder: FolderNode): boolean {
  if (folder.secrets.size > 0) return true;
  for (const node of tree.folders.values()) if (node.record.parentId === folder.record.id) return true;
  return false;
}
