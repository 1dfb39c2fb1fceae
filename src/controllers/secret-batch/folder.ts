/**
 * The folder a SecretBatch writes into: one list call reads all its secrets; a missing folder is
 * created with one call to the v2 folders endpoint, which also creates missing parents (the
 * service rejects writes into a folder that does not exist).
 */
import { isFolderNotFound, isInvalid, type Secret, type ServiceClient } from '../../client/index.ts';
import { WaitingError } from '../../runtime/errors.ts';
import type { BatchScope } from './mapping.ts';
import { secretBatchReasons } from './reasons.ts';

/** Condition reason when the folder is missing and `createFolders` is false. */
export const FOLDER_NOT_FOUND = secretBatchReasons.names.FolderNotFound;

/** The folder's secrets by key, or undefined when the folder does not exist. */
export async function listFolder(
  client: ServiceClient,
  scope: BatchScope,
  signal: AbortSignal,
): Promise<Map<string, Secret> | undefined> {
  try {
    const { secrets } = await client.secrets.list(
      { workspaceId: scope.projectId, environment: scope.environment, secretPath: scope.secretPath },
      { signal },
    );
    // The list may include secrets of other types or paths in some releases: keep this folder's shared ones.
    const own = secrets.filter(
      (s) => (s.type ?? 'shared') === 'shared' && (s.secretPath ?? scope.secretPath) === scope.secretPath,
    );
    return new Map(own.map((s) => [s.secretKey, s]));
  } catch (error) {
    if (isFolderNotFound(error)) return undefined;
    throw error;
  }
}

/** The error for a missing folder when folders may not be created. */
export function folderNotFound(scope: BatchScope, requeueMs: number): WaitingError {
  return new WaitingError(
    FOLDER_NOT_FOUND,
    `folder ${scope.secretPath} does not exist in environment ${scope.environment} and createFolders is false: ` +
      'create it in the service or set createFolders to true',
    requeueMs,
  );
}

/**
 * Creates the folder `scope.secretPath` with one call (the service creates missing parents, see
 * `createFolder`). Returns `created`, or `existed` when the service answers 400 and a list of the
 * parent shows the folder (created meanwhile by someone else); any other failure is thrown.
 */
export async function ensureFolders(
  client: ServiceClient,
  scope: BatchScope,
  signal: AbortSignal,
): Promise<'created' | 'existed'> {
  const names = scope.secretPath.split('/').filter((n) => n !== '');
  const name = names.at(-1);
  if (name === undefined) return 'existed';
  const parent = `/${names.slice(0, -1).join('/')}`;
  const base = { projectId: scope.projectId, environment: scope.environment, path: parent };
  try {
    await client.folders.create({ ...base, name }, { signal });
    return 'created';
  } catch (error) {
    if (!isInvalid(error)) throw error;
    const existing = await client.folders.list(base, { signal });
    if (existing.some((folder) => folder.name === name)) return 'existed';
    throw error;
  }
}
