/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- the tests read fields of arbitrary JSON answers */
// Bootstrap and access tokens over HTTP: the 401/403 answers, TTL, max TTL and use limits,
// renewal, revocation, token-auth tokens, universal-auth login and trusted IPs.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIdentityWithToken, startTestServer, type TestServer } from './test-support.ts';

let t: TestServer;
let orgId: string;

beforeEach(async () => {
  t = await startTestServer();
  ({ orgId } = await t.bootstrap());
});

afterEach(async () => {
  await t.close();
});

describe('bootstrap', () => {
  it('works exactly once and returns an org-admin identity with a never-expiring token', async () => {
    const again = await t.call('POST', '/api/v1/admin/bootstrap', {
      token: null,
      body: { email: 'other@example.com', password: 'p', organization: 'Other' },
    });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe('Instance has already been set up');
    t.clock.now += 20 * 365 * 24 * 3600 * 1000;
    const me = await t.call('GET', `/api/v1/identities?orgId=${orgId}`);
    expect(me.status).toBe(200);
    expect(me.body.identities[0].role).toBe('admin');
  });
});

describe('access token checks', () => {
  const path = () => `/api/v1/identities?orgId=${orgId}`;

  it('answers 401 "Token missing" without a token', async () => {
    const res = await t.call('GET', path(), { token: null });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('Token missing');
  });

  it('answers 403 TokenError for a malformed or forged token', async () => {
    const malformed = await t.call('GET', path(), { token: 'not-a-jwt' });
    expect(malformed.status).toBe(403);
    expect(malformed.body.error).toBe('TokenError');
    const forged = await t.call('GET', path(), {
      token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpZGVudGl0eUlkIjoieCJ9.c2lnbmF0dXJl',
    });
    expect(forged.status).toBe(403);
    expect(forged.body.error).toBe('TokenError');
  });

  it('expires a token after its TTL with 403 TokenError', async () => {
    const { token } = await createIdentityWithToken(t, orgId, {
      role: 'member',
      tokenAuth: { accessTokenTTL: 60, accessTokenMaxTTL: 120 },
    });
    expect((await t.call('GET', path(), { token })).status).toBe(200);
    t.clock.now += 61_000;
    const expired = await t.call('GET', path(), { token });
    expect(expired.status).toBe(403);
    expect(expired.body.message).toBe('Your token has expired. Please re-authenticate.');
  });

  it('enforces the number-of-uses limit and then forgets the token', async () => {
    const { token } = await createIdentityWithToken(t, orgId, {
      role: 'member',
      tokenAuth: { accessTokenNumUsesLimit: 2 },
    });
    expect((await t.call('GET', path(), { token })).status).toBe(200);
    expect((await t.call('GET', path(), { token })).status).toBe(200);
    const third = await t.call('GET', path(), { token });
    expect(third.status).toBe(401);
    const fourth = await t.call('GET', path(), { token });
    expect(fourth.status).toBe(401);
    expect(fourth.body.message).toBe('No identity access token found');
  });

  it('renews within the max TTL, refuses past it, and never extends a token past creation + max TTL', async () => {
    const { token } = await createIdentityWithToken(t, orgId, {
      role: 'member',
      tokenAuth: { accessTokenTTL: 60, accessTokenMaxTTL: 150 },
    });
    t.clock.now += 50_000;
    const renewed = await t.call('POST', '/api/v1/auth/token/renew', {
      token: null,
      body: { accessToken: token },
    });
    expect(renewed.status).toBe(200);
    expect(renewed.body).toMatchObject({ expiresIn: 60, accessTokenMaxTTL: 150, tokenType: 'Bearer' });
    t.clock.now += 50_000; // 100 s after creation, 50 s after renewal: still valid
    expect((await t.call('GET', path(), { token: renewed.body.accessToken })).status).toBe(200);
    const tooLate = await t.call('POST', '/api/v1/auth/token/renew', {
      token: null,
      body: { accessToken: renewed.body.accessToken },
    });
    expect(tooLate.status).toBe(401);
    expect((await t.call('GET', path(), { token: renewed.body.accessToken })).status).toBe(401);
  });

  it('revokes a token through /api/v1/auth/token/revoke', async () => {
    const { token } = await createIdentityWithToken(t, orgId, { role: 'member' });
    const revoked = await t.call('POST', '/api/v1/auth/token/revoke', {
      token: null,
      body: { accessToken: token },
    });
    expect(revoked.status).toBe(200);
    const after = await t.call('GET', path(), { token });
    expect(after.status).toBe(401);
    expect(after.body.message).toBe('No identity access token found');
  });

  it('refuses clients outside the trusted IPs with 403', async () => {
    const { token } = await createIdentityWithToken(t, orgId, {
      role: 'member',
      tokenAuth: { accessTokenTrustedIps: [{ ipAddress: '10.0.0.0/8' }] },
    });
    const res = await t.call('GET', path(), { token });
    expect(res.status).toBe(403);
  });
});

describe('token-auth tokens', () => {
  it('creates, lists, renames and revokes tokens; a second revoke is 404', async () => {
    const { identityId } = await createIdentityWithToken(t, orgId);
    const created = await t.call('POST', `/api/v1/auth/token-auth/identities/${identityId}/tokens`, {
      body: { name: 'ci' },
    });
    expect(created.status).toBe(200);
    expect(created.body.tokenData).toMatchObject({ name: 'ci', authMethod: 'token-auth', identityId });
    const list = await t.call('GET', `/api/v1/auth/token-auth/identities/${identityId}/tokens`);
    expect(list.body.tokens).toHaveLength(2);
    const id = created.body.tokenData.id as string;
    const renamed = await t.call('PATCH', `/api/v1/auth/token-auth/tokens/${id}`, { body: { name: 'ci-2' } });
    expect(renamed.body.token.name).toBe('ci-2');
    expect((await t.call('POST', `/api/v1/auth/token-auth/tokens/${id}/revoke`)).status).toBe(200);
    expect((await t.call('POST', `/api/v1/auth/token-auth/tokens/${id}/revoke`)).status).toBe(404);
    const use = await t.call('GET', `/api/v1/identities?orgId=${orgId}`, { token: created.body.accessToken });
    expect(use.status).toBe(401);
  });

  it('answers 400 when the identity has no token auth', async () => {
    const created = await t.call('POST', '/api/v1/identities', {
      body: { name: 'bare', organizationId: orgId },
    });
    const res = await t.call(
      'POST',
      `/api/v1/auth/token-auth/identities/${created.body.identity.id}/tokens`,
      { body: {} },
    );
    expect(res.status).toBe(400);
  });
});

describe('universal auth', () => {
  async function setup(secret: Record<string, unknown> = {}) {
    const created = await t.call('POST', '/api/v1/identities', {
      body: { name: 'ua', organizationId: orgId, role: 'member' },
    });
    const id = created.body.identity.id as string;
    const ua = await t.call('POST', `/api/v1/auth/universal-auth/identities/${id}`, {
      body: { accessTokenTTL: 300 },
    });
    const cs = await t.call('POST', `/api/v1/auth/universal-auth/identities/${id}/client-secrets`, {
      body: secret,
    });
    return {
      id,
      clientId: ua.body.identityUniversalAuth.clientId as string,
      clientSecret: cs.body.clientSecret as string,
      cs: cs.body.clientSecretData,
    };
  }

  it('logs in with client id and secret and never lists the secret again', async () => {
    const { id, clientId, clientSecret } = await setup();
    const login = await t.call('POST', '/api/v1/auth/universal-auth/login', {
      token: null,
      body: { clientId, clientSecret },
    });
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ expiresIn: 300, tokenType: 'Bearer' });
    expect(
      (await t.call('GET', `/api/v1/identities?orgId=${orgId}`, { token: login.body.accessToken })).status,
    ).toBe(200);
    const listed = await t.call('GET', `/api/v1/auth/universal-auth/identities/${id}/client-secrets`);
    expect(JSON.stringify(listed.body)).not.toContain(clientSecret);
    const wrong = await t.call('POST', '/api/v1/auth/universal-auth/login', {
      token: null,
      body: { clientId, clientSecret: 'wrong' },
    });
    expect(wrong.status).toBe(401);
  });

  it('honours the client secret use limit and revocation', async () => {
    const { id, clientId, clientSecret, cs } = await setup({ numUsesLimit: 1 });
    const body = { clientId, clientSecret };
    expect((await t.call('POST', '/api/v1/auth/universal-auth/login', { token: null, body })).status).toBe(
      200,
    );
    expect((await t.call('POST', '/api/v1/auth/universal-auth/login', { token: null, body })).status).toBe(
      401,
    );
    const revoked = await t.call(
      'POST',
      `/api/v1/auth/universal-auth/identities/${id}/client-secrets/${cs.id}/revoke`,
    );
    expect(revoked.body.clientSecretData.isClientSecretRevoked).toBe(true);
  });

  it('expires a client secret after its TTL', async () => {
    const { clientId, clientSecret } = await setup({ ttl: 10 });
    t.clock.now += 11_000;
    const res = await t.call('POST', '/api/v1/auth/universal-auth/login', {
      token: null,
      body: { clientId, clientSecret },
    });
    expect(res.status).toBe(401);
  });
});
