/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-return -- the tests read fields of arbitrary JSON answers */
// `PATCH /api/v1/folders/{folderId}` (rename, as Infisical's Go SDK `Folders().Update` calls it) and
// the shape of `GET /api/v1/folders/{id}`, over real HTTP (docs/service-facts.md, "Folders").
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIdentityWithToken, startTestServer, type TestServer } from './test-support.ts';

let t: TestServer;
let orgId: string;
let projectId: string;

beforeEach(async () => {
  t = await startTestServer();
  ({ orgId } = await t.bootstrap());
  projectId = (await t.call('POST', '/api/v2/workspace', { body: { projectName: 'Folders' } })).body.project
    .id;
});

afterEach(async () => {
  await t.close();
});

async function folder(name: string, path = '/'): Promise<{ id: string }> {
  const res = await t.call('POST', '/api/v1/folders', {
    body: { workspaceId: projectId, environment: 'dev', name, path },
  });
  expect(res.status).toBe(200);
  return res.body.folder;
}

const rename = (id: string, body: Record<string, unknown>, token?: string) =>
  t.call('PATCH', `/api/v1/folders/${id}`, {
    body: { workspaceId: projectId, environment: 'dev', ...body },
    ...(token ? { token } : {}),
  });

describe('PATCH /api/v1/folders/{folderId}', () => {
  it('renames the folder, keeps its id and moves its secrets and subfolders with it', async () => {
    const app = await folder('app');
    await folder('inner', '/app');
    const secret = await t.call('POST', '/api/v3/secrets/raw/KEY', {
      body: { workspaceId: projectId, environment: 'dev', secretPath: '/app/inner', secretValue: 'v' },
    });
    expect(secret.status).toBe(200);
    const res = await rename(app.id, { name: 'service', description: 'renamed' });
    expect(res.status).toBe(200);
    expect(res.body.folder).toMatchObject({
      id: app.id,
      name: 'service',
      description: 'renamed',
      version: 2,
    });
    const moved = await t.call(
      'GET',
      `/api/v3/secrets/raw/KEY?workspaceId=${projectId}&environment=dev&secretPath=/service/inner`,
    );
    expect(moved.status).toBe(200);
    const old = await t.call(
      'GET',
      `/api/v3/secrets/raw/KEY?workspaceId=${projectId}&environment=dev&secretPath=/app/inner`,
    );
    expect(old.status).toBe(404);
    const byId = await t.call('GET', `/api/v1/folders/${app.id}`);
    expect(byId.body.folder).toMatchObject({
      path: '/service',
      projectId,
      environment: { envSlug: 'dev', envName: 'Development' },
    });
  });

  it('accepts the folder name in place of the id (old clients)', async () => {
    const app = await folder('app');
    const res = await rename('app', { name: 'service' });
    expect(res.body.folder).toMatchObject({ id: app.id, name: 'service' });
  });

  it('refuses a name a sibling has (400), an unknown folder or path (404), and no edit permission (403)', async () => {
    const app = await folder('app');
    await folder('other');
    const taken = await rename(app.id, { name: 'other' });
    expect(taken.status).toBe(400);
    expect(taken.body.message).toBe('Folder with specified name already exists');
    expect((await rename('00000000-0000-4000-8000-000000000000', { name: 'x' })).status).toBe(404);
    expect((await rename(app.id, { name: 'x', path: '/nowhere' })).status).toBe(404);
    const viewer = await createIdentityWithToken(t, orgId);
    await t.call('POST', `/api/v1/projects/${projectId}/memberships/identities/${viewer.identityId}`, {
      body: { role: 'viewer' },
    });
    expect((await rename(app.id, { name: 'x' }, viewer.token)).status).toBe(403);
  });
});
