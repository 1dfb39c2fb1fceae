/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- the tests read fields of arbitrary JSON answers */
// Answers real clients rely on, each checked against the service's source (docs/service-facts.md,
// "Client compatibility"): empty project parameters, auth-method response fields, environment
// positions.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCa } from './domain/pki.ts';
import { startTestServer, type TestServer } from './test-support.ts';

let t: TestServer;
let orgId: string;
let projectId: string;

beforeEach(async () => {
  t = await startTestServer();
  ({ orgId } = await t.bootstrap());
  projectId = (await t.call('POST', '/api/v2/workspace', { body: { projectName: 'Compat' } })).body.project
    .id;
});

afterEach(async () => {
  await t.close();
});

async function newIdentity(): Promise<string> {
  const res = await t.call('POST', '/api/v1/identities', {
    body: { name: `id-${Math.random().toString(36).slice(2, 8)}`, organizationId: orgId, role: 'no-access' },
  });
  return res.body.identity.id as string;
}

describe('empty project parameters', () => {
  it('lists and reads secrets when workspaceSlug is sent empty beside workspaceId (Go SDK)', async () => {
    const created = await t.call('POST', '/api/v3/secrets/raw/KEY', {
      body: { workspaceId: projectId, projectSlug: '', environment: 'dev', secretValue: 'v' },
    });
    expect(created.status).toBe(200);
    const list = await t.call(
      'GET',
      `/api/v3/secrets/raw?workspaceId=${projectId}&workspaceSlug=&environment=dev&secretPath=%2F` +
        '&expandSecretReferences=false&include_imports=false&recursive=false',
    );
    expect(list.status).toBe(200);
    expect(list.body.secrets.map((s: { secretKey: string }) => s.secretKey)).toEqual(['KEY']);
    const one = await t.call(
      'GET',
      `/api/v3/secrets/raw/KEY?workspaceId=${projectId}&workspaceSlug=+&environment=dev`,
    );
    expect(one.status).toBe(200);
    expect(one.body.secret.secretValue).toBe('v');
  });

  it('falls back to the slug when workspaceId is empty', async () => {
    const slug = (await t.call('GET', `/api/v1/workspace/${projectId}`)).body.workspace.slug as string;
    const list = await t.call(
      'GET',
      `/api/v3/secrets/raw?workspaceId=&workspaceSlug=${slug}&environment=dev`,
    );
    expect(list.status).toBe(200);
  });
});

describe('JWT auth response fields', () => {
  const body = {
    configurationType: 'static',
    publicKeys: ['-----BEGIN PUBLIC KEY-----'],
    boundClaims: {},
    jwksCaCert: '',
  };

  it('returns publicKeys and jwksCaCert on attach, get and update, and omits them on revoke', async () => {
    const path = `/api/v1/auth/jwt-auth/identities/${await newIdentity()}`;
    const attached = await t.call('POST', path, { body });
    expect(attached.body.identityJwtAuth).toMatchObject({ publicKeys: body.publicKeys, jwksCaCert: '' });
    const read = await t.call('GET', path);
    expect(read.body.identityJwtAuth).toMatchObject({ publicKeys: body.publicKeys, jwksCaCert: '' });
    const updated = await t.call('PATCH', path, { body: { ...body, publicKeys: ['k2'] } });
    expect(updated.body.identityJwtAuth.publicKeys).toEqual(['k2']);
    const revoked = await t.call('DELETE', path);
    expect(revoked.status).toBe(200);
    expect(revoked.body.identityJwtAuth).not.toHaveProperty('publicKeys');
    expect(revoked.body.identityJwtAuth).not.toHaveProperty('jwksCaCert');
  });
});

describe('TLS certificate auth', () => {
  it('joins allowedCommonNames with "," (no space)', async () => {
    const ca = await createCa({ type: 'root', commonName: 'compat-ca', keyAlgorithm: 'EC_prime256v1' });
    const path = `/api/v1/auth/tls-cert-auth/identities/${await newIdentity()}`;
    const attached = await t.call('POST', path, {
      body: { caCertificate: ca.certificate, allowedCommonNames: ' a.example , b.example,c ' },
    });
    expect(attached.status).toBe(200);
    expect(attached.body.identityTlsCertAuth.allowedCommonNames).toBe('a.example,b.example,c');
    const updated = await t.call('PATCH', path, { body: { allowedCommonNames: 'x, y' } });
    expect(updated.body.identityTlsCertAuth.allowedCommonNames).toBe('x,y');
  });
});

describe('environment positions', () => {
  const envPath = () => `/api/v1/workspace/${projectId}/environments`;

  async function positions(): Promise<Record<string, number>> {
    const res = await t.call('GET', `/api/v1/workspace/${projectId}`);
    const envs = res.body.workspace.environments as { slug: string; id: string }[];
    const out: Record<string, number> = {};
    for (const e of envs)
      out[e.slug] = (await t.call('GET', `${envPath()}/${e.id}`)).body.environment.position;
    return out;
  }

  it('stores a position past the end as given', async () => {
    await t.call('POST', envPath(), { body: { name: 'QA', slug: 'qa' } });
    const before = await positions();
    expect(Object.keys(before)).toHaveLength(4);
    const qa = (await t.call('GET', `/api/v1/workspace/${projectId}`)).body.workspace.environments.find(
      (e: { slug: string }) => e.slug === 'qa',
    );
    const res = await t.call('PATCH', `${envPath()}/${qa.id}`, { body: { position: 5 } });
    expect(res.status).toBe(200);
    expect(res.body.environment.position).toBe(5);
    expect(await positions()).toEqual({ ...before, qa: 5 });
  });

  it('shifts the environments between old and new position when the target is taken', async () => {
    const envs = (await t.call('GET', `/api/v1/workspace/${projectId}`)).body.workspace.environments;
    const dev = envs.find((e: { slug: string }) => e.slug === 'dev');
    expect(await positions()).toEqual({ dev: 1, staging: 2, prod: 3 });
    await t.call('PATCH', `${envPath()}/${dev.id}`, { body: { position: 3 } });
    expect(await positions()).toEqual({ staging: 1, prod: 2, dev: 3 });
  });
});

describe('integration auth records', () => {
  const create = (body: Record<string, unknown>) =>
    t.call('POST', '/api/v1/integration-auth/access-token', {
      body: { workspaceId: projectId, integration: 'aws-secret-manager', accessId: 'id', ...body },
    });
  const authIds = async () =>
    (await t.call('GET', `/api/v1/workspace/${projectId}/authorizations`)).body.authorizations
      .map((a: { id: string }) => a.id)
      .sort();

  it('creates a new record on every access-token call, even for the same integration type', async () => {
    const first = await create({ accessToken: 'one' });
    const second = await create({ accessToken: 'two' });
    expect(first.status).toBe(200);
    expect(second.body.integrationAuth.id).not.toBe(first.body.integrationAuth.id);
    expect(await authIds()).toEqual([first.body.integrationAuth.id, second.body.integrationAuth.id].sort());
  });

  it('refuses an access-token call without accessToken (422, the validation envelope)', async () => {
    const res = await create({});
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ statusCode: 422, error: expect.any(String) });
    expect(await authIds()).toEqual([]);
  });

  it('updates a record in place with PATCH, keeping its id; 404 for an unknown id', async () => {
    const created = (await create({ accessToken: 'one', namespace: 'ns' })).body.integrationAuth;
    t.clock.now += 1000;
    const res = await t.call('PATCH', `/api/v1/integration-auth/${created.id}`, {
      body: { accessToken: 'two', url: 'https://vault.example.com' },
    });
    expect(res.status).toBe(200);
    expect(res.body.integrationAuth).toMatchObject({
      id: created.id,
      namespace: 'ns',
      url: 'https://vault.example.com',
    });
    expect(res.body.integrationAuth.updatedAt).not.toBe(created.updatedAt);
    expect(JSON.stringify(res.body)).not.toContain('two');
    expect(await authIds()).toEqual([created.id]);
    const missing = await t.call('PATCH', '/api/v1/integration-auth/00000000-0000-4000-8000-000000000000', {
      body: { accessToken: 'x' },
    });
    expect(missing.status).toBe(404);
  });
});
