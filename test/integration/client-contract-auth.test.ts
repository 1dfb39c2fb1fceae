// Client contract against a devserver on loopback: bootstrap, access tokens, authentication
// failures, the universal-auth provider, identity auth methods and their tokens/secrets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ForbiddenError,
  InvalidError,
  NotFoundError,
  RateLimitedError,
  RequestValidationError,
  staticToken,
  systemClock,
  UnauthorizedError,
  universalAuth,
  type RequestInfo,
} from '../../src/client/index.ts';
import { expectServiceError, startContract, type Contract } from '../support/client-contract.ts';

let ctx: Contract;

beforeAll(async () => {
  ctx = await startContract();
});

afterAll(async () => {
  await ctx.close();
});

describe('admin.bootstrap', () => {
  it('works once and then answers 400', async () => {
    const err = await expectServiceError(
      ctx.client().admin.bootstrap({ email: 'other@example.com', password: 'pw', organization: 'Again' }),
      InvalidError,
      400,
      /already been set up/,
    );
    expect(err.reqId).toMatch(/^req-/);
    expect(ctx.adminToken.length).toBeGreaterThan(20);
  });
});

describe('authentication failures', () => {
  it('answers 401 without a token', async () => {
    await expectServiceError(ctx.client().identities.list(ctx.orgId), UnauthorizedError, 401);
  });

  it('answers 403 TokenError for a malformed token', async () => {
    const c = ctx.client({ auth: staticToken('not-a-jwt') });
    const err = await expectServiceError(c.identities.list(ctx.orgId), ForbiddenError, 403);
    expect((err as ForbiddenError).isTokenError).toBe(true);
    expect(err.message).not.toContain('not-a-jwt');
  });

  it('answers 401 for a revoked token', async () => {
    const identity = await ctx.identity('member');
    const tokens = await ctx.admin.tokenAuthTokens.list(identity.id);
    await ctx.admin.tokenAuthTokens.revoke(tokens[0]!.id);
    await expectServiceError(identity.client.identities.list(ctx.orgId), UnauthorizedError, 401);
  });

  it('answers 403 (permission) for an identity without access, without isTokenError', async () => {
    const identity = await ctx.identity('no-access');
    const project = await ctx.project();
    const err = await expectServiceError(identity.client.projects.get(project.id), ForbiddenError, 403);
    expect((err as ForbiddenError).isTokenError).toBe(false);
  });
});

describe('access tokens (auth.*) and universal auth', () => {
  async function universalIdentity() {
    const identity = await ctx.admin.identities.create({
      name: 'ua',
      organizationId: ctx.orgId,
      role: 'member',
    });
    const ua = await ctx.admin.identityAuth.universal.attach(identity.id, {
      accessTokenTTL: 60,
      accessTokenMaxTTL: 3600,
    });
    const secret = await ctx.admin.universalAuthSecrets.create(identity.id, { description: 'contract' });
    return {
      identity,
      clientId: ua.clientId,
      clientSecret: secret.clientSecret,
      secretId: secret.clientSecretData.id,
    };
  }

  it('logs in, renews and revokes; a bad secret is 401', async () => {
    const { clientId, clientSecret } = await universalIdentity();
    const auth = ctx.client().auth;
    const login = await auth.loginUniversal({ clientId, clientSecret });
    expect(login).toMatchObject({ expiresIn: 60, accessTokenMaxTTL: 3600, tokenType: 'Bearer' });
    const renewed = await auth.renew(login.accessToken);
    expect(renewed.accessToken.length).toBeGreaterThan(20);
    const revoked = await auth.revoke(renewed.accessToken);
    expect(revoked.message).toMatch(/revoked/i);
    await expectServiceError(
      auth.loginUniversal({ clientId, clientSecret: 'wrong-secret' }),
      UnauthorizedError,
      401,
    );
    await expectServiceError(auth.renew('garbage'), ForbiddenError, 403);
  });

  it('shares one login among concurrent callers and renews before expiry', async () => {
    let now = Date.now();
    const dev = await startLinkedDevserver(() => now);
    const seen: RequestInfo[] = [];
    const c = dev.client({
      auth: universalAuth({ clientId: dev.clientId, clientSecret: dev.clientSecret }),
      clock: { now: () => now, setTimeout: systemClock.setTimeout },
      onRequest: (info) => seen.push(info),
    });
    await Promise.all(Array.from({ length: 5 }, () => c.identities.list(dev.orgId)));
    expect(seen.filter((s) => s.operation === 'auth.loginUniversal')).toHaveLength(1);
    now += 50_000; // 50 s of a 60 s token: inside the renewal window
    await c.identities.list(dev.orgId);
    expect(seen.filter((s) => s.operation === 'auth.renew').map((s) => s.status)).toEqual([200]);
    now += 3_600_000; // past the max TTL: the service rejects the token, the client logs in again
    await c.identities.list(dev.orgId);
    expect(seen.filter((s) => s.operation === 'auth.loginUniversal')).toHaveLength(2);
    await dev.close();
  });

  it('logs in again and retries once when the service rejects a token the client thinks valid', async () => {
    let serviceNow = Date.now();
    const dev = await startLinkedDevserver(() => serviceNow);
    const seen: RequestInfo[] = [];
    const c = dev.client({
      auth: universalAuth({ clientId: dev.clientId, clientSecret: dev.clientSecret }),
      onRequest: (info) => seen.push(info),
    });
    await c.identities.list(dev.orgId);
    // Only the service's clock moves: to it the 60 s token has expired, to the client it has not.
    serviceNow += 61_000;
    await expect(c.identities.list(dev.orgId)).resolves.toBeInstanceOf(Array);
    expect(seen.map((s) => `${s.operation}:${s.status}`)).toEqual([
      'auth.loginUniversal:200',
      'identities.list:200',
      expect.stringMatching(/^identities\.list:(401|403)$/),
      'auth.loginUniversal:200',
      'identities.list:200',
    ]);
    await dev.close();
  });

  it('lists, reads and revokes client secrets', async () => {
    const { identity, clientId, clientSecret, secretId } = await universalIdentity();
    const list = await ctx.admin.universalAuthSecrets.list(identity.id);
    expect(list.map((s) => s.id)).toContain(secretId);
    expect(JSON.stringify(list)).not.toContain(clientSecret);
    await expect(ctx.admin.universalAuthSecrets.get(identity.id, secretId)).resolves.toMatchObject({
      id: secretId,
    });
    const revoked = await ctx.admin.universalAuthSecrets.revoke(identity.id, secretId);
    expect(revoked.isClientSecretRevoked).toBe(true);
    await expectServiceError(
      ctx.client().auth.loginUniversal({ clientId, clientSecret }),
      UnauthorizedError,
      401,
    );
    await expectServiceError(
      ctx.admin.universalAuthSecrets.get(identity.id, '00000000-0000-4000-8000-000000000000'),
      NotFoundError,
      404,
    );
  });
});

describe('token-auth tokens', () => {
  it('creates, lists, reads, renames and revokes; a second revoke is 404', async () => {
    const identity = await ctx.identity('member');
    const created = await ctx.admin.tokenAuthTokens.create(identity.id, { name: 'second' });
    expect(created.tokenData).toMatchObject({ name: 'second', identityId: identity.id });
    const list = await ctx.admin.tokenAuthTokens.list(identity.id, { limit: 10 });
    expect(list.map((t) => t.id)).toContain(created.tokenData.id);
    await expect(ctx.admin.tokenAuthTokens.get(created.tokenData.id)).resolves.toMatchObject({
      name: 'second',
    });
    await expect(
      ctx.admin.tokenAuthTokens.update(created.tokenData.id, { name: 'third' }),
    ).resolves.toMatchObject({
      name: 'third',
    });
    await ctx.admin.tokenAuthTokens.revoke(created.tokenData.id);
    await expectServiceError(ctx.admin.tokenAuthTokens.revoke(created.tokenData.id), NotFoundError, 404);
  });
});

const methods = [
  { name: 'token', attach: {}, update: { accessTokenTTL: 120 } },
  { name: 'universal', attach: {}, update: { accessTokenTTL: 120 } },
  {
    name: 'aws',
    attach: {},
    update: { accessTokenTTL: 120, allowedPrincipalArns: '', allowedAccountIds: '' },
  },
  {
    name: 'jwt',
    attach: { configurationType: 'jwks', jwksUrl: 'https://issuer.example.com/jwks', boundClaims: {} },
    update: { configurationType: 'jwks', jwksUrl: 'https://issuer.example.com/jwks', accessTokenTTL: 120 },
  },
  {
    name: 'oidc',
    attach: {
      oidcDiscoveryUrl: 'https://issuer.example.com',
      boundIssuer: 'https://issuer.example.com',
      boundClaims: {},
    },
    update: { accessTokenTTL: 120 },
  },
] as const;

type MethodApi = {
  attach(id: string, input: unknown): Promise<{ identityId: string; accessTokenTTL: number }>;
  get(id: string): Promise<{ identityId: string; accessTokenTTL: number }>;
  update(id: string, input: unknown): Promise<{ identityId: string; accessTokenTTL: number }>;
  revoke(id: string): Promise<{ identityId: string }>;
};

describe.each(methods)('identityAuth.$name', (m) => {
  const api = () => ctx.admin.identityAuth[m.name] as unknown as MethodApi;

  it('attaches, reads, updates and revokes', async () => {
    const identity = await ctx.admin.identities.create({ name: `m-${m.name}`, organizationId: ctx.orgId });
    if (m.name === 'token') await ctx.admin.identityAuth.token.revoke(identity.id).catch(() => undefined);
    const attached = await api().attach(identity.id, m.attach);
    expect(attached).toMatchObject({ identityId: identity.id, accessTokenTTL: 2_592_000 });
    await expect(api().get(identity.id)).resolves.toMatchObject({ identityId: identity.id });
    await expect(api().update(identity.id, m.update)).resolves.toMatchObject({ accessTokenTTL: 120 });
    await expect(api().revoke(identity.id)).resolves.toMatchObject({ identityId: identity.id });
  });

  it('answers 400 for a second attach, 404 for get and 400 for update/revoke when not attached', async () => {
    const identity = await ctx.admin.identities.create({ name: `e-${m.name}`, organizationId: ctx.orgId });
    await api().attach(identity.id, m.attach);
    await expectServiceError(api().attach(identity.id, m.attach), InvalidError, 400);
    await api().revoke(identity.id);
    await expectServiceError(api().get(identity.id), NotFoundError, 404);
    await expectServiceError(api().update(identity.id, m.update), InvalidError, 400);
    await expectServiceError(api().revoke(identity.id), InvalidError, 400);
  });

  it('answers 404 for an unknown identity', async () => {
    await expectServiceError(
      api().attach('00000000-0000-4000-8000-000000000000', m.attach),
      NotFoundError,
      404,
    );
  });
});

describe('identityAuth.tlsCert', () => {
  it('attaches with a real CA certificate, reads, updates and revokes', async () => {
    const project = await ctx.project();
    const ca = await ctx.admin.pki.createCa({
      projectSlug: project.slug,
      type: 'root',
      commonName: 'Contract Root',
      organization: '',
      ou: '',
      country: '',
      province: '',
      locality: '',
    });
    const { certificate } = await ctx.admin.pki.getCaCertificate(ca.id);
    const identity = await ctx.admin.identities.create({ name: 'tls', organizationId: ctx.orgId });
    const tls = ctx.admin.identityAuth.tlsCert;
    await expect(
      tls.attach(identity.id, { caCertificate: certificate, allowedCommonNames: 'client-a' }),
    ).resolves.toMatchObject({
      identityId: identity.id,
      caCertificate: certificate,
      allowedCommonNames: 'client-a',
    });
    await expect(tls.get(identity.id)).resolves.toMatchObject({ identityId: identity.id });
    await expect(tls.update(identity.id, { accessTokenTTL: 120 })).resolves.toMatchObject({
      accessTokenTTL: 120,
    });
    await tls.revoke(identity.id);
    await expectServiceError(tls.get(identity.id), NotFoundError, 404);
  });

  it('rejects a CA certificate that is not X.509 (service 422) or empty (locally)', async () => {
    const identity = await ctx.admin.identities.create({ name: 'tls-bad', organizationId: ctx.orgId });
    const err = await expectServiceError(
      ctx.admin.identityAuth.tlsCert.attach(identity.id, { caCertificate: 'not a certificate' }),
      InvalidError,
      422,
    );
    expect((err as InvalidError).issues.map((i) => i.message).join()).toMatch(/Invalid CA Certificate/);
    await expect(
      ctx.admin.identityAuth.tlsCert.attach(identity.id, { caCertificate: '' }),
    ).rejects.toBeInstanceOf(RequestValidationError);
  });
});

describe('service-side validation and limits', () => {
  it('answers 400 when an updated TTL exceeds the stored max TTL', async () => {
    const identity = await ctx.admin.identities.create({ name: 'ttl', organizationId: ctx.orgId });
    await ctx.admin.identityAuth.token.attach(identity.id, { accessTokenTTL: 60, accessTokenMaxTTL: 120 });
    await expectServiceError(
      ctx.admin.identityAuth.token.update(identity.id, { accessTokenTTL: 600 }),
      InvalidError,
      400,
      /TTL/,
    );
  });

  it('surfaces a 429 with its Retry-After when the wait is longer than the client sleeps', async () => {
    const limited = await startContract({ rateLimit: { read: 2 } });
    try {
      const c = limited.client({
        auth: staticToken(limited.adminToken),
        retry: { retries: 1, maxRetryAfterMs: 0 },
      });
      await c.identities.list(limited.orgId);
      await c.identities.list(limited.orgId);
      const err = await expectServiceError(
        c.identities.list(limited.orgId),
        RateLimitedError,
        429,
        /try again in/,
      );
      expect((err as RateLimitedError).retryAfterMs).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});

/**
 * A second devserver on the given clock with a universal-auth identity (org member), so a
 * test can move the service's time and watch the client's token handling.
 */
async function startLinkedDevserver(now: () => number) {
  const linked = await startContract({ now });
  const identity = await linked.admin.identities.create({
    name: 'ua-linked',
    organizationId: linked.orgId,
    role: 'admin',
  });
  const ua = await linked.admin.identityAuth.universal.attach(identity.id, {
    accessTokenTTL: 60,
    accessTokenMaxTTL: 3600,
  });
  const secret = await linked.admin.universalAuthSecrets.create(identity.id, {});
  return {
    orgId: linked.orgId,
    clientId: ua.clientId,
    clientSecret: secret.clientSecret,
    client: linked.client,
    close: () => linked.close(),
  };
}
