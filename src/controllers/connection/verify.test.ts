// The credential check against a devserver on loopback: token, universal auth, rejections, and
// an identity that may not read identities.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createServiceClient,
  jwtLogin,
  staticToken,
  universalAuth,
  type ServiceClient,
} from '../../client/index.ts';
import { startTestServer, createIdentityWithToken, type TestServer } from '../../devserver/test-support.ts';
import { checkCredentials, identityIdFromToken } from './verify.ts';

let t: TestServer;
let admin: { token: string; orgId: string; identityId: string };
const clients: ServiceClient[] = [];

function clientWith(auth: ReturnType<typeof staticToken>): {
  client: ServiceClient;
  token: () => Promise<string>;
} {
  let provider: { getToken(signal?: AbortSignal): Promise<string> } | undefined;
  const client = createServiceClient({
    baseUrl: t.server.url,
    auth: (ctx) => {
      const p = auth(ctx);
      provider = p;
      return p;
    },
    retry: { retries: 0 },
  });
  clients.push(client);
  return { client, token: () => provider?.getToken() ?? Promise.reject(new Error('no provider')) };
}

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.bootstrap();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.close();
});

describe('checkCredentials', () => {
  it('accepts the bootstrap token and reports identity and organization', async () => {
    const { client, token } = clientWith(staticToken(admin.token));
    expect(identityIdFromToken(admin.token)).toBe(admin.identityId);
    expect(await checkCredentials(client, token)).toEqual({
      accepted: true,
      identityId: admin.identityId,
      organizationId: admin.orgId,
    });
  });

  it('accepts universal auth after a login', async () => {
    const { client: adminClient } = clientWith(staticToken(admin.token));
    const identity = await adminClient.identities.create({
      name: 'ua',
      organizationId: admin.orgId,
      role: 'admin',
    });
    const ua = await adminClient.identityAuth.universal.attach(identity.id, {});
    const secret = await adminClient.universalAuthSecrets.create(identity.id, {});
    const { client, token } = clientWith(
      universalAuth({ clientId: ua.clientId, clientSecret: secret.clientSecret }),
    );
    expect(await checkCredentials(client, token)).toEqual({
      accepted: true,
      identityId: identity.id,
      organizationId: admin.orgId,
    });
  });

  it('rejects a wrong universal-auth secret with the service message only', async () => {
    const { client: adminClient } = clientWith(staticToken(admin.token));
    const identity = await adminClient.identities.create({ name: 'ua2', organizationId: admin.orgId });
    const ua = await adminClient.identityAuth.universal.attach(identity.id, {});
    const { client, token } = clientWith(
      universalAuth({ clientId: ua.clientId, clientSecret: 'wrong-secret-value' }),
    );
    const verdict = await checkCredentials(client, token);
    expect(verdict).toEqual({
      accepted: false,
      message: 'the service rejected the credentials: Invalid credentials',
    });
  });

  it('rejects a revoked or forged token', async () => {
    const forged = `${admin.token.slice(0, -4)}AAAA`;
    const { client, token } = clientWith(staticToken(forged));
    const verdict = await checkCredentials(client, token);
    expect(verdict.accepted).toBe(false);
    expect(JSON.stringify(verdict)).not.toContain(forged);
  });

  it('rejects something that is not an identity access token', async () => {
    const { client, token } = clientWith(staticToken('st.legacy-service-token'));
    expect(await checkCredentials(client, token)).toEqual({
      accepted: false,
      message: 'the token is not a machine-identity access token (no identityId claim)',
    });
  });

  it('tells a login to an identity without that method (404) from a refusal', async () => {
    const bare = await createIdentityWithToken(t, admin.orgId, { role: 'no-access' });
    const { client, token } = clientWith(
      jwtLogin({ method: 'kubernetes', identityId: bare.identityId, jwt: () => Promise.resolve('a.b.c') }),
    );
    expect(await checkCredentials(client, token)).toEqual({
      accepted: false,
      message:
        'the login was refused: Kubernetes auth method not found for identity, did you configure Kubernetes auth?',
      methodNotAttached: true,
    });
  });

  it('accepts an identity that may not read identities, without an organization', async () => {
    const limited = await createIdentityWithToken(t, admin.orgId, { role: 'no-access' });
    const { client, token } = clientWith(staticToken(limited.token));
    const verdict = await checkCredentials(client, token);
    expect(verdict.accepted).toBe(true);
    if (verdict.accepted) expect(verdict.identityId).toBe(limited.identityId);
  });
});
