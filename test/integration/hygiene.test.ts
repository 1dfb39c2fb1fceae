// Secret hygiene: scenarios that handle recognisable secret values (access tokens, a rejected
// token, a bootstrap password and the token it yields, universal-auth client secrets, token
// rotation, issued workload credentials, Secret values pushed, changed and restored by a
// SecretBatch, service faults while all of these are in use), then a sweep asserting that none of
// those values — plain or base64 — appears in the operator's logs (debug level, captured from its
// pino stream), in Kubernetes events, or anywhere in the coffer.dev objects (status, condition
// messages). The Secrets holding them are checked to really contain them, so the sweep is
// looking for the right strings.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allKinds } from '../../src/api/v1alpha1/index.ts';
import { startDevServer, type DevServer } from '../../src/devserver/server.ts';
import { waitFor } from '../support/kube.ts';
import { leaksOf, visibleRecords } from '../support/leaks.ts';
import { startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

/** Every secret value handled in this file, with where it came from (never printed). */
const secrets = new Map<string, string>();
let h: OperatorHarness;
let fresh: DevServer;
const suffix = randomBytes(3).toString('hex');

function remember(label: string, value: string): string {
  secrets.set(label, value);
  return value;
}

/** A recognisable made-up secret value. */
const canary = (label: string) => remember(label, `canary-${label}-${randomBytes(16).toString('hex')}`);

/** A new identity with token auth and one access token for it (an org admin, so it can work). */
async function newAccessToken(label: string): Promise<string> {
  const identity = await h.service.identities.create({
    name: `hygiene-${label}`,
    organizationId: h.admin.organizationId,
    role: 'admin',
  });
  await h.service.identityAuth.token.attach(identity.id, {});
  const created = await h.service.tokenAuthTokens.create(identity.id, { name: label });
  return remember(label, created.accessToken);
}

const tokenConnection = (secretName: string, url = h.url) => ({
  url,
  auth: { token: { secretRef: { name: secretName, key: 'token' } } },
});

beforeAll(async () => {
  h = await startOperatorHarness({ logLevel: 'debug' });
  fresh = await startDevServer({ port: 0 });
  remember('harness admin token', h.admin.token);
});

afterAll(async () => {
  await h?.stop();
  await fresh?.close();
});

describe('secret hygiene', () => {
  it('reports a rejected token without revealing it', async () => {
    await h.createSecret('rejected', { token: canary('rejected-token') });
    await h.create('Connection', 'rejected', tokenConnection('rejected'));
    await h.waitForCondition('Connection', 'rejected', {
      type: 'Ready',
      status: 'False',
      reason: 'InvalidCredentials',
    });
  });

  it('uses universal-auth credentials (client secret, then access tokens) for a Project', async () => {
    const identity = await h.service.identities.create({
      name: 'hygiene-universal',
      organizationId: h.admin.organizationId,
      role: 'admin',
    });
    const ua = await h.service.identityAuth.universal.attach(identity.id, {});
    const created = await h.service.universalAuthSecrets.create(identity.id, { description: 'hygiene' });
    remember('universal client secret', created.clientSecret);
    await h.createSecret('ua-creds', { clientId: ua.clientId, clientSecret: created.clientSecret });
    await h.create('Connection', 'universal', {
      url: h.url,
      auth: {
        universalAuth: {
          clientIdSecretRef: { name: 'ua-creds', key: 'clientId' },
          clientSecretSecretRef: { name: 'ua-creds', key: 'clientSecret' },
        },
      },
    });
    await h.waitForReady('Connection', 'universal');
    await h.create('Project', 'via-universal', {
      connectionRef: { name: 'universal' },
      name: 'Hygiene',
      slug: `hygiene-${suffix}`,
      environments: [{ name: 'Development', slug: 'dev' }],
    });
    await h.waitForReady('Project', 'via-universal');
  });

  it('follows a token rotation through a bad token and back', async () => {
    await h.createSecret('rotating', { token: await newAccessToken('rotation-1') });
    await h.create('Connection', 'rotating', tokenConnection('rotating'));
    await h.waitForReady('Connection', 'rotating');
    await h.createSecret('rotating', { token: canary('rotation-bad') });
    await h.waitForCondition('Connection', 'rotating', {
      type: 'Ready',
      status: 'False',
      reason: 'InvalidCredentials',
    });
    await h.createSecret('rotating', { token: await newAccessToken('rotation-2') });
    await h.waitForReady('Connection', 'rotating');
  });

  it('bootstraps a fresh instance with a password and hands over the token it got', async () => {
    await h.createSecret('bootstrap-password', { password: canary('bootstrap-password') });
    await h.create('Bootstrap', `hygiene-${suffix}`, {
      url: fresh.url,
      email: 'admin@example.com',
      passwordSecretRef: { name: 'bootstrap-password', key: 'password' },
      organization: 'Hygiene',
      outputSecretName: 'bootstrap-output',
      createConnection: true,
      connectionName: 'bootstrapped',
    });
    await h.waitForReady('Connection', 'bootstrapped', { timeoutMs: 60_000 });
    const output = await h.readSecret('bootstrap-output');
    expect(output?.token).toBeTruthy();
    remember('bootstrap output token', output?.token ?? '');
  });

  it('issues workload credentials (an access token, a client id and secret) into Secrets', async () => {
    await h.create('Identity', 'workload', {
      connectionRef: { name: 'coffer' },
      name: `hygiene-workload-${suffix}`,
    });
    await h.waitForReady('Identity', 'workload');
    const auth = (method: string, secretName: string) => ({
      connectionRef: { name: 'coffer' },
      identityRef: { name: 'workload' },
      method,
      credentials: { secretName },
    });
    await h.create('IdentityAuth', 'workload-token', auth('token', 'workload-token'));
    await h.create('IdentityAuth', 'workload-universal', auth('universal', 'workload-universal'));
    await h.waitForReady('IdentityAuth', 'workload-token');
    await h.waitForReady('IdentityAuth', 'workload-universal');
    const token = await h.readSecret('workload-token');
    const universal = await h.readSecret('workload-universal');
    remember('issued access token', token?.accessToken ?? '');
    remember('issued client secret', universal?.clientSecret ?? '');
  });

  it('pushes Secret values with a SecretBatch, follows a change and restores drift', async () => {
    await h.createSecret('app-config', { DATABASE_URL: canary('database-url'), API_KEY: canary('api-key') });
    await h.createSecret('single', { value: canary('single-value') });
    await h.create('SecretBatch', 'app', {
      connectionRef: { name: 'coffer' },
      projectRef: { name: 'via-universal' },
      environment: 'dev',
      secretPath: '/app',
      fromSecret: { name: 'app-config' },
      secrets: [{ key: 'SINGLE', valueFrom: { secretKeyRef: { name: 'single', key: 'value' } } }],
    });
    await h.waitForReady('SecretBatch', 'app');
    const projectId = (await h.get('Project', 'via-universal'))?.status?.id ?? '';
    const query = { workspaceId: projectId, environment: 'dev', secretPath: '/app' };
    const value = async (key: string) => (await h.service.secrets.get(key, query)).secretValue;
    // A Kubernetes change is pushed; a change made in the service is restored.
    const changed = canary('single-value-2');
    await h.createSecret('single', { value: changed });
    await waitFor(async () => (await value('SINGLE')) === changed, {
      timeoutMs: 30_000,
      message: 'the push',
    });
    await h.service.secrets.update('SINGLE', { ...query, secretValue: canary('drift-value') });
    await h.requestReconcile('SecretBatch', 'app');
    await waitFor(async () => (await value('SINGLE')) === changed, {
      timeoutMs: 30_000,
      message: 'the restore',
    });
    expect((await value('API_KEY')) === secrets.get('api-key')).toBe(true);
  });

  it('keeps credentials out of errors while the service fails', async () => {
    h.devserver.faults.update({ errorRatio: 1 });
    try {
      for (const name of ['coffer', 'universal', 'rotating']) await h.requestReconcile('Connection', name);
      await h.requestReconcile('Project', 'via-universal');
      await h.requestReconcile('SecretBatch', 'app');
      await h.waitForCondition('SecretBatch', 'app', { type: 'Synced', status: 'False' });
      await h.waitForCondition('Project', 'via-universal', {
        type: 'Synced',
        status: 'False',
        reason: 'ServiceUnavailable',
      });
      // A Connection's failed check is what records the ReconcileFailed event the sweep looks
      // for: wait for one before the faults stop (the requested reconciles may come last).
      await waitFor(
        async () => {
          for (const name of ['coffer', 'universal', 'rotating']) {
            const conditions = ((await h.get('Connection', name))?.status?.conditions ?? []) as {
              type: string;
              status: string;
            }[];
            if (conditions.some((c) => c.type === 'Synced' && c.status === 'False')) return true;
          }
          return undefined;
        },
        { timeoutMs: 30_000, message: 'a Connection reporting the outage' },
      );
    } finally {
      h.devserver.faults.update({ errorRatio: 0 });
    }
    await h.requestReconcile('Project', 'via-universal');
    await h.waitForCondition('Project', 'via-universal', { type: 'Synced', status: 'True' });
  });
});

describe('the sweep', () => {
  it('looks for values that the Secrets really hold', async () => {
    // Compared as booleans so that a failure never prints a value.
    expect((await h.readSecret('rejected'))?.token === secrets.get('rejected-token')).toBe(true);
    expect((await h.readSecret('ua-creds'))?.clientSecret === secrets.get('universal client secret')).toBe(
      true,
    );
    expect(secrets.size).toBeGreaterThanOrEqual(15);
    for (const value of secrets.values()) expect(value.length).toBeGreaterThanOrEqual(16);
  });

  it('finds the scenarios in the logs and events (so it reads the right streams)', async () => {
    // Booleans, so a failure never prints the captured text. Events are recorded after the status
    // write, so they are polled for rather than read once.
    const logs = h.logs();
    expect(logs.includes('"level":"debug"') && logs.includes('"name":"rotating"')).toBe(true);
    expect(logs.includes('retrying request')).toBe(true);
    const seen = await waitFor(
      async () => {
        const { events } = await visibleRecords(h, allKinds);
        return events.includes('"reason":"PublishedSecret"') && events.includes('"reason":"ReconcileFailed"');
      },
      { timeoutMs: 30_000, message: 'the PublishedSecret and ReconcileFailed events' },
    ).catch(() => false);
    expect(seen).toBe(true);
  });

  it('finds no secret value, plain or base64, in logs, events or coffer.dev objects', async () => {
    const { events, objects } = await visibleRecords(h, allKinds);
    const places = { logs: h.logs(), events, objects };
    const leaks = leaksOf(secrets, places);
    // Labels only: a failure names what leaked where, never the value.
    expect(leaks).toEqual([]);
  });
});
