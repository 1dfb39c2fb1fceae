// Folder creation for SecretBatches against a devserver on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContract, type Contract } from '../../../test/support/client-contract.ts';
import { createOrReadFolder } from './folder.ts';

let contract: Contract;
let projectId: string;
const signal = new AbortController().signal;

beforeAll(async () => {
  contract = await startContract();
  projectId = (await contract.project()).id;
});
afterAll(async () => contract.close());

const requests = () => contract.dev.stats.snapshot().requests.total;
const folderNames = async (path: string) =>
  (await contract.admin.folders.list({ projectId, environment: 'dev', path })).map((f) => f.name);

describe('createOrReadFolder', () => {
  it('creates a nested folder and its missing parents with one call and knows it is empty', async () => {
    const before = requests();
    const scope = { projectId, environment: 'dev', secretPath: '/apps/api/config' };
    const result = await createOrReadFolder(contract.admin, scope, signal);
    expect(result.fresh).toBe(true);
    expect(result.current.size).toBe(0);
    expect(requests() - before).toBe(1);
    expect(await folderNames('/apps')).toEqual(['api']);
    expect(await folderNames('/apps/api')).toEqual(['config']);
  });

  it('reads a folder that already exists (the service answers 400) with one list', async () => {
    const scope = { projectId, environment: 'dev', secretPath: '/shared' };
    expect((await createOrReadFolder(contract.admin, scope, signal)).fresh).toBe(true);
    await contract.admin.secrets.create('FOREIGN', {
      workspaceId: projectId,
      environment: 'dev',
      secretPath: '/shared',
      secretValue: 'theirs',
    });
    const before = requests();
    const result = await createOrReadFolder(contract.admin, scope, signal);
    expect(result.fresh).toBe(false);
    expect([...result.current.keys()]).toEqual(['FOREIGN']);
    expect(requests() - before).toBe(2);
  });

  it('lists the root folder without trying to create it', async () => {
    const before = requests();
    const result = await createOrReadFolder(
      contract.admin,
      { projectId, environment: 'dev', secretPath: '/' },
      signal,
    );
    expect(result.fresh).toBe(false);
    expect(requests() - before).toBe(1);
  });

  it('passes on other failures (an environment that does not exist)', async () => {
    const scope = { projectId, environment: 'nope', secretPath: '/x' };
    await expect(createOrReadFolder(contract.admin, scope, signal)).rejects.toMatchObject({ status: 404 });
  });
});
