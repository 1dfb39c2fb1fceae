/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- the tests read fields of arbitrary JSON answers */
// Raw secrets, folders and the project event stream over HTTP.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIdentityWithToken, startTestServer, type TestServer } from './test-support.ts';

let t: TestServer;
let orgId: string;
let token: string;
let projectId: string;

beforeEach(async () => {
  t = await startTestServer();
  ({ orgId, token } = await t.bootstrap());
  projectId = (await t.call('POST', '/api/v2/workspace', { body: { projectName: 'Secrets' } })).body.project
    .id;
});

afterEach(async () => {
  await t.close();
});

const batch = '/api/v3/secrets/batch/raw';
const scope = () => ({ workspaceId: projectId, environment: 'dev' });

async function seed(): Promise<void> {
  const res = await t.call('POST', batch, {
    body: {
      ...scope(),
      secrets: [
        { secretKey: 'A', secretValue: '  one\n\n' },
        { secretKey: 'B', secretValue: 'two' },
      ],
    },
  });
  expect(res.status).toBe(200);
}

describe('raw secrets', () => {
  it('normalises values, bumps versions and reads by name and id', async () => {
    await seed();
    const a = await t.call('GET', `/api/v3/secrets/raw/A?workspaceId=${projectId}&environment=dev`);
    expect(a.body.secret).toMatchObject({
      secretKey: 'A',
      secretValue: 'one\n',
      version: 1,
      secretValueHidden: false,
    });
    await t.call('PATCH', '/api/v3/secrets/raw/A', { body: { ...scope(), secretValue: 'uno' } });
    const byId = await t.call('GET', `/api/v3/secrets/raw/id/${a.body.secret.id}`);
    expect(byId.body.secret).toMatchObject({ secretValue: 'uno', version: 2 });
    const old = await t.call(
      'GET',
      `/api/v3/secrets/raw/A?workspaceId=${projectId}&environment=dev&version=1`,
    );
    expect(old.body.secret.secretValue).toBe('one\n');
    expect(
      (await t.call('POST', '/api/v3/secrets/raw/A', { body: { ...scope(), secretValue: 'dup' } })).status,
    ).toBe(400);
    const v4 = await t.call('GET', `/api/v4/secrets/A?projectId=${projectId}&environment=dev`);
    expect(v4.body.secret.secretValue).toBe('uno');
    expect((await t.call('DELETE', '/api/v3/secrets/raw/A', { body: scope() })).status).toBe(200);
    expect(
      (await t.call('GET', `/api/v3/secrets/raw/A?workspaceId=${projectId}&environment=dev`)).status,
    ).toBe(404);
  });

  it('batch update: failOnNotFound is all-or-nothing, upsert creates, ignore skips, renames collide with 400', async () => {
    await seed();
    const fail = await t.call('PATCH', batch, {
      body: {
        ...scope(),
        secrets: [
          { secretKey: 'A', secretValue: 'changed' },
          { secretKey: 'MISSING', secretValue: 'x' },
        ],
      },
    });
    expect(fail.status).toBe(404);
    const list = async () =>
      (await t.call('GET', `/api/v3/secrets/raw?workspaceId=${projectId}&environment=dev`)).body.secrets;
    expect((await list()).find((s: { secretKey: string }) => s.secretKey === 'A').secretValue).toBe('one\n');
    const upsert = await t.call('PATCH', batch, {
      body: {
        ...scope(),
        mode: 'upsert',
        secrets: [
          { secretKey: 'A', secretValue: 'changed' },
          { secretKey: 'C', secretValue: 'new' },
        ],
      },
    });
    expect(
      upsert.body.secrets.map((s: { secretKey: string; version: number }) => [s.secretKey, s.version]),
    ).toEqual([
      ['A', 2],
      ['C', 1],
    ]);
    const ignore = await t.call('PATCH', batch, {
      body: { ...scope(), mode: 'ignore', secrets: [{ secretKey: 'NOPE', secretValue: 'x' }] },
    });
    expect(ignore.body.secrets).toEqual([]);
    const collide = await t.call('PATCH', batch, {
      body: { ...scope(), secrets: [{ secretKey: 'A', newSecretName: 'B' }] },
    });
    expect(collide.status).toBe(400);
    const rename = await t.call('PATCH', batch, {
      body: { ...scope(), secrets: [{ secretKey: 'A', newSecretName: 'A_RENAMED' }] },
    });
    expect(rename.body.secrets[0].secretKey).toBe('A_RENAMED');
    const del = await t.call('DELETE', batch, {
      body: { ...scope(), secrets: [{ secretKey: 'B' }, { secretKey: 'NOPE' }] },
    });
    expect(del.status).toBe(404);
    expect(
      (await t.call('DELETE', batch, { body: { ...scope(), secrets: [{ secretKey: 'B' }] } })).status,
    ).toBe(200);
  });

  it('masks values the caller may only describe', async () => {
    await seed();
    await t.call('POST', `/api/v2/workspace/${projectId}/roles`, {
      body: {
        slug: 'lister',
        name: 'Lister',
        permissions: [{ subject: 'secrets', action: ['describeSecret'] }],
      },
    });
    const who = await createIdentityWithToken(t, orgId);
    await t.call('POST', `/api/v1/projects/${projectId}/memberships/identities/${who.identityId}`, {
      body: { role: 'lister' },
    });
    const res = await t.call('GET', `/api/v3/secrets/raw?workspaceId=${projectId}&environment=dev`, {
      token: who.token,
    });
    expect(res.status).toBe(200);
    expect(res.body.secrets).toHaveLength(2);
    for (const s of res.body.secrets)
      expect(s).toMatchObject({ secretValueHidden: true, secretValue: '<hidden-by-infisical>' });
  });
});

describe('folders', () => {
  it('creates on v1 and v2 paths, lists and deletes; secrets need an existing folder', async () => {
    const v2 = await t.call('POST', '/api/v2/folders', {
      body: { projectId, environment: 'dev', name: 'app' },
    });
    expect(v2.body.folder).toMatchObject({ name: 'app' });
    const v1 = await t.call('POST', '/api/v1/folders', {
      body: { workspaceId: projectId, environment: 'dev', name: 'db', path: '/app' },
    });
    expect(v1.status).toBe(200);
    expect(
      (await t.call('POST', '/api/v2/folders', { body: { projectId, environment: 'dev', name: 'bad name' } }))
        .status,
    ).toBe(422);
    const listed = await t.call('GET', `/api/v1/folders?workspaceId=${projectId}&environment=dev&path=/app`);
    expect(listed.body.folders.map((f: { name: string }) => f.name)).toEqual(['db']);
    const missing = await t.call('POST', batch, {
      body: { ...scope(), secretPath: '/nowhere', secrets: [{ secretKey: 'K', secretValue: 'v' }] },
    });
    expect(missing.status).toBe(404);
    const del = await t.call('DELETE', '/api/v2/folders/app', {
      body: { projectId, environment: 'dev', path: '/', forceDelete: true },
    });
    expect(del.status).toBe(200);
    expect(
      (await t.call('GET', `/api/v2/folders?projectId=${projectId}&environment=dev`)).body.folders,
    ).toEqual([]);
  });
});

async function openStream(
  register: unknown[],
  tok = token,
): Promise<{ status: number; next: () => Promise<string>; close: () => void; body?: unknown }> {
  const ac = new AbortController();
  const res = await fetch(`${t.server.url}/api/v1/events/subscribe/project-events`, {
    method: 'POST',
    signal: ac.signal,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tok}` },
    body: JSON.stringify({ projectId, register }),
  });
  if (res.status !== 200)
    return {
      status: res.status,
      body: await res.json(),
      next: () => Promise.resolve(''),
      close: () => undefined,
    };
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const next = async () => {
    while (!buffer.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended');
      buffer += decoder.decode(value, { stream: true });
    }
    const end = buffer.indexOf('\n\n');
    const frame = buffer.slice(0, end);
    buffer = buffer.slice(end + 2);
    return frame;
  };
  return { status: 200, next, close: () => ac.abort() };
}

describe('project events', () => {
  it('streams matching secret events for a batch write, and not others', async () => {
    const stream = await openStream([
      { event: 'secret:create', conditions: { environmentSlug: 'dev', secretPath: '/' } },
    ]);
    await t.call('POST', batch, {
      body: {
        workspaceId: projectId,
        environment: 'staging',
        secrets: [{ secretKey: 'S', secretValue: 'v' }],
      },
    });
    await seed();
    const frame = await stream.next();
    const lines = frame.split('\n');
    expect(lines[1]).toBe('event: secret:create');
    const data = JSON.parse(lines[2]!.slice('data: '.length));
    expect(data).toEqual({
      type: 'secret-manager',
      data: {
        eventType: 'secret:create',
        payload: [
          { environment: 'dev', secretPath: '/', secretKeys: 'A' },
          { environment: 'dev', secretPath: '/', secretKeys: 'B' },
        ],
      },
    });
    stream.close();
  });

  it('refuses a subscription without the secret-events permission (403) and a sixth stream (429)', async () => {
    const outsider = await createIdentityWithToken(t, orgId);
    await t.call('POST', `/api/v1/projects/${projectId}/memberships/identities/${outsider.identityId}`, {
      body: { role: 'no-access' },
    });
    const denied = await openStream([{ event: 'secret:update' }], outsider.token);
    expect(denied.status).toBe(403);
    const streams = [];
    for (let i = 0; i < 5; i++) streams.push(await openStream([{ event: 'secret:update' }]));
    const sixth = await openStream([{ event: 'secret:update' }]);
    expect(sixth.status).toBe(429);
    for (const s of streams) s.close();
  });
});
