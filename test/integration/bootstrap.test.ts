// Bootstrap against the real control plane and a fresh (not bootstrapped) devserver: the happy
// path with its output Secret and created Connection, one bootstrap call only, an instance that
// is already set up, and an output Secret that belongs to someone else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient, staticToken } from '../../src/client/index.ts';
import { startDevServer, type DevServer } from '../../src/devserver/server.ts';
import { ANNOTATION_RECONCILE_REQUESTED_AT } from '../../src/runtime/object-meta.ts';
import { startOperatorHarness, type OperatorHarness } from '../support/operator.ts';
import { waitFor } from '../support/kube.ts';

const bootstrapRoute = 'POST /api/v1/admin/bootstrap';
const password = 'correct-horse-battery-staple-7f3a';
let h: OperatorHarness;
let fresh: DevServer;

beforeAll(async () => {
  h = await startOperatorHarness({ connection: false, operator: { kinds: [] } });
  fresh = await startDevServer({ port: 0 });
  await h.createSecret('admin-password', { password });
});

afterAll(async () => {
  await h?.stop();
  await fresh?.close();
});

const bootstrapCalls = () => fresh.stats.requests.byRoute[bootstrapRoute] ?? 0;

function bootstrapSpec(outputSecretName: string, extra: Record<string, unknown> = {}) {
  return {
    url: fresh.url,
    email: 'admin@example.com',
    passwordSecretRef: { name: 'admin-password', key: 'password' },
    organization: 'Acme',
    outputSecretName,
    ...extra,
  };
}

/** Forces a reconcile and waits until the operator handled it. */
async function reconcileNow(name: string): Promise<void> {
  const obj = await h.requestReconcile('Bootstrap', name);
  const value = obj.metadata.annotations?.[ANNOTATION_RECONCILE_REQUESTED_AT];
  await waitFor(async () => (await h.get('Bootstrap', name))?.status?.lastHandledReconcileAt === value, {
    timeoutMs: 20_000,
    message: `Bootstrap ${name} to handle the reconcile request`,
  });
}

/** The output's token authenticates as the output's identity. */
async function expectTokenWorks(out: Record<string, string>): Promise<void> {
  const client = createServiceClient({ baseUrl: fresh.url, auth: staticToken(out.token ?? '') });
  try {
    expect((await client.identities.get(out.identityId ?? '')).orgId).toBe(out.organizationId);
  } finally {
    await client.close();
  }
}

describe('Bootstrap', () => {
  it('bootstraps once, writes the output Secret and creates a Ready Connection', async () => {
    await h.create('Bootstrap', 'first', bootstrapSpec('first-credentials', { createConnection: true }));
    const boot = await h.waitForReady('Bootstrap', 'first');
    const out = (await h.readSecret('first-credentials')) ?? {};
    expect(Object.keys(out).sort()).toEqual(['identityId', 'organizationId', 'token', 'userId']);
    expect(boot.status).toMatchObject({
      id: out.organizationId,
      organizationId: out.organizationId,
      identityId: out.identityId,
      userId: out.userId,
      connectionName: 'first',
    });
    const secret = await h.core.readNamespacedSecret({ namespace: h.namespace, name: 'first-credentials' });
    expect(secret.metadata?.ownerReferences).toMatchObject([
      { kind: 'Bootstrap', name: 'first', controller: true },
    ]);
    await expectTokenWorks(out);

    const conn = await h.waitForReady('Connection', 'first');
    expect(conn.status?.organizationId).toBe(out.organizationId);
    expect(conn.metadata.ownerReferences).toMatchObject([
      { kind: 'Bootstrap', name: 'first', controller: true },
    ]);
    expect(conn.spec).toMatchObject({
      url: fresh.url,
      auth: { token: { secretRef: { name: 'first-credentials', key: 'token' } } },
    });

    // Reconciling again finds the Secret: Ready without another call.
    await reconcileNow('first');
    expect(bootstrapCalls()).toBe(1);
    await h.waitForReady('Bootstrap', 'first');

    const visible = JSON.stringify([boot.status, await h.events('first'), conn.status]) + h.logs();
    for (const value of [password, out.token]) expect(visible).not.toContain(value);
  });

  it('reports an instance someone else bootstrapped as AlreadyBootstrapped', async () => {
    await h.create('Bootstrap', 'second', bootstrapSpec('second-credentials'));
    const second = await h.waitForCondition('Bootstrap', 'second', {
      type: 'Synced',
      status: 'False',
      reason: 'AlreadyBootstrapped',
    });
    expect(second.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'AlreadyBootstrapped',
    });
    expect(bootstrapCalls()).toBe(2);
    expect(await h.readSecret('second-credentials')).toBeUndefined();
  });

  it('refuses to bootstrap into a Secret it does not own', async () => {
    await h.createSecret('taken', { unrelated: 'value' });
    await h.create('Bootstrap', 'third', bootstrapSpec('taken'));
    await h.waitForCondition('Bootstrap', 'third', {
      type: 'Synced',
      status: 'False',
      reason: 'SecretNotOwned',
    });
    expect(bootstrapCalls()).toBe(2);
    expect(await h.readSecret('taken')).toEqual({ unrelated: 'value' });
  });
});
