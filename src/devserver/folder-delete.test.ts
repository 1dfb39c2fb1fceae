/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument -- the tests read fields of arbitrary JSON answers */
// `DELETE /api/v2/folders/{idOrName}` and `/api/v1/folders/{idOrName}` over real HTTP, as the
// service's `deleteFolder` (docs/service-facts.md, "Folders: delete"): v2 refuses a folder holding
// secrets or folders unless `forceDelete`; the folder goes with its secrets, subfolders and the
// imports they hold; and no project event is published for it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './test-support.ts';

let t: TestServer;
let token: string;
let projectId: string;

beforeEach(async () => {
  t = await startTestServer();
  ({ token } = await t.bootstrap());
  projectId = (await t.call('POST', '/api/v2/workspace', { body: { projectName: 'Deletes' } })).body.project
    .id;
});

afterEach(async () => {
  await t.close();
});

async function folder(name: string, path = '/'): Promise<void> {
  const res = await t.call('POST', '/api/v2/folders', {
    body: { projectId, environment: 'dev', name, path },
  });
  expect(res.status).toBe(200);
}

async function put(secretPath: string, secrets: Record<string, string>): Promise<void> {
  const res = await t.call('POST', '/api/v3/secrets/batch/raw', {
    body: {
      workspaceId: projectId,
      environment: 'dev',
      secretPath,
      secrets: Object.entries(secrets).map(([secretKey, secretValue]) => ({ secretKey, secretValue })),
    },
  });
  expect(res.status).toBe(200);
}

const deleteV2 = (name: string, extra: Record<string, unknown> = {}) =>
  t.call('DELETE', `/api/v2/folders/${name}`, {
    body: { projectId, environment: 'dev', path: '/', ...extra },
  });

const listSecrets = (secretPath: string) =>
  t.call('GET', `/api/v3/secrets/raw?workspaceId=${projectId}&environment=dev&secretPath=${secretPath}`);

/** A project event stream registered for every event kind of the project; frames without pings. */
async function openStream(): Promise<{ next: () => Promise<string>; close: () => void }> {
  const ac = new AbortController();
  const register = ['secret:create', 'secret:update', 'secret:delete', 'secret:import-mutation'].map(
    (event) => ({ event }),
  );
  const res = await fetch(`${t.server.url}/api/v1/events/subscribe/project-events`, {
    method: 'POST',
    signal: ac.signal,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ projectId, register }),
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const frame = async (): Promise<string> => {
    while (!buffer.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended');
      buffer += decoder.decode(value, { stream: true });
    }
    const end = buffer.indexOf('\n\n');
    const text = buffer.slice(0, end);
    buffer = buffer.slice(end + 2);
    return text;
  };
  const next = async (): Promise<string> => {
    for (;;) {
      const text = await frame();
      if (!text.includes('event: ping')) return text;
    }
  };
  return { next, close: () => ac.abort() };
}

describe('folder delete', () => {
  it('v2: refuses a folder holding a secret or a folder without forceDelete (400), deletes an empty one', async () => {
    await folder('app');
    await put('/app', { A: 'a' });
    await folder('outer');
    await folder('inner', '/outer');
    await folder('empty');
    for (const name of ['app', 'outer']) {
      const refused = await deleteV2(name);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        statusCode: 400,
        error: 'deleteFolder',
        message: `Cannot delete folder "${name}" because it contains resources. Use forceDelete=true to delete it forcefully.`,
      });
    }
    expect((await listSecrets('/app')).body.secrets).toHaveLength(1);
    expect((await deleteV2('empty')).status).toBe(200);
  });

  it('deletes a folder with its secrets and subfolders: v2 with forceDelete, v1 without the field', async () => {
    await folder('app');
    await folder('db', '/app');
    await put('/app/db', { B: 'b' });
    const deleted = await deleteV2('app', { forceDelete: true });
    expect(deleted.status).toBe(200);
    expect(deleted.body.folder).toMatchObject({ name: 'app' });
    for (const path of ['/app', '/app/db']) expect((await listSecrets(path)).status).toBe(404);

    await folder('legacy');
    await put('/legacy', { C: 'c' });
    const v1 = await t.call('DELETE', '/api/v1/folders/legacy', {
      body: { workspaceId: projectId, environment: 'dev', path: '/' },
    });
    expect(v1.status).toBe(200);
    expect((await listSecrets('/legacy')).status).toBe(404);
  });

  it('drops the imports the folder held; an import of the folder elsewhere stays', async () => {
    await folder('shared');
    await folder('app');
    const imports = '/api/v1/secret-imports';
    const add = (path: string, importPath: string) =>
      t.call('POST', imports, {
        body: {
          workspaceId: projectId,
          environment: 'dev',
          path,
          import: { environment: 'dev', path: importPath },
        },
      });
    expect((await add('/app', '/shared')).status).toBe(200);
    expect((await add('/', '/app')).status).toBe(200);
    expect((await deleteV2('app')).status).toBe(200);
    await folder('app');
    const held = await t.call('GET', `${imports}?workspaceId=${projectId}&environment=dev&path=/app`);
    expect(held.body.secretImports).toEqual([]);
    const elsewhere = await t.call('GET', `${imports}?workspaceId=${projectId}&environment=dev&path=/`);
    expect(elsewhere.body.secretImports.map((i: { importPath: string }) => i.importPath)).toEqual(['/app']);
  });

  it('publishes no project event for the deleted folder or its secrets', async () => {
    await folder('app');
    await folder('db', '/app');
    await put('/app', { A: 'a' });
    await put('/app/db', { B: 'b' });
    const stream = await openStream();
    try {
      expect((await deleteV2('app', { forceDelete: true })).status).toBe(200);
      // The next write's event is the next frame: nothing was sent for the deletion before it.
      await put('/', { MARK: 'm' });
      const frame = await stream.next();
      expect(frame).toContain('event: secret:create');
      const data = JSON.parse(
        frame
          .split('\n')
          .find((l) => l.startsWith('data: '))!
          .slice('data: '.length),
      );
      expect(data.data.payload).toEqual([{ environment: 'dev', secretPath: '/', secretKeys: 'MARK' }]);
    } finally {
      stream.close();
    }
  });
});
