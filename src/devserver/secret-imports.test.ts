/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call -- the tests read fields of arbitrary JSON answers */
// Secret imports over HTTP: create, list and delete them, and the imported secrets in a list with
// include_imports (position order, references expanded in the imported folder).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './test-support.ts';

let t: TestServer;
let projectId: string;

beforeEach(async () => {
  t = await startTestServer();
  await t.bootstrap();
  projectId = (await t.call('POST', '/api/v2/workspace', { body: { projectName: 'Imports' } })).body.project
    .id;
  await t.call('POST', '/api/v2/folders', {
    body: { projectId, environment: 'dev', path: '/', name: 'shared' },
  });
  const put = (environment: string, secretPath: string, secrets: Record<string, string>) =>
    t.call('POST', '/api/v3/secrets/batch/raw', {
      body: {
        workspaceId: projectId,
        environment,
        secretPath,
        secrets: Object.entries(secrets).map(([secretKey, secretValue]) => ({ secretKey, secretValue })),
      },
    });
  await put('dev', '/shared', { S: 'shared', REF: '${S}-x' });
  await put('prod', '/', { P: 'prod' });
  await put('dev', '/', { OWN: 'own' });
});

afterEach(async () => {
  await t.close();
});

const imports = '/api/v1/secret-imports';
const list = (extra: string) =>
  t.call('GET', `/api/v3/secrets/raw?workspaceId=${projectId}&environment=dev&secretPath=%2F${extra}`);

describe('secret imports', () => {
  it('creates, lists in position order and deletes imports; 404 for a missing folder, 400 twice', async () => {
    const create = (environment: string, path: string) =>
      t.call('POST', imports, {
        body: { workspaceId: projectId, environment: 'dev', path: '/', import: { environment, path } },
      });
    const first = await create('dev', '/shared');
    expect(first.status).toBe(200);
    expect(first.body.secretImport).toMatchObject({
      importPath: '/shared',
      importEnv: { slug: 'dev' },
      position: 1,
    });
    expect((await create('prod', '/')).body.secretImport.position).toBe(2);
    expect((await create('dev', '/shared')).status).toBe(400);
    expect((await create('dev', '/missing')).status).toBe(404);
    const listed = await t.call('GET', `${imports}?workspaceId=${projectId}&environment=dev&path=/`);
    expect(listed.body.secretImports.map((i: { importPath: string }) => i.importPath)).toEqual([
      '/shared',
      '/',
    ]);
    const gone = await t.call('DELETE', `${imports}/${first.body.secretImport.id}`, {
      body: { workspaceId: projectId, environment: 'dev', path: '/' },
    });
    expect(gone.status).toBe(200);
    const after = await t.call('GET', `${imports}?workspaceId=${projectId}&environment=dev&path=/`);
    expect(after.body.secretImports).toMatchObject([{ importPath: '/', position: 1 }]);
  });

  it('lists imported secrets only with include_imports, expanded in the imported folder', async () => {
    for (const [environment, path] of [
      ['dev', '/shared'],
      ['prod', '/'],
    ])
      await t.call('POST', imports, {
        body: { workspaceId: projectId, environment: 'dev', path: '/', import: { environment, path } },
      });
    expect((await list('')).body.imports).toEqual([]);
    const withImports = await list('&include_imports=true&expandSecretReferences=true');
    expect(withImports.body.secrets.map((s: { secretKey: string }) => s.secretKey)).toEqual(['OWN']);
    const summary = withImports.body.imports.map(
      (i: {
        environment: string;
        secretPath: string;
        secrets: { secretKey: string; secretValue: string }[];
      }) => [
        i.environment,
        i.secretPath,
        Object.fromEntries(i.secrets.map((s) => [s.secretKey, s.secretValue])),
      ],
    );
    expect(summary).toEqual([
      ['dev', '/shared', { S: 'shared', REF: 'shared-x' }],
      ['prod', '/', { P: 'prod' }],
    ]);
  });
});
