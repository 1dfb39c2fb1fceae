/**
 * The folder a SecretBatch writes into: one list call reads all its secrets; a missing folder is
 * created with one call to the v2 folders endpoint, which also creates missing parents (the
 * service rejects writes into a folder that does not exist), and a folder that call created is
 * known to be empty without a list.
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

/** What `createOrReadFolder` found: a folder it just created (empty), or an existing one. */
export interface FolderContents {
  /** True when this call created the folder: nobody else has written into it before. */
  readonly fresh: boolean;
  readonly current: ReadonlyMap<string, Secret>;
}

/**
 * Creates the folder `scope.secretPath` with one call (the service creates missing parents) and
 * returns its contents without reading them when the create proves the folder new: the service
 * answers a create of an existing folder with 400 "Folder with name … already exists in path …"
 * (docs/service-facts.md, "Folders: create"), so a 200 means the folder did not exist and is empty.
 * On a 400 the folder is listed (one more call); when the list finds no folder either, the 400
 * was about something else and is thrown.
 */
export async function createOrReadFolder(
  client: ServiceClient,
  scope: BatchScope,
  signal: AbortSignal,
): Promise<FolderContents> {
  const names = scope.secretPath.split('/').filter((n) => n !== '');
  const name = names.at(-1);
  if (name !== undefined) {
    const parent = `/${names.slice(0, -1).join('/')}`;
    const base = { projectId: scope.projectId, environment: scope.environment, path: parent };
    try {
      await client.folders.create({ ...base, name }, { signal });
      return { fresh: true, current: new Map() };
    } catch (error) {
      if (!isInvalid(error)) throw error;
      const current = await listFolder(client, scope, signal);
      if (current) return { fresh: false, current };
      throw error;
    }
  }
  return { fresh: false, current: (await listFolder(client, scope, signal)) ?? new Map() };
}
