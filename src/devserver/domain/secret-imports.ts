/**
 * Secret imports: a folder of one environment imports the secrets of another folder (of the same
 * or another environment) of the same project. Kept per project environment folder, in position
 * order (the order the service lists them in, and a later import wins on a read). Not persisted
 * across devserver restarts; nested imports (an imported folder's own imports) are not followed.
 */
import { randomUUID } from 'node:crypto';
import { normalizeSecretPath } from './secret-model.ts';

/** One import as stored. */
export interface SecretImportRecord {
  readonly id: string;
  readonly projectId: string;
  /** Where the import lives. */
  readonly environment: string;
  readonly path: string;
  /** What it imports. */
  readonly importEnvironment: string;
  readonly importPath: string;
  readonly position: number;
  readonly createdAt: string;
}

function folderKey(projectId: string, environment: string, path: string): string {
  return `${projectId}:${environment}:${normalizeSecretPath(path)}`;
}

export class SecretImportStore {
  private readonly byFolder = new Map<string, SecretImportRecord[]>();

  /** The imports of a folder, in position order. */
  list(projectId: string, environment: string, path: string): readonly SecretImportRecord[] {
    return this.byFolder.get(folderKey(projectId, environment, path)) ?? [];
  }

  /** Adds an import at the end; false when the folder imports that folder already. */
  add(
    input: Omit<SecretImportRecord, 'id' | 'position' | 'createdAt'>,
    now: Date,
  ): SecretImportRecord | undefined {
    const key = folderKey(input.projectId, input.environment, input.path);
    const current = this.byFolder.get(key) ?? [];
    const importPath = normalizeSecretPath(input.importPath);
    if (current.some((i) => i.importEnvironment === input.importEnvironment && i.importPath === importPath))
      return undefined;
    const record: SecretImportRecord = {
      ...input,
      path: normalizeSecretPath(input.path),
      importPath,
      id: randomUUID(),
      position: current.length + 1,
      createdAt: now.toISOString(),
    };
    this.byFolder.set(key, [...current, record]);
    return record;
  }

  /** Removes an import of the folder by id; the removed record, or undefined. */
  remove(projectId: string, environment: string, path: string, id: string): SecretImportRecord | undefined {
    const key = folderKey(projectId, environment, path);
    const current = this.byFolder.get(key) ?? [];
    const found = current.find((i) => i.id === id);
    if (found)
      this.byFolder.set(
        key,
        current.filter((i) => i.id !== id).map((i, n) => ({ ...i, position: n + 1 })),
      );
    return found;
  }

  /**
   * Drops the imports held by folder `path` and the folders below it (the folder was deleted: the
   * service's imports go with their folder). Imports elsewhere that import those folders stay.
   */
  dropWithin(projectId: string, environment: string, path: string): void {
    const prefix = folderKey(projectId, environment, path);
    const below = prefix.endsWith('/') ? prefix : `${prefix}/`;
    for (const key of [...this.byFolder.keys()])
      if (key === prefix || key.startsWith(below)) this.byFolder.delete(key);
  }
}

const stores = new WeakMap<object, SecretImportStore>();

/** The import store of one devserver app. */
export function importsOf(app: object): SecretImportStore {
  let store = stores.get(app);
  if (!store) {
    store = new SecretImportStore();
    stores.set(app, store);
  }
  return store;
}
