/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call -- the tests read fields of arbitrary JSON answers */
// What the devserver answers when a list names a project, environment or folder that does not
// exist, or a caller that is no member (docs/service-facts.md, "What a source that does not exist
// answers"): the secrets list, the imports list and the folders list, each with the service's
// status, error name and message, in the service's order of checks.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createIdentityWithToken,
  startTestServer,
  type CallResult,
  type TestServer,
} from './test-support.ts';

let t: TestServer;
let orgId: string;
let projectId: string;
let projectSlug: string;
const unknownId = '00000000-0000-4000-8000-000000000000';

beforeEach(async () => {
  t = await startTestServer();
  ({ orgId } = await t.bootstrap());
  const project = (await t.call('POST', '/api/v2/workspace', { body: { projectName: 'Sources' } })).body
    .project as { id: string; slug: string };
  projectId = project.id;
  projectSlug = project.slug;
  await t.call('POST', '/api/v2/folders', {
    body: { projectId, environment: 'dev', path: '/', name: 'app' },
  });
});

afterEach(async () => {
  await t.close();
});

function expectError(res: CallResult, status: number, error: string, message: string): void {
  expect({ status: res.status, error: res.body.error, message: res.body.message }).toEqual({
    status,
    error,
    message,
  });
}

const list = (query: string, token?: string) =>
  t.call('GET', `/api/v3/secrets/raw?${query}`, token === undefined ? {} : { token });
const inProject = (rest: string) => `workspaceId=${projectId}&${rest}`;
const folderMissing = (path: string, env: string) =>
  `Folder with path '${path}' in environment '${env}' was not found. Please ensure the environment slug and secret path is correct.`;

describe('secrets list (GET /api/v3/secrets/raw)', () => {
  it('an unknown project id: 404 from the bot lookup', async () => {
    expectError(
      await list(`workspaceId=${unknownId}&environment=dev&secretPath=%2F`),
      404,
      'NotFound',
      `Project with ID '${unknownId}' not found during bot lookup. Are you sure you are using the correct project ID?`,
    );
  });

  it('an unknown project slug: 404; neither id nor slug: 400', async () => {
    expectError(
      await list('workspaceSlug=no-such-project&environment=dev&secretPath=%2F'),
      404,
      'NotFound',
      "Project with slug 'no-such-project' not found",
    );
    expectError(
      await list('environment=dev'),
      400,
      'BadRequest',
      'You must provide projectSlug or workspaceId',
    );
  });

  it('an unknown environment: SecretPathNotFound for one folder, NotFound for a recursive list', async () => {
    expectError(
      await list(inProject('environment=nope&secretPath=%2Fapp')),
      404,
      'SecretPathNotFound',
      folderMissing('/app', 'nope'),
    );
    expectError(
      await list(inProject('environment=nope&secretPath=%2F&recursive=true')),
      404,
      'NotFound',
      `Environment with slug 'nope' in project with ID ${projectId} not found`,
    );
  });

  it('a folder that does not exist: 404 SecretPathNotFound, recursive or not; an existing empty one: 200', async () => {
    for (const recursive of ['false', 'true']) {
      expectError(
        await list(inProject(`environment=dev&secretPath=%2Fapp%2Fmissing&recursive=${recursive}`)),
        404,
        'SecretPathNotFound',
        folderMissing('/app/missing', 'dev'),
      );
    }
    const empty = await list(inProject('environment=dev&secretPath=%2Fapp&include_imports=true'));
    expect({ status: empty.status, body: empty.body }).toEqual({
      status: 200,
      body: { secrets: [], imports: [] },
    });
  });

  it('a path with a character no folder name may have: 400 (one folder only)', async () => {
    expectError(
      await list(inProject('environment=dev&secretPath=%2Fa%20b')),
      400,
      'BadRequest',
      'Invalid secret path. Only alphanumeric characters, dashes, and underscores are allowed.',
    );
  });

  it('a caller that is no member: 403 ProjectMembershipNotFound, by id and by slug, before any 404', async () => {
    const { token } = await createIdentityWithToken(t, orgId);
    const message = `You are not a member of this project with ID ${projectId}. Please assign this identity to the project with the appropriate permissions, then try again.`;
    for (const query of [
      inProject('environment=dev&secretPath=%2F'),
      `workspaceSlug=${projectSlug}&environment=dev&secretPath=%2F`,
      inProject('environment=nope&secretPath=%2Fmissing'),
    ]) {
      expectError(await list(query, token), 403, 'ProjectMembershipNotFound', message);
    }
  });

  it('a member without any secret read: 403 PermissionDenied before the folder is looked up', async () => {
    const { identityId, token } = await createIdentityWithToken(t, orgId);
    const joined = await t.call(
      'POST',
      `/api/v1/projects/${projectId}/memberships/identities/${identityId}`,
      {
        body: { role: 'no-access' },
      },
    );
    expect(joined.status).toBe(200);
    expectError(
      await list(inProject('environment=dev&secretPath=%2Fmissing'), token),
      403,
      'PermissionDenied',
      'You are not allowed to describeSecret on secrets',
    );
  });
});

describe('imports list (GET /api/v1/secret-imports)', () => {
  const imports = (query: string, token?: string) =>
    t.call('GET', `/api/v1/secret-imports?${query}`, token === undefined ? {} : { token });

  it('unknown project 404; unknown environment and missing folder 404 with the folder message', async () => {
    expectError(
      await imports(`workspaceId=${unknownId}&environment=dev&path=/`),
      404,
      'NotFound',
      `Project with ${unknownId} not found`,
    );
    expectError(
      await imports(inProject('environment=nope&path=/')),
      404,
      'NotFound',
      "Folder with path '/' in environment with slug 'nope' not found",
    );
    expectError(
      await imports(inProject('environment=dev&path=/missing')),
      404,
      'NotFound',
      "Folder with path '/missing' in environment with slug 'dev' not found",
    );
    const listed = await imports(inProject('environment=dev&path=/app'));
    expect({ status: listed.status, imports: listed.body.secretImports }).toEqual({
      status: 200,
      imports: [],
    });
  });

  it('a caller that is no member: 403 even for a folder that does not exist', async () => {
    const { token } = await createIdentityWithToken(t, orgId);
    const res = await imports(inProject('environment=dev&path=/missing'), token);
    expect({ status: res.status, error: res.body.error }).toEqual({
      status: 403,
      error: 'ProjectMembershipNotFound',
    });
  });
});

describe('folders list (GET /api/v1/folders, /api/v2/folders)', () => {
  it('any member may list; unknown environment 404; a missing parent lists nothing', async () => {
    const { identityId, token } = await createIdentityWithToken(t, orgId);
    const outsider = await t.call('GET', `/api/v2/folders?projectId=${projectId}&environment=dev&path=/`, {
      token,
    });
    expect({ status: outsider.status, error: outsider.body.error }).toEqual({
      status: 403,
      error: 'ProjectMembershipNotFound',
    });
    await t.call('POST', `/api/v1/projects/${projectId}/memberships/identities/${identityId}`, {
      body: { role: 'no-access' },
    });
    const root = await t.call('GET', `/api/v1/folders?workspaceId=${projectId}&environment=dev&path=/`, {
      token,
    });
    expect({ status: root.status, names: root.body.folders.map((f: { name: string }) => f.name) }).toEqual({
      status: 200,
      names: ['app'],
    });
    expectError(
      await t.call('GET', `/api/v2/folders?projectId=${projectId}&environment=nope&path=/`, { token }),
      404,
      'NotFound',
      "Environment with slug 'nope' not found",
    );
    const missing = await t.call(
      'GET',
      `/api/v2/folders?projectId=${projectId}&environment=dev&path=/missing`,
      {
        token,
      },
    );
    expect({ status: missing.status, body: missing.body }).toEqual({ status: 200, body: { folders: [] } });
  });
});
