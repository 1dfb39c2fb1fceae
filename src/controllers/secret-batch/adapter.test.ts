// The SecretBatch adapter against a devserver on loopback, driven like the managed reconciler
// drives it (observe, then create or update; the annotation and status carried between syncs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContract, type Contract } from '../../../test/support/client-contract.ts';
import { secretBatchSpec, type SecretBatchSpec } from '../../api/v1alpha1/index.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import { WaitingError } from '../../runtime/errors.ts';
import { ANNOTATION_EXTERNAL_ID } from '../../runtime/object-meta.ts';
import { bound, context, fakeServices, managed, readyObject, resolving, type FakeWorld } from '../testing.ts';
import { secretBatchAdapter } from './adapter.ts';
import { ownedKeysOf } from './mapping.ts';
import type { SecretBatchRefs } from './references.ts';

let contract: Contract;
let world: FakeWorld;
let projectId: string;

beforeAll(async () => {
  contract = await startContract();
  projectId = (await contract.project()).id;
  world = {
    objects: { Project: [readyObject('Project', 'p', projectId)] },
    secrets: {},
    now: new Date('2030-01-01T00:00:00Z'),
  };
});
afterAll(async () => contract.close());

const adapter = () => secretBatchAdapter(fakeServices(contract.admin, world));

function batch(name: string, extra: Record<string, unknown>): ManagedObject<SecretBatchSpec> {
  const spec = secretBatchSpec.parse({
    connectionRef: { name: 'c' },
    projectRef: { name: 'p' },
    environment: 'dev',
    ...extra,
  });
  return managed<SecretBatchSpec>('SecretBatch', name, spec);
}

/** One reconcile as the generic reconciler runs it; returns what it did. */
async function sync(obj: ManagedObject<SecretBatchSpec>): Promise<'created' | 'updated' | 'unchanged'> {
  const a = adapter();
  const refs = await a.resolveReferences!(obj, resolving());
  const id = obj.metadata.annotations?.[ANNOTATION_EXTERNAL_ID];
  const client = await a.connect(obj, context<SecretBatchRefs>(refs, id));
  const seen = await client.observe(obj, context<SecretBatchRefs>(refs, id));
  if (!seen.exists) {
    const created = await client.create(obj, context<SecretBatchRefs>(refs));
    obj.metadata.annotations = { ...obj.metadata.annotations, [ANNOTATION_EXTERNAL_ID]: created.externalId };
    obj.status = { ...created.status, id: created.externalId };
    return 'created';
  }
  if (seen.upToDate) {
    obj.status = { ...obj.status, ...seen.status };
    return 'unchanged';
  }
  const updated = await client.update(obj, bound<SecretBatchRefs>(refs, id ?? ''));
  obj.status = { ...obj.status, ...updated.status };
  return 'updated';
}

async function remove(obj: ManagedObject<SecretBatchSpec>): Promise<void> {
  const a = adapter();
  const refs = await a.resolveReferences!(obj, resolving(true));
  const id = obj.metadata.annotations?.[ANNOTATION_EXTERNAL_ID] ?? '';
  const client = await a.connect(obj, context<SecretBatchRefs>(refs, id));
  await client.delete(obj, bound<SecretBatchRefs>(refs, id));
}

async function values(secretPath: string): Promise<Record<string, string>> {
  const { secrets } = await contract.admin.secrets.list({
    workspaceId: projectId,
    environment: 'dev',
    secretPath,
  });
  return Object.fromEntries(secrets.map((s) => [s.secretKey, s.secretValue]));
}

const writes = () => contract.dev.stats.writes.total;

describe('SecretBatch adapter', () => {
  it('creates the folders and keys, then writes nothing while nothing changed', async () => {
    world.secrets['ns/db'] = { password: '  pw-with-spaces  ' };
    const obj = batch('one', {
      secretPath: '/app/one',
      secrets: [
        { key: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
        { key: 'MODE', value: 'fast', comment: 'literal' },
      ],
    });
    expect(await sync(obj)).toBe('created');
    expect(obj.status?.id).toBe(`${projectId}:dev:/app/one`);
    expect(await values('/app/one')).toEqual({ DB_PASSWORD: 'pw-with-spaces', MODE: 'fast' });
    expect(obj.status).toMatchObject({ ownedKeyCount: 2, driftCorrections: 0 });
    expect(JSON.stringify(obj.status)).not.toContain('pw-with-spaces');
    const before = writes();
    expect(await sync(obj)).toBe('unchanged');
    expect(await sync(obj)).toBe('unchanged');
    expect(writes()).toBe(before);
  });

  it('costs two service calls into a new folder and three into an existing one', async () => {
    const requests = () => contract.dev.stats.snapshot().requests.total;
    const fresh = batch('fresh', { secretPath: '/fresh/a', secrets: [{ key: 'K1', value: 'v1' }] });
    let before = requests();
    expect(await sync(fresh)).toBe('created');
    expect(requests() - before).toBe(2); // POST folders, POST secrets/batch/raw (create-only)
    expect(await values('/fresh/a')).toEqual({ K1: 'v1' });
    const where = { workspaceId: projectId, environment: 'dev', secretPath: '/fresh' };
    await contract.admin.secrets.create('THEIRS', { ...where, secretValue: 'keep' });
    const existing = batch('existing', { secretPath: '/fresh', secrets: [{ key: 'NEW', value: 'n' }] });
    before = requests();
    expect(await sync(existing)).toBe('created');
    expect(requests() - before).toBe(3); // POST folders (400: exists), GET secrets/raw, PATCH batch
    expect(await values('/fresh')).toEqual({ THEIRS: 'keep', NEW: 'n' });
  });

  it('pushes a changed Secret value and restores drift made in the service, counting it', async () => {
    world.secrets['ns/two'] = { token: 'first' };
    const obj = batch('two', {
      secretPath: '/two',
      secrets: [{ key: 'TOKEN', valueFrom: { secretKeyRef: { name: 'two', key: 'token' } } }],
    });
    await sync(obj);
    world.secrets['ns/two'] = { token: 'second' };
    expect(await sync(obj)).toBe('updated');
    expect(await values('/two')).toEqual({ TOKEN: 'second' });
    expect(obj.status?.driftCorrections).toBe(0);
    const where = { workspaceId: projectId, environment: 'dev', secretPath: '/two' };
    await contract.admin.secrets.update('TOKEN', { ...where, secretValue: 'tampered' });
    expect(await sync(obj)).toBe('updated');
    expect(await values('/two')).toEqual({ TOKEN: 'second' });
    expect(obj.status?.driftCorrections).toBe(1);
    await contract.admin.secrets.delete('TOKEN', where);
    expect(await sync(obj)).toBe('updated');
    expect(obj.status?.driftCorrections).toBe(2);
  });

  it('never touches keys it does not own; deletes only owned keys', async () => {
    const where = { workspaceId: projectId, environment: 'dev', secretPath: '/' };
    await contract.admin.secrets.create('FOREIGN', { ...where, secretValue: 'theirs' });
    const obj = batch('three', {
      secrets: [
        { key: 'OURS', value: 'ours' },
        { key: 'GONE_LATER', value: 'x' },
      ],
    });
    await sync(obj);
    obj.spec = { ...obj.spec, secrets: [{ key: 'OURS', value: 'ours' }] };
    expect(await sync(obj)).toBe('updated');
    expect(await values('/')).toMatchObject({ FOREIGN: 'theirs', OURS: 'ours' });
    expect(await values('/')).not.toHaveProperty('GONE_LATER');
    await remove(obj);
    expect(await values('/')).toEqual({ FOREIGN: 'theirs' });
  });

  it('releases keys that leave the spec under deletion policy Orphan', async () => {
    const obj = batch('four', {
      secretPath: '/four',
      deletionPolicy: 'Orphan',
      secrets: [
        { key: 'KEEP', value: 'k' },
        { key: 'LEFT', value: 'l' },
      ],
    });
    await sync(obj);
    obj.spec = { ...obj.spec, secrets: [{ key: 'KEEP', value: 'k' }] };
    expect(await sync(obj)).toBe('unchanged');
    expect(ownedKeysOf(obj.status).map((k) => k.key)).toEqual(['KEEP']);
    expect(await values('/four')).toEqual({ KEEP: 'k', LEFT: 'l' });
  });

  it('renames an owned key with previousKey, keeping its history', async () => {
    const obj = batch('five', { secretPath: '/five', secrets: [{ key: 'OLD_NAME', value: 'v' }] });
    await sync(obj);
    obj.spec = { ...obj.spec, secrets: [{ key: 'NEW_NAME', previousKey: 'OLD_NAME', value: 'v' }] };
    expect(await sync(obj)).toBe('updated');
    const { secrets } = await contract.admin.secrets.list({
      workspaceId: projectId,
      environment: 'dev',
      secretPath: '/five',
    });
    expect(secrets.map((s) => [s.secretKey, s.version])).toEqual([['NEW_NAME', 2]]);
  });

  it('pushes every key of fromSecret with a prefix', async () => {
    world.secrets['ns/app'] = { URL: 'u', MODE: 'm' };
    const obj = batch('six', { secretPath: '/six', fromSecret: { name: 'app', keyPrefix: 'APP_' } });
    await sync(obj);
    expect(await values('/six')).toEqual({ APP_URL: 'u', APP_MODE: 'm' });
  });

  it('reports a missing folder when createFolders is false and missing keys under failOnNotFound', async () => {
    const noFolder = batch('seven', {
      secretPath: '/nowhere',
      createFolders: false,
      secrets: [{ key: 'A', value: 'a' }],
    });
    const folderError: unknown = await sync(noFolder).catch((e: unknown) => e);
    expect(folderError).toBeInstanceOf(WaitingError);
    expect((folderError as WaitingError).reason).toBe('FolderNotFound');
    const strict = batch('eight', {
      secretPath: '/',
      mode: 'failOnNotFound',
      secrets: [{ key: 'NOT_THERE', value: 'a' }],
    });
    const before = writes();
    const missing: unknown = await sync(strict).catch((e: unknown) => e);
    expect((missing as WaitingError).reason).toBe('SecretsNotFound');
    expect((missing as Error).message).toContain('NOT_THERE');
    expect(writes()).toBe(before);
  });

  it('adopts an existing folder by external id and writes only what differs', async () => {
    const where = { workspaceId: projectId, environment: 'dev', secretPath: '/' };
    await contract.admin.secrets.create('ADOPTED_SAME', { ...where, secretValue: 'same' });
    const obj = batch('nine', { secrets: [{ key: 'ADOPTED_SAME', value: 'same' }] });
    obj.metadata.annotations = { [ANNOTATION_EXTERNAL_ID]: `${projectId}:dev:/` };
    const before = writes();
    expect(await sync(obj)).toBe('unchanged');
    expect(writes()).toBe(before);
    expect(ownedKeysOf(obj.status).map((k) => k.key)).toEqual(['ADOPTED_SAME']);
    const wrong = batch('ten', { secrets: [{ key: 'X', value: 'x' }] });
    wrong.metadata.annotations = { [ANNOTATION_EXTERNAL_ID]: `${projectId}:prod:/` };
    const error: unknown = await sync(wrong).catch((e: unknown) => e);
    expect((error as { reason?: string }).reason).toBe('ExternalIdMismatch');
  });
});
