/**
 * Single-secret create, update and delete with the service's messages. Like the batch
 * operations, each checks everything (and asks `authorize`) before it writes.
 */
import { badRequest, notFound } from './errors.ts';
import {
  normalizeSecretPath,
  type Authorize,
  type Mutation,
  type SecretCreateInput,
  type SecretUpdateInput,
  type SecretView,
} from './secret-model.ts';
import {
  applySecretUpdate,
  newSecretRecord,
  rekey,
  requireFolder,
  secretView,
  tagSlugs,
  type EnvTree,
  type TreeContext,
} from './secret-tree.ts';

const allow: Authorize = () => undefined;

/** Creates one secret at `path`; 400 "Secret already exists" when the key is taken. */
export function createSecret(
  tree: EnvTree,
  input: SecretCreateInput & { path?: string | undefined },
  ctx: TreeContext,
  authorize: Authorize = allow,
): Mutation<SecretView> {
  const path = normalizeSecretPath(input.path);
  const folder = requireFolder(tree, path);
  if (folder.secrets.has(input.secretKey)) throw badRequest('Secret already exists');
  const tags = ctx.resolveTags(tree.projectId, input.tagIds ?? []);
  authorize({
    action: 'create',
    environment: tree.environment,
    secretPath: path,
    secretName: input.secretKey,
    secretTags: tags.map((t) => t.slug),
  });
  const record = newSecretRecord(input, ctx);
  folder.secrets.set(record.key, record);
  ctx.track(record.id, tree, path);
  return {
    result: secretView(tree, path, record, ctx),
    changes: [
      { type: 'secret:create', environment: tree.environment, secretPath: path, secretKey: record.key },
    ],
  };
}

/**
 * Updates one secret; 404 "Secret with name K not found", 400 "Secret with the new name already
 * exists" on a rename collision, 400 for an empty `newSecretName`. The change names the final key.
 */
export function updateSecret(
  tree: EnvTree,
  input: SecretUpdateInput & { path?: string | undefined },
  ctx: TreeContext,
  authorize: Authorize = allow,
): Mutation<SecretView> {
  if (input.newSecretName === '') throw badRequest('New secret name cannot be empty');
  const path = normalizeSecretPath(input.path);
  const folder = requireFolder(tree, path);
  const record = folder.secrets.get(input.secretKey);
  if (!record) throw notFound(`Secret with name ${input.secretKey} not found`);
  ctx.resolveTags(tree.projectId, input.tagIds ?? []);
  const base = { action: 'edit' as const, environment: tree.environment, secretPath: path };
  authorize({ ...base, secretName: record.key, secretTags: tagSlugs(tree, record.tagIds, ctx) });
  const newTags = tagSlugs(tree, input.tagIds ?? record.tagIds, ctx);
  if (input.tagIds !== undefined) authorize({ ...base, secretName: record.key, secretTags: newTags });
  const rename =
    input.newSecretName !== undefined && input.newSecretName !== record.key ? input.newSecretName : undefined;
  if (rename !== undefined) {
    if (folder.secrets.has(rename)) throw badRequest('Secret with the new name already exists');
    authorize({ ...base, secretName: rename, secretTags: newTags });
  }
  const oldKey = record.key;
  applySecretUpdate(record, input, ctx);
  rekey(folder, oldKey, record);
  return {
    result: secretView(tree, path, record, ctx),
    changes: [
      { type: 'secret:update', environment: tree.environment, secretPath: path, secretKey: record.key },
    ],
  };
}

/** Deletes one secret; 404 "Secret not found" when absent. Returns the deleted secret. */
export function deleteSecret(
  tree: EnvTree,
  input: { secretKey: string; path?: string | undefined },
  ctx: TreeContext,
  authorize: Authorize = allow,
): Mutation<SecretView> {
  const path = normalizeSecretPath(input.path);
  const folder = requireFolder(tree, path);
  const record = folder.secrets.get(input.secretKey);
  if (!record) throw notFound('Secret not found');
  authorize({
    action: 'delete',
    environment: tree.environment,
    secretPath: path,
    secretName: record.key,
    secretTags: tagSlugs(tree, record.tagIds, ctx),
  });
  const result = secretView(tree, path, record, ctx);
  folder.secrets.delete(record.key);
  ctx.untrack(record.id);
  return {
    result,
    changes: [
      { type: 'secret:delete', environment: tree.environment, secretPath: path, secretKey: record.key },
    ],
  };
}
