// Folder creation for SecretBatches against a devserver on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContract, type Contract } from '../../../test/support/client-contract.ts';
import { ensureFolders } from './folder.ts';

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

describe('ensureFolders', () => {
  it('creates a nested folder and its missing parents with one call', async () => {
    const before = requests();
    const scope = { projectId, environment: 'dev', secretPath: '/apps/api/config' };
    expect(await ensureFolders(contract.admin, scope, signal)).toBe('created');
    expect(requests() - before).toBe(1);
    expect(await folderNames('/apps')).toEqual(['api']);
    expect(await folderNames('/apps/api')).toEqual(['config']);
  });

  it('reports a folder that already exists (the service answers 400) after checking its parent', async () => {
    const scope = { projectId, environment: 'dev', secretPath: '/shared' };
    expect(await ensureFolders(contract.admin, scope, signal)).toBe('created');
    const before = requests();
    expect(await ensureFolders(contract.admin, scope, signal)).toBe('existed');
    expect(requests() - before).toBe(2);
    expect(await folderNames('/')).toContain('shared');
  });

  it('makes no call for the root folder', async () => {
    const before = requests();
    expect(
      await ensureFolders(contract.admin, { projectId, environment: 'dev', secretPath: '/' }, signal),
    ).toBe('existed');
    expect(requests()).toBe(before);
  });

  it('passes on other failures (an environment that does not exist)', async () => {
    const scope = { projectId, environment: 'nope', secretPath: '/x' };
    await expect(ensureFolders(contract.admin, scope, signal)).rejects.toMatchObject({ status: 404 });
  });
});
