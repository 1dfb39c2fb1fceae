// Client contract against a devserver on loopback: raw secrets (single and batch), folders
// (v1 and v2), the project event stream, integrations and certificate authorities.
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ForbiddenError,
  InvalidError,
  NotFoundError,
  parseSecretEvent,
  RequestValidationError,
  staticToken,
  TransportRegistry,
  type SseFrame,
} from '../../src/client/index.ts';
import { expectServiceError, startContract, type Contract } from '../support/client-contract.ts';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
let ctx: Contract;

beforeAll(async () => {
  ctx = await startContract();
});

afterAll(async () => {
  await ctx.close();
});

async function scoped() {
  const p = await ctx.project();
  return { p, scope: { workspaceId: p.id, environment: 'dev', secretPath: '/' } };
}

describe('secrets (single)', () => {
  it('creates, reads, lists, updates (versions increase) and deletes a secret', async () => {
    const { p, scope } = await scoped();
    const created = await ctx.admin.secrets.create('DB_URL', {
      ...scope,
      secretValue: '  postgres://db  ',
      secretComment: 'db',
    });
    expect(created).toMatchObject({
      secretKey: 'DB_URL',
      secretValue: 'postgres://db',
      version: 1,
      type: 'shared',
    });
    await expect(ctx.admin.secrets.get('DB_URL', scope)).resolves.toMatchObject({
      secretValue: 'postgres://db',
    });
    await expect(
      ctx.admin.secrets.get('DB_URL', { projectSlug: p.slug, environment: 'dev' }),
    ).resolves.toMatchObject({ secretKey: 'DB_URL' });
    const updated = await ctx.admin.secrets.update('DB_URL', { ...scope, secretValue: 'postgres://db2' });
    expect(updated.version).toBe(2);
    const list = await ctx.admin.secrets.list(scope);
    expect(list.secrets.map((s) => [s.secretKey, s.secretValue])).toEqual([['DB_URL', 'postgres://db2']]);
    await ctx.admin.secrets.delete('DB_URL', scope);
    await expectServiceError(ctx.admin.secrets.get('DB_URL', scope), NotFoundError, 404);
  });

  it('answers 400 for a duplicate, 404 for missing secrets and folders, and validates names locally', async () => {
    const { scope } = await scoped();
    await ctx.admin.secrets.create('A', { ...scope, secretValue: '1' });
    await expectServiceError(
      ctx.admin.secrets.create('A', { ...scope, secretValue: '1' }),
      InvalidError,
      400,
    );
    await expectServiceError(
      ctx.admin.secrets.update('MISSING', { ...scope, secretValue: '1' }),
      NotFoundError,
      404,
    );
    await expectServiceError(ctx.admin.secrets.delete('MISSING', scope), NotFoundError, 404);
    await expectServiceError(
      ctx.admin.secrets.create('B', { ...scope, secretPath: '/no/such/folder', secretValue: '1' }),
      NotFoundError,
      404,
    );
    await expect(ctx.admin.secrets.create('a/b', { ...scope, secretValue: '1' })).rejects.toBeInstanceOf(
      RequestValidationError,
    );
  });

  it('never puts a secret value into an error message', async () => {
    const { scope } = await scoped();
    await ctx.admin.secrets.create('TOKEN', { ...scope, secretValue: 'sup3r-s3cret-value' });
    const err = await expectServiceError(
      ctx.admin.secrets.create('TOKEN', { ...scope, secretValue: 'sup3r-s3cret-value' }),
      InvalidError,
      400,
    );
    expect(err.message).not.toContain('sup3r-s3cret-value');
  });
});

describe('secrets (batch)', () => {
  it('creates, updates with rename, upserts, ignores and deletes in batches', async () => {
    const { scope } = await scoped();
    const created = await ctx.admin.secrets.batchCreate({
      ...scope,
      secrets: [
        { secretKey: 'ONE', secretValue: '1' },
        { secretKey: 'TWO', secretValue: '2' },
      ],
    });
    expect(created.map((s) => s.secretKey).sort()).toEqual(['ONE', 'TWO']);
    const renamed = await ctx.admin.secrets.batchUpdate({
      ...scope,
      secrets: [{ secretKey: 'ONE', newSecretName: 'UNO', secretValue: '1b' }],
    });
    expect(renamed).toEqual([expect.objectContaining({ secretKey: 'UNO', secretValue: '1b', version: 2 })]);
    const upserted = await ctx.admin.secrets.batchUpdate({
      ...scope,
      mode: 'upsert',
      secrets: [
        { secretKey: 'TWO', secretValue: '2b' },
        { secretKey: 'THREE', secretValue: '3' },
      ],
    });
    expect(upserted.map((s) => [s.secretKey, s.version]).sort()).toEqual([
      ['THREE', 1],
      ['TWO', 2],
    ]);
    const ignored = await ctx.admin.secrets.batchUpdate({
      ...scope,
      mode: 'ignore',
      secrets: [
        { secretKey: 'TWO', secretValue: '2c' },
        { secretKey: 'NOPE', secretValue: 'x' },
      ],
    });
    expect(ignored.map((s) => s.secretKey)).toEqual(['TWO']);
    const deleted = await ctx.admin.secrets.batchDelete({
      ...scope,
      secrets: [{ secretKey: 'UNO' }, { secretKey: 'TWO' }],
    });
    expect(deleted.map((s) => s.secretKey).sort()).toEqual(['TWO', 'UNO']);
    const left = await ctx.admin.secrets.list(scope);
    expect(left.secrets.map((s) => s.secretKey)).toEqual(['THREE']);
  });

  it('is all-or-nothing: failOnNotFound and batch delete answer 404 and write nothing', async () => {
    const { scope } = await scoped();
    await ctx.admin.secrets.batchCreate({ ...scope, secrets: [{ secretKey: 'KEEP', secretValue: 'v1' }] });
    await expectServiceError(
      ctx.admin.secrets.batchUpdate({
        ...scope,
        secrets: [
          { secretKey: 'KEEP', secretValue: 'v2' },
          { secretKey: 'GONE', secretValue: 'x' },
        ],
      }),
      NotFoundError,
      404,
      /GONE/,
    );
    await expectServiceError(
      ctx.admin.secrets.batchDelete({ ...scope, secrets: [{ secretKey: 'KEEP' }, { secretKey: 'GONE' }] }),
      NotFoundError,
      404,
    );
    await expect(ctx.admin.secrets.get('KEEP', scope)).resolves.toMatchObject({
      secretValue: 'v1',
      version: 1,
    });
    await expectServiceError(
      ctx.admin.secrets.batchCreate({ ...scope, secrets: [{ secretKey: 'KEEP', secretValue: 'x' }] }),
      InvalidError,
      400,
    );
  });

  it('answers 400 when a rename collides with an existing secret', async () => {
    const { scope } = await scoped();
    await ctx.admin.secrets.batchCreate({
      ...scope,
      secrets: [
        { secretKey: 'X', secretValue: '1' },
        { secretKey: 'Y', secretValue: '2' },
      ],
    });
    await expectServiceError(
      ctx.admin.secrets.batchUpdate({ ...scope, secrets: [{ secretKey: 'X', newSecretName: 'Y' }] }),
      InvalidError,
      400,
      /already exists/,
    );
  });
});

describe('folders', () => {
  it('v2: creates, lists and deletes; secrets can live in the folder', async () => {
    const { p, scope } = await scoped();
    const folder = await ctx.admin.folders.create({ projectId: p.id, environment: 'dev', name: 'app' });
    expect(folder).toMatchObject({ name: 'app' });
    await ctx.admin.secrets.create('IN_APP', { ...scope, secretPath: '/app', secretValue: 'x' });
    const list = await ctx.admin.folders.list({ projectId: p.id, environment: 'dev', path: '/' });
    expect(list.map((f) => f.name)).toEqual(['app']);
    await expectServiceError(
      ctx.admin.folders.delete('app', { projectId: p.id, environment: 'dev', path: '/' }),
      InvalidError,
      400,
      /contains resources/,
    );
    await expect(
      ctx.admin.folders.delete('app', { projectId: p.id, environment: 'dev', path: '/', forceDelete: true }),
    ).resolves.toMatchObject({
      id: folder.id,
    });
    await expectServiceError(
      ctx.admin.folders.delete('app', { projectId: p.id, environment: 'dev', path: '/' }),
      NotFoundError,
      404,
    );
  });

  it('v1: creates, lists and deletes by workspaceId', async () => {
    const { p } = await scoped();
    const folder = await ctx.admin.folders.v1.create({
      workspaceId: p.id,
      environment: 'dev',
      name: 'legacy',
    });
    const list = await ctx.admin.folders.v1.list({ workspaceId: p.id, environment: 'dev' });
    expect(list.map((f) => f.id)).toContain(folder.id);
    await ctx.admin.folders.v1.delete(folder.id, { workspaceId: p.id, environment: 'dev' });
    await expect(ctx.admin.folders.v1.list({ workspaceId: p.id, environment: 'dev' })).resolves.toEqual([]);
  });

  it('refuses a repeated create with 400, and validates names locally', async () => {
    const { p } = await scoped();
    await ctx.admin.folders.create({ projectId: p.id, environment: 'dev', name: 'twice' });
    await expectServiceError(
      ctx.admin.folders.create({ projectId: p.id, environment: 'dev', name: 'twice' }),
      InvalidError,
      400,
      /Folder with name 'twice' already exists in path '\/'/,
    );
    await expect(ctx.admin.folders.list({ projectId: p.id, environment: 'dev' })).resolves.toHaveLength(1);
    await expect(
      ctx.admin.folders.create({ projectId: p.id, environment: 'dev', name: 'a b' }),
    ).rejects.toBeInstanceOf(RequestValidationError);
    await expectServiceError(
      ctx.admin.folders.create({ projectId: p.id, environment: 'nope', name: 'x' }),
      NotFoundError,
      404,
    );
  });
});

describe('events.subscribe', () => {
  it('streams secret:create for a matching write', async () => {
    const { p, scope } = await scoped();
    const subscription = await ctx.admin.events.subscribe({
      projectId: p.id,
      register: [{ event: 'secret:create', conditions: { environmentSlug: 'dev', secretPath: '/' } }],
    });
    const frames: SseFrame[] = [];
    const reading = (async () => {
      for await (const frame of subscription) {
        frames.push(frame);
        if (frame.event === 'secret:create') return;
      }
    })();
    // Writes to another environment do not match; the second write does.
    await ctx.admin.secrets.create('OTHER_ENV', { ...scope, environment: 'prod', secretValue: 'x' });
    await ctx.admin.secrets.create('WATCHED', { ...scope, secretValue: 'x' });
    await reading;
    subscription.close();
    const event = parseSecretEvent(frames.at(-1)!);
    expect(event).toEqual({
      eventType: 'secret:create',
      changes: [{ environment: 'dev', secretPath: '/', secretKeys: ['WATCHED'] }],
    });
  });

  it('keeps open streams off the request sockets: requests still flow with more streams than sockets', async () => {
    // Two request sockets, three streams: were streams on the request Pool, the GET would wait forever.
    const client = ctx.client({
      auth: staticToken(ctx.adminToken),
      connections: 2,
      registry: new TransportRegistry(),
    });
    const projects = await Promise.all([ctx.project(), ctx.project(), ctx.project()]);
    const streams = await Promise.all(
      projects.map((p) =>
        client.events.subscribe({ projectId: p.id, register: [{ event: 'secret:update' }] }),
      ),
    );
    const [first] = projects;
    await expect(client.projects.get(first.id)).resolves.toMatchObject({ slug: first.slug });
    for (const stream of streams) stream.close();
  });

  it('answers 403 to an identity without access to the project', async () => {
    const { p } = await scoped();
    const outsider = await ctx.identity('member');
    await expectServiceError(
      outsider.client.events.subscribe({ projectId: p.id, register: [{ event: 'secret:update' }] }),
      ForbiddenError,
      403,
    );
  });
});

describe('integrations', () => {
  it('stores integration auth without ever returning the token, and lists integrations', async () => {
    const { p } = await scoped();
    const auth = await ctx.admin.integrations.auth.createWithAccessToken({
      workspaceId: p.id,
      integration: 'aws-secret-manager',
      accessId: 'AKIAEXAMPLE',
      accessToken: 'aws-secret-key-value',
    });
    expect(auth).toMatchObject({ projectId: p.id, integration: 'aws-secret-manager' });
    const fetched = await ctx.admin.integrations.auth.get(auth.id);
    expect(JSON.stringify(fetched)).not.toContain('aws-secret-key-value');
    const all = await ctx.admin.integrations.auth.list(p.id);
    expect(all.map((a) => a.id)).toEqual([auth.id]);
    await expect(ctx.admin.integrations.list(p.id)).resolves.toEqual([]);
    await ctx.admin.integrations.auth.delete(auth.id);
    await expectServiceError(ctx.admin.integrations.auth.get(auth.id), NotFoundError, 404);
  });

  it('answers 404 for unknown integrations', async () => {
    await expectServiceError(ctx.admin.integrations.get(UNKNOWN), NotFoundError, 404);
    await expectServiceError(
      ctx.admin.integrations.update(UNKNOWN, { isActive: false, secretPath: '/' }),
      NotFoundError,
      404,
    );
    await expectServiceError(ctx.admin.integrations.delete(UNKNOWN), NotFoundError, 404);
    await expectServiceError(ctx.admin.integrations.auth.delete(UNKNOWN), NotFoundError, 404);
  });
});

describe('certificate authorities', () => {
  it('creates a real root CA whose fields come from its certificate', async () => {
    const { p } = await scoped();
    const ca = await ctx.admin.pki.createCa({
      projectSlug: p.slug,
      type: 'root',
      commonName: 'Contract Root CA',
      organization: 'Contract Org',
      ou: '',
      country: 'DE',
      province: '',
      locality: '',
      keyAlgorithm: 'EC_prime256v1',
      notAfter: '2035-01-01T00:00:00Z',
    });
    expect(ca).toMatchObject({ status: 'active', type: 'root', keyAlgorithm: 'EC_prime256v1' });
    const { certificate, serialNumber } = await ctx.admin.pki.getCaCertificate(ca.id);
    const x509 = new X509Certificate(certificate);
    expect(x509.ca).toBe(true);
    expect(x509.subject).toContain('CN=Contract Root CA');
    expect(x509.serialNumber.toLowerCase()).toBe(serialNumber.toLowerCase());
    expect(ca.serialNumber?.toLowerCase()).toBe(serialNumber.toLowerCase());
    expect(Date.parse(ca.notAfter!)).toBe(Date.parse(x509.validTo));
    await expect(ctx.admin.pki.getCa(ca.id)).resolves.toMatchObject({ id: ca.id, dn: ca.dn });
    await expect(ctx.admin.pki.updateCa(ca.id, { status: 'disabled' })).resolves.toMatchObject({
      status: 'disabled',
    });
    await ctx.admin.pki.deleteCa(ca.id);
    await expectServiceError(ctx.admin.pki.getCa(ca.id), NotFoundError, 404);
  });

  it('answers 404 for unknown CAs and validates the subject locally', async () => {
    const { p } = await scoped();
    await expectServiceError(ctx.admin.pki.getCaCertificate(UNKNOWN), NotFoundError, 404);
    await expectServiceError(ctx.admin.pki.deleteCa(UNKNOWN), NotFoundError, 404);
    const empty = { commonName: '', organization: '', ou: '', country: '', province: '', locality: '' };
    await expect(
      ctx.admin.pki.createCa({ projectSlug: p.slug, type: 'root', ...empty }),
    ).rejects.toBeInstanceOf(RequestValidationError);
  });
});
