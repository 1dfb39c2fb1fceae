/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call -- the tests read fields of arbitrary JSON answers */
// Identities and their auth methods over HTTP: shapes, deletion protection, attach/get/patch/
// delete answers for every method, TTL bounds and trusted-IP parsing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './test-support.ts';

let t: TestServer;
let orgId: string;

beforeEach(async () => {
  t = await startTestServer();
  ({ orgId } = await t.bootstrap());
});

afterEach(async () => {
  await t.close();
});

async function newIdentity(extra: Record<string, unknown> = {}): Promise<string> {
  const res = await t.call('POST', '/api/v1/identities', {
    body: { name: 'svc', organizationId: orgId, ...extra },
  });
  expect(res.status).toBe(200);
  return res.body.identity.id as string;
}

describe('identities', () => {
  it('creates with defaults, reads the org-membership wrapper, updates and lists', async () => {
    const created = await t.call('POST', '/api/v1/identities', {
      body: { name: 'svc', organizationId: orgId, metadata: [{ key: 'team', value: 'core' }] },
    });
    const identity = created.body.identity;
    expect(identity).toMatchObject({ name: 'svc', orgId, hasDeleteProtection: false, authMethods: [] });
    expect(identity.metadata[0]).toMatchObject({ key: 'team', value: 'core' });
    const got = await t.call('GET', `/api/v1/identities/${identity.id}`);
    expect(got.body.identity).toMatchObject({
      role: 'no-access',
      identityId: identity.id,
      identity: { name: 'svc' },
    });
    const patched = await t.call('PATCH', `/api/v1/identities/${identity.id}`, {
      body: { name: 'svc2', role: 'member' },
    });
    expect(patched.body.identity.name).toBe('svc2');
    const list = await t.call('GET', `/api/v1/identities?orgId=${orgId}`);
    expect(list.body.totalCount).toBe(2);
    const search = await t.call('POST', '/api/v1/identities/search', {
      body: { search: { name: { $contains: 'svc' } } },
    });
    expect(search.body.identities.map((i: { identityId: string }) => i.identityId)).toEqual([identity.id]);
  });

  it('answers 404 for an unknown identity and 404 for an unknown org role', async () => {
    expect((await t.call('GET', '/api/v1/identities/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const res = await t.call('POST', '/api/v1/identities', {
      body: { name: 'x', organizationId: orgId, role: 'wizard' },
    });
    expect(res.status).toBe(404);
  });

  it('refuses to delete a protected identity until protection is off', async () => {
    const id = await newIdentity({ hasDeleteProtection: true });
    const refused = await t.call('DELETE', `/api/v1/identities/${id}`);
    expect(refused.status).toBe(400);
    await t.call('PATCH', `/api/v1/identities/${id}`, { body: { hasDeleteProtection: false } });
    expect((await t.call('DELETE', `/api/v1/identities/${id}`)).status).toBe(200);
    expect((await t.call('GET', `/api/v1/identities/${id}`)).status).toBe(404);
  });
});

const ATTACH: Record<string, { envelope: string; body: Record<string, unknown> }> = {
  'token-auth': { envelope: 'identityTokenAuth', body: {} },
  'universal-auth': { envelope: 'identityUniversalAuth', body: {} },
  'aws-auth': { envelope: 'identityAwsAuth', body: { allowedAccountIds: '123456789012, 210987654321' } },
  'oidc-auth': {
    envelope: 'identityOidcAuth',
    body: {
      oidcDiscoveryUrl: 'https://issuer.example.com',
      boundIssuer: 'https://issuer.example.com',
      boundClaims: { sub: 'a,b' },
    },
  },
  'jwt-auth': {
    envelope: 'identityJwtAuth',
    body: { configurationType: 'static', publicKeys: ['-----BEGIN PUBLIC KEY-----'], boundClaims: {} },
  },
};

describe.each(Object.entries(ATTACH))('auth method %s', (method, { envelope, body }) => {
  it('attaches once, reads, updates and revokes, with 404/400 when not attached', async () => {
    const id = await newIdentity();
    const path = `/api/v1/auth/${method}/identities/${id}`;
    expect((await t.call('GET', path)).status).toBe(404);
    expect((await t.call('PATCH', path, { body: { ...body, accessTokenTTL: 10 } })).status).toBe(400);
    expect((await t.call('DELETE', path)).status).toBe(400);
    const attached = await t.call('POST', path, { body });
    expect(attached.status).toBe(200);
    expect(attached.body[envelope]).toMatchObject({
      identityId: id,
      accessTokenTTL: 2592000,
      accessTokenMaxTTL: 2592000,
    });
    const twice = await t.call('POST', path, { body });
    expect(twice.status).toBe(400);
    expect(twice.body.message).toMatch(/^Failed to add .* to already configured identity$/);
    const patched = await t.call('PATCH', path, { body: { ...body, accessTokenTTL: 3600 } });
    expect(patched.body[envelope].accessTokenTTL).toBe(3600);
    expect((await t.call('GET', `/api/v1/identities/${id}`)).body.identity.identity.authMethods).toEqual([
      method,
    ]);
    expect((await t.call('DELETE', path)).status).toBe(200);
    expect((await t.call('GET', path)).status).toBe(404);
  });
});

describe('auth method validation', () => {
  it('bounds the TTLs and requires TTL ≤ max TTL on attach (422)', async () => {
    const id = await newIdentity();
    const path = `/api/v1/auth/token-auth/identities/${id}`;
    expect((await t.call('POST', path, { body: { accessTokenTTL: 315360001 } })).status).toBe(422);
    expect((await t.call('POST', path, { body: { accessTokenTTL: -1 } })).status).toBe(422);
    const above = await t.call('POST', path, { body: { accessTokenTTL: 100, accessTokenMaxTTL: 10 } });
    expect(above.status).toBe(422);
    expect(above.body.message[0].message).toBe(
      'Access Token TTL cannot be greater than Access Token Max TTL.',
    );
    expect(
      (await t.call('POST', path, { body: { accessTokenTTL: 315360000, accessTokenMaxTTL: 315360000 } }))
        .status,
    ).toBe(200);
  });

  it('rejects an update whose TTL exceeds the stored max TTL with 400', async () => {
    const id = await newIdentity();
    const path = `/api/v1/auth/token-auth/identities/${id}`;
    await t.call('POST', path, { body: { accessTokenTTL: 10, accessTokenMaxTTL: 100 } });
    const res = await t.call('PATCH', path, { body: { accessTokenMaxTTL: 50, accessTokenTTL: 60 } });
    expect(res.status).toBe(422);
    const res2 = await t.call('PATCH', path, { body: { accessTokenTTL: 200 } });
    expect(res2.status).toBe(400);
  });

  it('stores trusted IPs in parsed form and rejects invalid ones with 400', async () => {
    const id = await newIdentity();
    const path = `/api/v1/auth/token-auth/identities/${id}`;
    const bad = await t.call('POST', path, { body: { accessTokenTrustedIps: [{ ipAddress: '300.1.1.1' }] } });
    expect(bad.status).toBe(400);
    const ok = await t.call('POST', path, {
      body: { accessTokenTrustedIps: [{ ipAddress: '10.0.0.0/8' }, { ipAddress: '::1' }] },
    });
    expect(ok.body.identityTokenAuth.accessTokenTrustedIps).toEqual([
      { ipAddress: '10.0.0.0', type: 'ipv4', prefix: 8 },
      { ipAddress: '::1', type: 'ipv6' },
    ]);
  });

  it('requires max TTL ≥ 1 for AWS and validates account ids', async () => {
    const id = await newIdentity();
    const path = `/api/v1/auth/aws-auth/identities/${id}`;
    expect((await t.call('POST', path, { body: { accessTokenMaxTTL: 0, accessTokenTTL: 0 } })).status).toBe(
      422,
    );
    expect((await t.call('POST', path, { body: { allowedAccountIds: '12345' } })).status).toBe(422);
  });

  it('validates the TLS CA certificate', async () => {
    const id = await newIdentity();
    const res = await t.call('POST', `/api/v1/auth/tls-cert-auth/identities/${id}`, {
      body: { caCertificate: 'not a cert' },
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body.message)).toContain('Invalid CA Certificate.');
  });
});
