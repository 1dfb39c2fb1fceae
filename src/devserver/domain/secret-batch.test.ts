import { beforeEach, describe, expect, it } from 'vitest';
import type { DomainError } from './errors.ts';
import type { SecretAccessCheck } from './secret-model.ts';
import { SecretStore } from './secret-store.ts';

const scope = { projectId: 'p1', environment: 'dev' };

function errorOf(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('expected an error');
}

let store: SecretStore;
function snapshot(): string {
  return JSON.stringify(store);
}

beforeEach(() => {
  let id = 0;
  store = new SecretStore({ newId: () => `id-${++id}`, now: () => new Date('2030-01-01T00:00:00Z') });
  store.addEnvironment(scope, 'env');
  store.createFolder(scope, { name: 'app' });
  store.createSecrets(scope, {
    secrets: [
      { secretKey: 'A', secretValue: 'a', secretComment: 'ca' },
      { secretKey: 'B', secretValue: 'b' },
    ],
  });
  store.createSecrets(scope, { secretPath: '/app', secrets: [{ secretKey: 'X', secretValue: 'x' }] });
});

describe('batch create', () => {
  it('creates all and reports secret:create per key', () => {
    const { result, changes } = store.createSecrets(scope, {
      secretPath: '/app/',
      secrets: [
        { secretKey: 'Y', secretValue: ' y\n\n' },
        { secretKey: 'Ζ', secretValue: 'z', skipMultilineEncoding: true },
      ],
    });
    expect(result.map((s) => [s.secretKey, s.secretValue, s.version, s.secretPath])).toEqual([
      ['Y', 'y\n', 1, '/app'],
      ['Ζ', 'z', 1, '/app'],
    ]);
    expect(changes).toEqual([
      { type: 'secret:create', environment: 'dev', secretPath: '/app', secretKey: 'Y' },
      { type: 'secret:create', environment: 'dev', secretPath: '/app', secretKey: 'Ζ' },
    ]);
  });

  it.each([
    [
      [{ secretKey: 'A' }, { secretKey: 'NEW' }, { secretKey: 'B' }],
      undefined,
      400,
      'Secret already exists: A,B',
    ],
    [
      [{ secretKey: 'N' }, { secretKey: 'N' }],
      undefined,
      400,
      'Secret keys must be unique within a batch: N in path /',
    ],
    [
      [{ secretKey: 'N' }],
      '/missing',
      404,
      "Folder with path '/missing' in environment with slug 'dev' not found",
    ],
    [[{ secretKey: 'N', tagIds: ['t'] }], undefined, 404, 'Tag not found'],
  ])('fails all-or-nothing: %j at %s', (secrets, secretPath, status, message) => {
    const before = snapshot();
    const error = errorOf(() => store.createSecrets(scope, { secretPath, secrets }));
    expect([error.status, error.message]).toEqual([status, message]);
    expect(snapshot()).toBe(before);
  });
});

describe('batch update', () => {
  it('updates present fields only and bumps versions', () => {
    const { result, changes } = store.updateSecrets(scope, {
      secrets: [
        { secretKey: 'A', secretValue: 'a2' },
        { secretKey: 'B', secretComment: 'cb' },
      ],
    });
    expect(result.map((s) => [s.secretKey, s.secretValue, s.secretComment, s.version])).toEqual([
      ['A', 'a2', 'ca', 2],
      ['B', 'b', 'cb', 2],
    ]);
    expect(changes.map((c) => [c.type, c.secretPath, c.secretKey])).toEqual([
      ['secret:update', '/', 'A'],
      ['secret:update', '/', 'B'],
    ]);
  });

  it('groups by effective path and reports per folder', () => {
    const { result, changes } = store.updateSecrets(scope, {
      secretPath: '/',
      secrets: [
        { secretKey: 'X', secretValue: 'x2', secretPath: '/app/' },
        { secretKey: 'A', secretValue: 'a2' },
      ],
    });
    expect(result.map((s) => [s.secretPath, s.secretKey])).toEqual([
      ['/app', 'X'],
      ['/', 'A'],
    ]);
    expect(changes.map((c) => [c.secretPath, c.secretKey])).toEqual([
      ['/app', 'X'],
      ['/', 'A'],
    ]);
  });

  it.each([
    ['failOnNotFound', 404, 'Secret does not exist: N1, N2 in path /'],
    [undefined, 404, 'Secret does not exist: N1, N2 in path /'],
  ] as const)('mode %s fails on missing keys without writing', (mode, status, message) => {
    const before = snapshot();
    const error = errorOf(() =>
      store.updateSecrets(scope, {
        mode,
        secrets: [
          { secretKey: 'A', secretValue: 'changed' },
          { secretKey: 'N1', secretValue: '1' },
          { secretKey: 'N2', secretValue: '2' },
        ],
      }),
    );
    expect([error.status, error.message]).toEqual([status, message]);
    expect(snapshot()).toBe(before);
  });

  it('upsert creates missing keys at version 1 after the updates', () => {
    const { result, changes } = store.updateSecrets(scope, {
      mode: 'upsert',
      secrets: [
        { secretKey: 'NEW', secretValue: 'n' },
        { secretKey: 'A', secretValue: 'a2' },
      ],
    });
    expect(result.map((s) => [s.secretKey, s.version, s.secretValue])).toEqual([
      ['A', 2, 'a2'],
      ['NEW', 1, 'n'],
    ]);
    expect(changes.map((c) => [c.type, c.secretKey])).toEqual([
      ['secret:update', 'A'],
      ['secret:update', 'NEW'],
    ]);
    expect(store.getSecret(scope, { secretKey: 'NEW' }).secretComment).toBe('');
  });

  it('ignore skips missing keys silently', () => {
    const { result } = store.updateSecrets(scope, {
      mode: 'ignore',
      secrets: [
        { secretKey: 'GHOST', secretValue: 'g' },
        { secretKey: 'B', secretValue: 'b2' },
      ],
    });
    expect(result.map((s) => s.secretKey)).toEqual(['B']);
    expect(() => store.getSecret(scope, { secretKey: 'GHOST' })).toThrow();
  });

  it('renames with newSecretName and keeps the order', () => {
    const { result, changes } = store.updateSecrets(scope, {
      secrets: [{ secretKey: 'A', newSecretName: 'A_RENAMED', secretValue: 'v' }],
    });
    expect(result[0]).toMatchObject({ secretKey: 'A_RENAMED', version: 2, secretValue: 'v' });
    expect(changes[0]?.secretKey).toBe('A_RENAMED');
    expect(store.listSecrets(scope).map((s) => s.secretKey)).toEqual(['A_RENAMED', 'B']);
  });

  it('treats renaming to the same name as no rename', () => {
    const { result } = store.updateSecrets(scope, { secrets: [{ secretKey: 'A', newSecretName: 'A' }] });
    expect(result[0]).toMatchObject({ secretKey: 'A', version: 2 });
  });

  it.each([
    ['onto an existing key', [{ secretKey: 'A', newSecretName: 'B' }], 'upsert'],
    [
      'two onto one name',
      [
        { secretKey: 'A', newSecretName: 'C' },
        { secretKey: 'B', newSecretName: 'C' },
      ],
      'failOnNotFound',
    ],
    [
      'onto an upserted key',
      [
        { secretKey: 'A', newSecretName: 'N' },
        { secretKey: 'N', secretValue: 'n' },
      ],
      'upsert',
    ],
  ] as const)('rejects a rename %s', (_name, secrets, mode) => {
    const before = snapshot();
    const error = errorOf(() => store.updateSecrets(scope, { mode, secrets: [...secrets] }));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^Secret with new name already exists: /);
    expect(snapshot()).toBe(before);
  });

  it.each([
    [
      [{ secretKey: 'A', secretPath: '/nope' }, { secretKey: 'B' }],
      "Folder with path '/nope' in environment with slug 'dev' not found",
    ],
    [[{ secretKey: 'A' }, { secretKey: 'A' }], 'Secret keys must be unique within a batch: A in path /'],
    [[{ secretKey: 'A', newSecretName: '' }], 'New secret name cannot be empty'],
    [[{ secretKey: 'A', tagIds: ['nope'] }], 'Tag not found'],
  ])('fails all-or-nothing on %j', (secrets, message) => {
    const before = snapshot();
    const error = errorOf(() => store.updateSecrets(scope, { mode: 'upsert', secrets }));
    expect(error.message).toBe(message);
    expect(snapshot()).toBe(before);
  });

  it('checks every folder before writing any (a later group failing leaves the first untouched)', () => {
    const before = snapshot();
    const error = errorOf(() =>
      store.updateSecrets(scope, {
        secrets: [
          { secretKey: 'A', secretValue: 'changed' },
          { secretKey: 'MISSING', secretPath: '/app' },
        ],
      }),
    );
    expect(error.message).toBe('Secret does not exist: MISSING in path /app');
    expect(snapshot()).toBe(before);
  });

  it('asks edit for updates, create for upserts and new names; a refusal writes nothing', () => {
    const checks: SecretAccessCheck[] = [];
    store.updateSecrets(
      scope,
      {
        mode: 'upsert',
        secrets: [
          { secretKey: 'A', newSecretName: 'A2' },
          { secretKey: 'NEW', secretValue: 'n' },
        ],
      },
      (check) => void checks.push(check),
    );
    expect(checks.map((c) => [c.action, c.secretName])).toEqual([
      ['edit', 'A'],
      ['create', 'A2'],
      ['create', 'NEW'],
    ]);
    const before = snapshot();
    const refuseCreate = (check: SecretAccessCheck) => {
      if (check.action === 'create') throw new Error('no create');
    };
    expect(() =>
      store.updateSecrets(
        scope,
        { mode: 'upsert', secrets: [{ secretKey: 'B', secretValue: 'x' }, { secretKey: 'OTHER' }] },
        refuseCreate,
      ),
    ).toThrow('no create');
    expect(snapshot()).toBe(before);
  });
});

describe('batch delete', () => {
  it('deletes every key and reports secret:delete', () => {
    const { result, changes } = store.deleteSecrets(scope, {
      secrets: [{ secretKey: 'A' }, { secretKey: 'B' }],
    });
    expect(result.map((s) => s.secretKey)).toEqual(['A', 'B']);
    expect(changes.map((c) => [c.type, c.secretKey])).toEqual([
      ['secret:delete', 'A'],
      ['secret:delete', 'B'],
    ]);
    expect(store.listSecrets(scope)).toEqual([]);
  });

  it.each([
    [[{ secretKey: 'A' }, { secretKey: 'NOPE' }], undefined, 404, 'One or more secrets does not exist: NOPE'],
    [
      [{ secretKey: 'A' }, { secretKey: 'A' }],
      undefined,
      400,
      'Secret keys must be unique within a batch: A in path /',
    ],
    [[{ secretKey: 'A' }], '/nope', 404, "Folder with path '/nope' in environment with slug 'dev' not found"],
  ])('fails all-or-nothing on %j', (secrets, secretPath, status, message) => {
    const before = snapshot();
    const error = errorOf(() => store.deleteSecrets(scope, { secretPath, secrets }));
    expect([error.status, error.message]).toEqual([status, message]);
    expect(snapshot()).toBe(before);
  });

  it('a refused delete writes nothing', () => {
    const before = snapshot();
    const refuseB = (check: SecretAccessCheck) => {
      if (check.secretName === 'B') throw new Error('no');
    };
    expect(() =>
      store.deleteSecrets(scope, { secrets: [{ secretKey: 'A' }, { secretKey: 'B' }] }, refuseB),
    ).toThrow('no');
    expect(snapshot()).toBe(before);
  });
});
