/**
 * Batch create, update and delete of secrets with the service's semantics (facts §A4, §B6).
 * Each operation first plans everything (folders, existence, modes, tags, renames, permission
 * checks) and only then writes, so a failure leaves the tree untouched (all-or-nothing).
 */
import { badRequest, notFound } from './errors.ts';
import {
  normalizeSecretPath,
  type Authorize,
  type BatchUpdateMode,
  type Mutation,
  type SecretBatchUpdateItem,
  type SecretChange,
  type SecretCreateInput,
  type SecretRecord,
  type SecretView,
} from './secret-model.ts';
import {
  applySecretUpdate,
  folderNotFound,
  newSecretRecord,
  rekey,
  requireFolder,
  secretView,
  tagSlugs,
  type EnvTree,
  type FolderNode,
  type TreeContext,
} from './secret-tree.ts';

const allow: Authorize = () => undefined;

/** 400 when a key appears twice in one folder of a batch (the service would hit a DB error). */
export function assertUniqueKeys(keys: readonly string[], path: string): void {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const key of keys) (seen.has(key) ? duplicates : seen).add(key);
  if (duplicates.size > 0) {
    throw badRequest(
      `Secret keys must be unique within a batch: ${[...duplicates].join(', ')} in path ${path}`,
    );
  }
}

function change(type: SecretChange['type'], tree: EnvTree, path: string, secretKey: string): SecretChange {
  return { type, environment: tree.environment, secretPath: path, secretKey };
}

/** `POST .../batch`: creates every item in one folder; any existing key fails the batch (400). */
export function batchCreate(
  tree: EnvTree,
  input: { secretPath?: string | undefined; secrets: readonly SecretCreateInput[] },
  ctx: TreeContext,
  authorize: Authorize = allow,
): Mutation<SecretView[]> {
  const path = normalizeSecretPath(input.secretPath);
  const folder = requireFolder(tree, path);
  assertUniqueKeys(
    input.secrets.map((s) => s.secretKey),
    path,
  );
  const existing = input.secrets.filter((s) => folder.secrets.has(s.secretKey)).map((s) => s.secretKey);
  if (existing.length > 0) throw badRequest(`Secret already exists: ${existing.join(',')}`);
  for (const item of input.secrets) {
    const tags = ctx.resolveTags(tree.projectId, item.tagIds ?? []);
    const check = { environment: tree.environment, secretPath: path, secretName: item.secretKey };
    authorize({ action: 'create', ...check, secretTags: tags.map((t) => t.slug) });
  }
  const created = input.secrets.map((item) => insert({ tree, folder, path }, item, ctx));
  return {
    result: created.map((record) => secretView(tree, path, record, ctx)),
    changes: created.map((record) => change('secret:create', tree, path, record.key)),
  };
}

interface Target {
  tree: EnvTree;
  folder: FolderNode;
  path: string;
}

function insert({ tree, folder, path }: Target, item: SecretCreateInput, ctx: TreeContext): SecretRecord {
  const record = newSecretRecord(item, ctx);
  folder.secrets.set(record.key, record);
  ctx.track(record.id, tree, path);
  return record;
}

interface GroupPlan {
  path: string;
  folder: FolderNode;
  updates: Array<{ item: SecretBatchUpdateItem; record: SecretRecord }>;
  creates: SecretBatchUpdateItem[];
}

function groupByPath(items: readonly SecretBatchUpdateItem[], defaultPath: string) {
  const groups = new Map<string, SecretBatchUpdateItem[]>();
  for (const item of items) {
    const path = item.secretPath === undefined ? defaultPath : normalizeSecretPath(item.secretPath);
    const list = groups.get(path) ?? [];
    list.push(item);
    groups.set(path, list);
  }
  return groups;
}

function planGroup(
  tree: EnvTree,
  [path, items]: [string, SecretBatchUpdateItem[]],
  mode: BatchUpdateMode,
  ctx: TreeContext,
): GroupPlan {
  const folder = requireFolder(tree, path);
  assertUniqueKeys(
    items.map((i) => i.secretKey),
    path,
  );
  const missing = items.filter((i) => !folder.secrets.has(i.secretKey));
  if (mode === 'failOnNotFound' && missing.length > 0) {
    throw notFound(`Secret does not exist: ${missing.map((i) => i.secretKey).join(', ')} in path ${path}`);
  }
  const updates = items.flatMap((item) => {
    const record = folder.secrets.get(item.secretKey);
    return record ? [{ item, record }] : [];
  });
  for (const item of items) ctx.resolveTags(tree.projectId, item.tagIds ?? []);
  return { path, folder, updates, creates: mode === 'upsert' ? missing : [] };
}

function renameTarget(item: SecretBatchUpdateItem): string | undefined {
  if (item.newSecretName === '') throw badRequest('New secret name cannot be empty');
  return item.newSecretName !== undefined && item.newSecretName !== item.secretKey
    ? item.newSecretName
    : undefined;
}

/** 400 when a new name is taken (by a secret, an upserted key, or another rename). */
function checkRenames(plan: GroupPlan): string[] {
  const targets = plan.updates.flatMap(({ item }) => renameTarget(item) ?? []);
  if (targets.length === 0) return targets;
  const created = new Set(plan.creates.map((c) => c.secretKey));
  const taken = targets.some(
    (name, index) => plan.folder.secrets.has(name) || created.has(name) || targets.indexOf(name) !== index,
  );
  if (taken) throw badRequest(`Secret with new name already exists: ${targets.join(', ')}`);
  return targets;
}

function authorizeGroup(tree: EnvTree, plan: GroupPlan, ctx: TreeContext, authorize: Authorize): void {
  const base = { environment: tree.environment, secretPath: plan.path };
  for (const { item, record } of plan.updates) {
    authorize({
      action: 'edit',
      ...base,
      secretName: record.key,
      secretTags: tagSlugs(tree, record.tagIds, ctx),
    });
    const tags = tagSlugs(tree, item.tagIds ?? record.tagIds, ctx);
    if (item.tagIds !== undefined)
      authorize({ action: 'edit', ...base, secretName: record.key, secretTags: tags });
    const target = renameTarget(item);
    if (target !== undefined) authorize({ action: 'create', ...base, secretName: target, secretTags: tags });
  }
  for (const item of plan.creates) {
    authorize({
      action: 'create',
      ...base,
      secretName: item.secretKey,
      secretTags: tagSlugs(tree, item.tagIds ?? [], ctx),
    });
  }
}

/**
 * `PATCH .../batch`: items are grouped by effective path (item path, else `secretPath`, else
 * "/"); every group's folder must exist (404). Per `mode`, missing keys fail the batch
 * (`failOnNotFound`, 404 listing them), are created at version 1 (`upsert`) or are skipped
 * (`ignore`). Renames via `newSecretName` must not collide (400). Every touched secret is
 * reported as `secret:update` (upserted ones too, as the service does), per folder, under its
 * final key. Results: per group, updated secrets then created ones.
 */
export function batchUpdate(
  tree: EnvTree,
  input: {
    secretPath?: string | undefined;
    mode?: BatchUpdateMode | undefined;
    secrets: readonly SecretBatchUpdateItem[];
  },
  ctx: TreeContext,
  authorize: Authorize = allow,
): Mutation<SecretView[]> {
  const groups = groupByPath(input.secrets, normalizeSecretPath(input.secretPath));
  for (const path of groups.keys()) if (!tree.folders.has(path)) throw folderNotFound(tree, path);
  const mode = input.mode ?? 'failOnNotFound';
  const plans = [...groups].map((group) => planGroup(tree, group, mode, ctx));
  for (const plan of plans) {
    checkRenames(plan);
    authorizeGroup(tree, plan, ctx, authorize);
  }
  const result: SecretView[] = [];
  const changes: SecretChange[] = [];
  for (const plan of plans) {
    const touched = [
      ...plan.updates.map(({ item, record }) => {
        const oldKey = record.key;
        applySecretUpdate(record, item, ctx);
        rekey(plan.folder, oldKey, record);
        return record;
      }),
      ...plan.creates.map((item) => insert({ tree, folder: plan.folder, path: plan.path }, item, ctx)),
    ];
    result.push(...touched.map((record) => secretView(tree, plan.path, record, ctx)));
    changes.push(...touched.map((record) => change('secret:update', tree, plan.path, record.key)));
  }
  return { result, changes };
}

/** `DELETE .../batch`: every key must exist in the folder, else 404 naming the missing ones. */
export function batchDelete(
  tree: EnvTree,
  input: { secretPath?: string | undefined; secrets: ReadonlyArray<{ secretKey: string }> },
  ctx: TreeContext,
  authorize: Authorize = allow,
): Mutation<SecretView[]> {
  const path = normalizeSecretPath(input.secretPath);
  const folder = requireFolder(tree, path);
  const keys = input.secrets.map((s) => s.secretKey);
  assertUniqueKeys(keys, path);
  const missing = keys.filter((key) => !folder.secrets.has(key));
  if (missing.length > 0) throw notFound(`One or more secrets does not exist: ${missing.join(', ')}`);
  const records = keys.map((key) => folder.secrets.get(key)).filter((r) => r !== undefined);
  for (const record of records) {
    const check = { environment: tree.environment, secretPath: path, secretName: record.key };
    authorize({ action: 'delete', ...check, secretTags: tagSlugs(tree, record.tagIds, ctx) });
  }
  const result = records.map((record) => secretView(tree, path, record, ctx));
  for (const record of records) {
    folder.secrets.delete(record.key);
    ctx.untrack(record.id);
  }
  return { result, changes: records.map((record) => change('secret:delete', tree, path, record.key)) };
}
