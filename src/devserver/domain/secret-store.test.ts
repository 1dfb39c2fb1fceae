import { beforeEach, describe, expect, it } from 'vitest';
import type { DomainError } from './errors.ts';
import type { SecretAccessCheck, SecretTag } from './secret-model.ts';
import { SecretStore } from './secret-store.ts';

const scope = { projectId: 'p1', environment: 'dev' };
const TAGS: Record<string, SecretTag> = {
  t1: { id: 't1', slug: 'backend', name: 'Backend', color: null },
  t2: { id: 't2', slug: 'frontend', name: 'Frontend', color: '#fff' },
};

function makeStore(): SecretStore {
  let tick = 0;
  let id = 0;
  return new SecretStore({
    now: () => new Date(Date.UTC(2030, 0, 1, 0, 0, tick++)),
    newId: () => `id-${++id}`,
    tagLookup: (projectId, tagId) => (projectId === 'p1' ? TAGS[tagId] : undefined),
    historyLimit: 3,
  });
}

function errorOf(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('expected an error');
}

let store: SecretStore;
beforeEach(() => {
  store = makeStore();
  store.addEnvironment(scope, 'env-dev');
});

describe('environments', () => {
  it('creates a root folder and rejects duplicates', () => {
    expect(store.getFolder(scope, '/')).toMatchObject({
      name: 'root',
      parentId: null,
      envId: 'env-dev',
      path: '/',
    });
    expect(errorOf(() => store.addEnvironment(scope, 'x')).status).toBe(400);
    expect(store.hasEnvironment(scope)).toBe(true);
    expect(store.hasEnvironment({ projectId: 'p1', environment: 'prod' })).toBe(false);
  });

  it('404s for an unknown environment', () => {
    const error = errorOf(() => store.listSecrets({ projectId: 'p1', environment: 'prod' }));
    expect(error.status).toBe(404);
    expect(error.message).toBe("Environment with slug 'prod' in project with ID 'p1' not found");
  });

  it('renames an environment and keeps its secrets', () => {
    store.createSecret(scope, { secretKey: 'A', secretValue: 'a' });
    store.renameEnvironment(scope, 'development');
    const renamed = { projectId: 'p1', environment: 'development' };
    expect(store.listSecrets(renamed)[0]).toMatchObject({ secretKey: 'A', environment: 'development' });
    expect(store.hasEnvironment(scope)).toBe(false);
    store.addEnvironment(scope, 'env-2');
    expect(errorOf(() => store.renameEnvironment(scope, 'development')).status).toBe(400);
  });

  it('removes environments and projects, forgetting secret ids', () => {
    const { result } = store.createSecret(scope, { secretKey: 'A', secretValue: 'a' });
    store.removeEnvironment(scope);
    expect(store.hasEnvironment(scope)).toBe(false);
    expect(errorOf(() => store.getSecretById(result.id)).status).toBe(404);
    store.addEnvironment(scope, 'e');
    store.addEnvironment({ projectId: 'p1', environment: 'prod' }, 'e2');
    store.removeProject('p1');
    expect(store.hasEnvironment({ projectId: 'p1', environment: 'prod' })).toBe(false);
  });
});

describe('folders', () => {
  it('creates nested folders with missing parents, and refuses an existing one with 400', () => {
    const folder = store.createFolder(scope, { name: 'api', path: '/app/backend/', description: 'API' });
    expect(folder).toMatchObject({
      name: 'api',
      path: '/app/backend/api',
      description: 'API',
      isReserved: false,
    });
    const parent = store.getFolder(scope, '/app/backend');
    expect(folder.parentId).toBe(parent?.id);
    expect(store.getFolder(scope, '/app')?.parentId).toBe(store.getFolder(scope, '/')?.id);
    const again = errorOf(() => store.createFolder(scope, { name: 'api', path: 'app/backend' }));
    expect(again.status).toBe(400);
    expect(again.message).toBe("Folder with name 'api' already exists in path '/app/backend'");
    expect(store.listFolders(scope, { path: '/app/backend' })).toHaveLength(1);
    // An existing parent is reused.
    const sibling = store.createFolder(scope, { name: 'web', path: '/app' });
    expect(sibling.parentId).toBe(store.getFolder(scope, '/app')?.id);
  });

  it.each([
    [{ name: 'bad name' }, 'name'],
    [{ name: 'a.b' }, 'name'],
    [{ name: 'ok', path: '/bad path' }, 'path'],
  ])('rejects %j with 422 on %s', (input, field) => {
    const error = errorOf(() => store.createFolder(scope, input));
    expect(error.status).toBe(422);
    expect(error.issues?.[0]?.path).toEqual([field]);
  });

  it('lists direct children or all descendants', () => {
    store.createFolder(scope, { name: 'c', path: '/a/b' });
    store.createFolder(scope, { name: 'd', path: '/' });
    expect(store.listFolders(scope).map((f) => f.path)).toEqual(['/a', '/d']);
    expect(store.listFolders(scope, { path: '/a' }).map((f) => f.path)).toEqual(['/a/b']);
    expect(store.listFolders(scope, { path: '/a', recursive: true }).map((f) => f.path)).toEqual([
      '/a/b',
      '/a/b/c',
    ]);
    expect(store.listFolders(scope, { recursive: true })).toHaveLength(4);
    expect(store.listFolders(scope, { path: '/missing' })).toEqual([]);
  });

  it('deletes a folder by name or id with everything below it (forceDelete)', () => {
    store.createFolder(scope, { name: 'c', path: '/a/b' });
    const { result } = store.createSecret(scope, { secretKey: 'K', secretValue: 'v', path: '/a/b/c' });
    const deleted = store.deleteFolder(scope, { idOrName: 'a', forceDelete: true });
    expect(deleted.path).toBe('/a');
    expect(store.listFolders(scope, { recursive: true })).toEqual([]);
    expect(errorOf(() => store.getSecretById(result.id)).status).toBe(404);
    const x = store.createFolder(scope, { name: 'x' });
    expect(store.deleteFolder(scope, { idOrName: x.id, path: '/', forceDelete: false }).id).toBe(x.id);
  });

  it('refuses to delete a folder holding a secret or a folder without forceDelete (400)', () => {
    store.createFolder(scope, { name: 'inner', path: '/outer' });
    store.createSecret(scope, { secretKey: 'K', secretValue: 'v', path: '/outer/inner' });
    for (const [idOrName, path] of [
      ['outer', '/'],
      ['inner', '/outer'],
    ] as const) {
      const error = errorOf(() => store.deleteFolder(scope, { idOrName, path, forceDelete: false }));
      expect(error).toMatchObject({ status: 400, name: 'deleteFolder' });
      expect(error.message).toBe(
        `Cannot delete folder "${idOrName}" because it contains resources. Use forceDelete=true to delete it forcefully.`,
      );
    }
    expect(store.listFolders(scope, { recursive: true }).map((f) => f.path)).toEqual([
      '/outer',
      '/outer/inner',
    ]);
  });

  it.each([
    [{ idOrName: 'nope', forceDelete: true }, "Folder with ID 'nope' not found"],
    [
      { idOrName: 'x', path: '/missing', forceDelete: false },
      "Folder with path '/missing' in environment with slug 'dev' not found",
    ],
  ])('deleteFolder(%j) 404s', (input, message) => {
    const error = errorOf(() => store.deleteFolder(scope, input));
    expect(error.status).toBe(404);
    expect(error.message).toBe(message);
  });
});

describe('single secrets', () => {
  it('creates with defaults and the raw shape', () => {
    const { result, changes } = store.createSecret(scope, {
      secretKey: 'DB_URL',
      secretValue: '  postgres://x \n',
    });
    expect(result).toEqual({
      id: 'id-2',
      _id: 'id-2',
      workspace: 'p1',
      environment: 'dev',
      version: 1,
      type: 'shared',
      secretKey: 'DB_URL',
      secretValue: 'postgres://x\n',
      secretComment: '',
      secretReminderNote: null,
      secretReminderRepeatDays: null,
      skipMultilineEncoding: false,
      createdAt: '2030-01-01T00:00:01.000Z',
      updatedAt: '2030-01-01T00:00:01.000Z',
      secretMetadata: [],
      tags: [],
      secretPath: '/',
    });
    expect(changes).toEqual([
      { type: 'secret:create', environment: 'dev', secretPath: '/', secretKey: 'DB_URL' },
    ]);
  });

  it('stores unicode keys, tags and metadata', () => {
    const { result } = store.createSecret(scope, {
      secretKey: 'ключ🔑',
      secretValue: 'значение',
      tagIds: ['t1'],
      secretMetadata: [{ key: 'owner' }],
      skipMultilineEncoding: null,
    });
    expect(result.tags).toEqual([TAGS.t1]);
    expect(result.secretMetadata).toEqual([{ key: 'owner', value: '', isEncrypted: false }]);
    expect(store.getSecret(scope, { secretKey: 'ключ🔑' }).secretValue).toBe('значение');
  });

  it('keeps a key named __proto__ as data', () => {
    store.createSecret(scope, { secretKey: '__proto__', secretValue: 'x' });
    expect(store.listSecrets(scope).map((s) => s.secretKey)).toEqual(['__proto__']);
    const copy = SecretStore.fromJSON(JSON.parse(JSON.stringify(store)) as ReturnType<SecretStore['toJSON']>);
    expect(copy.getSecret(scope, { secretKey: '__proto__' }).secretValue).toBe('x');
  });

  it.each([
    [
      () => store.createSecret(scope, { secretKey: 'A', path: '/nope' }),
      404,
      "Folder with path '/nope' in environment with slug 'dev' not found",
    ],
    [() => store.createSecret(scope, { secretKey: 'A', tagIds: ['zz'] }), 404, 'Tag not found'],
    [() => store.updateSecret(scope, { secretKey: 'MISSING' }), 404, 'Secret with name MISSING not found'],
    [
      () => store.updateSecret(scope, { secretKey: 'A', newSecretName: '' }),
      400,
      'New secret name cannot be empty',
    ],
    [() => store.deleteSecret(scope, { secretKey: 'MISSING' }), 404, 'Secret not found'],
    [() => store.getSecret(scope, { secretKey: 'MISSING' }), 404, "Secret with name 'MISSING' not found"],
    [
      () => store.getSecret(scope, { secretKey: 'A', path: '/x' }),
      404,
      "Folder with path '/x' in environment with slug 'dev' not found",
    ],
    [() => store.getSecretById('nope'), 404, "Secret with ID 'nope' not found"],
  ])('error case %#', (run, status, message) => {
    const error = errorOf(run);
    expect(error.status).toBe(status);
    expect(error.message).toBe(message);
  });

  it('rejects a duplicate create', () => {
    store.createSecret(scope, { secretKey: 'A', secretValue: 'a' });
    const error = errorOf(() => store.createSecret(scope, { secretKey: 'A', secretValue: 'b' }));
    expect([error.status, error.message]).toEqual([400, 'Secret already exists']);
    expect(store.getSecret(scope, { secretKey: 'A' }).secretValue).toBe('a');
  });

  it('updates only present fields, bumps the version and renames', () => {
    store.createSecret(scope, { secretKey: 'A', secretValue: 'a', secretComment: 'c', tagIds: ['t1'] });
    store.createSecret(scope, { secretKey: 'B', secretValue: 'b' });
    const first = store.updateSecret(scope, { secretKey: 'A', secretValue: ' a2 ' });
    expect(first.result).toMatchObject({
      version: 2,
      secretValue: 'a2',
      secretComment: 'c',
      tags: [TAGS.t1],
    });
    const renamed = store.updateSecret(scope, {
      secretKey: 'A',
      newSecretName: 'A2',
      secretReminderNote: 'rotate',
    });
    expect(renamed.result).toMatchObject({
      version: 3,
      secretKey: 'A2',
      secretValue: 'a2',
      secretReminderNote: 'rotate',
    });
    expect(renamed.changes).toEqual([
      { type: 'secret:update', environment: 'dev', secretPath: '/', secretKey: 'A2' },
    ]);
    expect(store.listSecrets(scope).map((s) => s.secretKey)).toEqual(['A2', 'B']);
    const collision = errorOf(() => store.updateSecret(scope, { secretKey: 'A2', newSecretName: 'B' }));
    expect([collision.status, collision.message]).toEqual([400, 'Secret with the new name already exists']);
    expect(store.getSecret(scope, { secretKey: 'A2' }).version).toBe(3);
  });

  it('reads earlier versions within the history limit', () => {
    store.createSecret(scope, { secretKey: 'A', secretValue: 'v1' });
    for (const value of ['v2', 'v3', 'v4', 'v5'])
      store.updateSecret(scope, { secretKey: 'A', secretValue: value });
    expect(store.getSecret(scope, { secretKey: 'A', version: 5 }).secretValue).toBe('v5');
    expect(store.getSecret(scope, { secretKey: 'A', version: 2 }).secretValue).toBe('v2');
    expect(errorOf(() => store.getSecret(scope, { secretKey: 'A', version: 1 })).status).toBe(404);
  });

  it('deletes and reports the deleted secret', () => {
    store.createSecret(scope, { secretKey: 'A', secretValue: 'a' });
    const { result, changes } = store.deleteSecret(scope, { secretKey: 'A' });
    expect(result.secretValue).toBe('a');
    expect(changes).toEqual([{ type: 'secret:delete', environment: 'dev', secretPath: '/', secretKey: 'A' }]);
    expect(store.listSecrets(scope)).toEqual([]);
  });

  it('finds secrets by id and location', () => {
    store.createFolder(scope, { name: 'app' });
    const { result } = store.createSecret(scope, { secretKey: 'A', secretValue: 'a', path: '/app' });
    expect(store.getSecretById(result.id).secretPath).toBe('/app');
    expect(store.locateSecret(result.id)).toEqual({ projectId: 'p1', environment: 'dev', path: '/app' });
    expect(store.locateSecret('nope')).toBeUndefined();
  });

  it('asks authorize before writing and writes nothing when refused', () => {
    const checks: SecretAccessCheck[] = [];
    const record = (check: SecretAccessCheck) => void checks.push(check);
    store.createSecret(scope, { secretKey: 'A', secretValue: 'a', tagIds: ['t1'] }, record);
    store.updateSecret(scope, { secretKey: 'A', newSecretName: 'B', tagIds: ['t2'] }, record);
    store.deleteSecret(scope, { secretKey: 'B' }, record);
    expect(checks.map((c) => [c.action, c.secretName, c.secretTags.join()])).toEqual([
      ['create', 'A', 'backend'],
      ['edit', 'A', 'backend'],
      ['edit', 'A', 'frontend'],
      ['edit', 'B', 'frontend'],
      ['delete', 'B', 'frontend'],
    ]);
    const refuse = () => {
      throw new Error('refused');
    };
    store.createSecret(scope, { secretKey: 'C', secretValue: 'c' });
    expect(() => store.updateSecret(scope, { secretKey: 'C', secretValue: 'x' }, refuse)).toThrow('refused');
    expect(() => store.deleteSecret(scope, { secretKey: 'C' }, refuse)).toThrow('refused');
    expect(() => store.createSecret(scope, { secretKey: 'D' }, refuse)).toThrow('refused');
    expect(store.listSecrets(scope).map((s) => [s.secretKey, s.secretValue, s.version])).toEqual([
      ['C', 'c', 1],
    ]);
  });
});

describe('listing', () => {
  it('lists one folder or recursively with paths', () => {
    store.createFolder(scope, { name: 'b', path: '/a' });
    store.createSecret(scope, { secretKey: 'ROOT', secretValue: '1' });
    store.createSecret(scope, { secretKey: 'IN_A', secretValue: '2', path: '/a' });
    store.createSecret(scope, { secretKey: 'IN_B', secretValue: '3', path: '/a/b' });
    expect(store.listSecrets(scope).map((s) => s.secretKey)).toEqual(['ROOT']);
    expect(
      store.listSecrets(scope, { path: '/a', recursive: true }).map((s) => [s.secretKey, s.secretPath]),
    ).toEqual([
      ['IN_A', '/a'],
      ['IN_B', '/a/b'],
    ]);
    expect(store.listSecrets(scope, { recursive: true })).toHaveLength(3);
  });

  it('404s with the list message for an unknown path', () => {
    const error = errorOf(() => store.listSecrets(scope, { path: '/nope' }));
    expect(error.status).toBe(404);
    expect(error.name).toBe('SecretPathNotFound');
    expect(error.message).toBe(
      "Folder with path '/nope' in environment 'dev' was not found. Please ensure the environment slug and secret path is correct.",
    );
  });
});

describe('serialisation', () => {
  it('round-trips through JSON', () => {
    store.createFolder(scope, { name: 'app' });
    store.createSecret(scope, { secretKey: 'A', secretValue: 'a\n', path: '/app', tagIds: ['t1'] });
    store.updateSecret(scope, { secretKey: 'A', secretValue: 'b', path: '/app' });
    const json = JSON.stringify(store);
    const copy = SecretStore.fromJSON(JSON.parse(json) as ReturnType<SecretStore['toJSON']>, {
      tagLookup: (_p, id) => TAGS[id],
    });
    expect(JSON.stringify(copy)).toBe(json);
    const secret = copy.getSecret(scope, { secretKey: 'A', path: '/app' });
    expect(secret).toMatchObject({ secretValue: 'b', version: 2, tags: [TAGS.t1] });
    expect(copy.getSecret(scope, { secretKey: 'A', path: '/app', version: 1 }).secretValue).toBe('a\n');
    expect(copy.getSecretById(secret.id).secretKey).toBe('A');
    copy.updateSecret(scope, { secretKey: 'A', secretValue: 'c', path: '/app' });
    expect(store.getSecret(scope, { secretKey: 'A', path: '/app' }).secretValue).toBe('b');
  });
});
