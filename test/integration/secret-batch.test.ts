// SecretBatch against the real control plane and a devserver, what is particular to it: create
// and read back (folders created), a changed source Secret pushed within seconds, no write while
// nothing changed, drift counted, keys it does not own untouched, rename, fromSecret,
// createFolders false, adoption without writes, Delete removing only owned keys, invalid input,
// and no recognisable value in logs, events or status. What every managed kind shares is
// conformance.test.ts.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectController } from '../../src/controllers/project/index.ts';
import { secretBatchController } from '../../src/controllers/secret-batch/index.ts';
import { ANNOTATION_EXTERNAL_ID } from '../../src/runtime/object-meta.ts';
import { statusCodeOf, waitFor } from '../support/kube.ts';
import { folderValues } from '../support/service-folder.ts';
import {
  HARNESS_CONNECTION,
  startOperatorHarness,
  type CofferObject,
  type OperatorHarness,
} from '../support/operator.ts';

let h: OperatorHarness;
let projectId = '';
const connectionRef = { name: HARNESS_CONNECTION };
/** Recognisable values: none may appear outside Secrets and the service. */
const marker = `sbv${randomBytes(6).toString('hex')}`;
const value = (name: string) => `${marker}-${name}`;

beforeAll(async () => {
  h = await startOperatorHarness({ operator: { kinds: [projectController, secretBatchController] } });
  projectId = await h.createDevProject('shop', 'Shop');
});

afterAll(async () => {
  await h?.stop();
});

const spec = (extra: Record<string, unknown>) => ({
  connectionRef,
  projectRef: { name: 'shop' },
  environment: 'dev',
  ...extra,
});

const folder = (secretPath: string) => folderValues(h.service, projectId, secretPath);

const where = (secretPath: string) => ({ workspaceId: projectId, environment: 'dev', secretPath });

/** Successful writes to secret and folder routes so far. */
function secretWrites(): number {
  const byRoute = h.devserver.stats.writes.byRoute;
  return Object.entries(byRoute)
    .filter(([route]) => route.includes('/secrets') || route.includes('/folders'))
    .reduce((sum, [, n]) => sum + n, 0);
}

/** Requests a reconcile and waits until the operator handled it. */
async function reconciled(name: string): Promise<CofferObject> {
  const patched = await h.requestReconcile('SecretBatch', name);
  const wanted = patched.metadata.annotations?.['coffer.dev/reconcile-requested-at'];
  return waitFor(
    async () => {
      const obj = await h.get('SecretBatch', name);
      return obj?.status?.lastHandledReconcileAt === wanted ? obj : undefined;
    },
    { timeoutMs: 20_000, message: `SecretBatch ${name} to handle the reconcile request` },
  );
}

function ownedKeys(obj: CofferObject | undefined): string[] {
  return ((obj?.status?.ownedKeys ?? []) as { key: string }[]).map((k) => k.key);
}

describe('SecretBatch', () => {
  it('creates the folders and pushes values, recording keys with versions and hashes only', async () => {
    await h.createSecret('app-db', { password: value('db'), user: 'app' });
    await h.create(
      'SecretBatch',
      'app',
      spec({
        secretPath: '/app/db',
        secrets: [
          {
            key: 'DB_PASSWORD',
            valueFrom: { secretKeyRef: { name: 'app-db', key: 'password' } },
            comment: 'rotated',
          },
          { key: 'LOG_LEVEL', value: 'info' },
        ],
      }),
    );
    const ready = await h.waitForReady('SecretBatch', 'app');
    expect(ready.status?.id).toBe(`${projectId}:dev:/app/db`);
    expect(ready.metadata.annotations?.[ANNOTATION_EXTERNAL_ID]).toBe(`${projectId}:dev:/app/db`);
    expect(await folder('/app/db')).toEqual({ DB_PASSWORD: value('db'), LOG_LEVEL: 'info' });
    expect(ready.status).toMatchObject({ ownedKeyCount: 2, driftCorrections: 0 });
    const owned = ready.status?.ownedKeys as { key: string; version: number; hash: string }[];
    expect(owned.map((k) => [k.key, k.version])).toEqual([
      ['DB_PASSWORD', 1],
      ['LOG_LEVEL', 1],
    ]);
    expect(owned.every((k) => /^[\w-]{22}$/.test(k.hash))).toBe(true);
  });

  it('writes nothing when nothing changed', async () => {
    const before = secretWrites();
    await reconciled('app');
    await reconciled('app');
    expect(secretWrites()).toBe(before);
  });

  it('pushes a changed source Secret within seconds', async () => {
    await h.createSecret('app-db', { password: value('db2'), user: 'app' });
    await waitFor(async () => (await folder('/app/db')).DB_PASSWORD === value('db2'), {
      timeoutMs: 15_000,
      message: 'the new value in the service',
    });
    const after = await waitFor(async () => {
      const obj = await h.get('SecretBatch', 'app');
      const db = (obj?.status?.ownedKeys as { key: string; version: number }[] | undefined)?.[0];
      return db?.version === 2 ? obj : undefined;
    });
    expect(after.status?.driftCorrections).toBe(0);
  });

  it('restores a value changed in the service on the next sync and counts it', async () => {
    await h.service.secrets.update('LOG_LEVEL', { ...where('/app/db'), secretValue: 'debug' });
    await reconciled('app');
    expect((await folder('/app/db')).LOG_LEVEL).toBe('info');
    const obj = await h.get('SecretBatch', 'app');
    expect(obj?.status?.driftCorrections).toBe(1);
  });

  it('updates one field: a comment', async () => {
    await h.patch('SecretBatch', 'app', {
      spec: {
        secrets: [
          {
            key: 'DB_PASSWORD',
            valueFrom: { secretKeyRef: { name: 'app-db', key: 'password' } },
            comment: 'vault',
          },
          { key: 'LOG_LEVEL', value: 'info' },
        ],
      },
    });
    await h.waitForReady('SecretBatch', 'app');
    const stored = await h.service.secrets.get('DB_PASSWORD', where('/app/db'));
    expect(stored.secretComment).toBe('vault');
  });

  it('renames a key with previousKey and leaves keys it does not own alone', async () => {
    const before = await h.service.secrets.get('LOG_LEVEL', where('/app/db'));
    await h.service.secrets.create('FOREIGN', { ...where('/app/db'), secretValue: 'theirs' });
    await h.patch('SecretBatch', 'app', {
      spec: {
        secrets: [
          {
            key: 'DB_PASSWORD',
            valueFrom: { secretKeyRef: { name: 'app-db', key: 'password' } },
            comment: 'vault',
          },
          { key: 'LOG_VERBOSITY', previousKey: 'LOG_LEVEL', value: 'info' },
        ],
      },
    });
    await waitFor(async () => 'LOG_VERBOSITY' in (await folder('/app/db')), { timeoutMs: 15_000 });
    const stored = await h.service.secrets.get('LOG_VERBOSITY', where('/app/db'));
    // A rename, not a delete and create: the secret kept its id and history.
    expect([stored.id, stored.version]).toEqual([before.id, before.version + 1]);
    expect(await folder('/app/db')).toEqual({
      DB_PASSWORD: value('db2'),
      LOG_VERBOSITY: 'info',
      FOREIGN: 'theirs',
    });
  });

  it('pushes every key of fromSecret', async () => {
    await h.createSecret('app-env', { URL: value('url'), MODE: 'blue' });
    await h.create(
      'SecretBatch',
      'env',
      spec({ secretPath: '/env', fromSecret: { name: 'app-env', keyPrefix: 'APP_' } }),
    );
    await h.waitForReady('SecretBatch', 'env');
    expect(await folder('/env')).toEqual({ APP_URL: value('url'), APP_MODE: 'blue' });
  });

  it('reports a missing folder when createFolders is false', async () => {
    await h.create(
      'SecretBatch',
      'nofolder',
      spec({ secretPath: '/does/not/exist', createFolders: false, secrets: [{ key: 'A', value: 'a' }] }),
    );
    const obj = await h.waitForCondition('SecretBatch', 'nofolder', {
      type: 'Synced',
      status: 'False',
      reason: 'FolderNotFound',
    });
    expect(obj.status?.conditions?.find((c) => c.type === 'Synced')?.message).toContain('/does/not/exist');
    await h.delete('SecretBatch', 'nofolder');
    await h.waitForDeletion('SecretBatch', 'nofolder');
  });

  it('adopts keys by external id without writing what is already equal', async () => {
    await h.service.folders.create({ projectId, environment: 'dev', path: '/', name: 'adopt' });
    await h.service.secrets.create('ADOPTED', { ...where('/adopt'), secretValue: 'same' });
    const before = secretWrites();
    await h.create(
      'SecretBatch',
      'adopter',
      spec({ secretPath: '/adopt', secrets: [{ key: 'ADOPTED', value: 'same' }] }),
      {
        annotations: { [ANNOTATION_EXTERNAL_ID]: `${projectId}:dev:/adopt` },
      },
    );
    const ready = await h.waitForReady('SecretBatch', 'adopter');
    expect(ownedKeys(ready)).toEqual(['ADOPTED']);
    expect(secretWrites()).toBe(before);
    await h.waitForEvent('adopter', (e) => e.reason === 'AdoptedExternal');
  });

  it('deletes only its owned keys with deletionPolicy Delete', async () => {
    await h.delete('SecretBatch', 'app');
    await h.waitForDeletion('SecretBatch', 'app');
    expect(await folder('/app/db')).toEqual({ FOREIGN: 'theirs' });
  });

  it('refuses invalid specs with readable messages', async () => {
    const both = spec({
      secrets: [{ key: 'A', value: 'a', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
    });
    const error: unknown = await h.create('SecretBatch', 'bad', both).catch((e: unknown) => e);
    expect(statusCodeOf(error)).toBe(422);
    expect(String((error as { body?: unknown }).body)).toContain('exactly one of value or valueFrom');
    const moved: unknown = await h
      .patch('SecretBatch', 'adopter', { spec: { secretPath: '/elsewhere' } })
      .catch((e: unknown) => e);
    expect(statusCodeOf(moved)).toBe(422);
    expect(String((moved as { body?: unknown }).body)).toContain('immutable');
  });

  it('never shows a value in logs, events or status', async () => {
    expect(h.logs()).not.toContain(marker);
    expect(h.logs()).not.toContain(h.admin.token);
    for (const name of ['app', 'env', 'adopter']) {
      const events = await h.events(name);
      expect(JSON.stringify(events.map((e) => e.message))).not.toContain(marker);
    }
    const remaining = await h.get('SecretBatch', 'adopter');
    expect(JSON.stringify(remaining)).not.toContain(marker);
  });
});
