// Connection against the real control plane and a devserver: Ready with a token and with
// universal auth, a rejected token (reported without revealing it), a Secret change rebuilding the
// client, a missing Secret, one shared client, a waiting resource woken by its Connection, and CRD
// rejections of bad specs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagedObject } from '../../src/managed/external-client.ts';
import { statusCodeOf } from '../support/kube.ts';
import {
  connectionProbeKind,
  connectionProbeSpec,
  HARNESS_CONNECTION,
  startOperatorHarness,
  type OperatorHarness,
} from '../support/operator.ts';

let h: OperatorHarness;
const leaked: string[] = [];

beforeAll(async () => {
  // A long waiting requeue: only the dependency watch can wake a resource waiting on a Connection.
  h = await startOperatorHarness({ operator: { kinds: [connectionProbeKind], waitRequeueMs: 600_000 } });
  leaked.push(h.admin.token);
});

afterAll(async () => {
  await h?.stop();
});

/** The admin token with a broken signature: a well-formed JWT the service refuses. */
function forgedToken(): string {
  const forged = `${h.admin.token.slice(0, -6)}AAAAAA`;
  leaked.push(forged);
  return forged;
}

function tokenConnection(secretName: string) {
  return { url: h.url, auth: { token: { secretRef: { name: secretName, key: 'token' } } } };
}

async function expectNoSecretsIn(name: string): Promise<void> {
  const status = JSON.stringify((await h.get('Connection', name))?.status);
  const events = JSON.stringify(await h.events(name));
  const logs = h.logs();
  for (const value of leaked) {
    expect(status).not.toContain(value);
    expect(events).not.toContain(value);
    expect(logs).not.toContain(value);
  }
}

describe('Connection', () => {
  it('is Ready with a token and reports the identity and organization', async () => {
    const conn = await h.waitForReady('Connection', HARNESS_CONNECTION);
    expect(conn.status?.organizationId).toBe(h.admin.organizationId);
    expect(conn.status?.id).toBe(h.admin.identityId);
    expect(conn.status?.conditions?.find((c) => c.type === 'Synced')).toMatchObject({
      status: 'True',
      reason: 'ReconcileSuccess',
      observedGeneration: conn.metadata.generation,
    });
  });

  it('is Ready with universal auth (client id and client secret from Secrets)', async () => {
    const identity = await h.service.identities.create({
      name: 'coffer-universal',
      organizationId: h.admin.organizationId,
      role: 'admin',
    });
    const ua = await h.service.identityAuth.universal.attach(identity.id, {});
    const created = await h.service.universalAuthSecrets.create(identity.id, { description: 'coffer test' });
    leaked.push(created.clientSecret);
    await h.createSecret('ua-creds', { clientId: ua.clientId, clientSecret: created.clientSecret });
    await h.create('Connection', 'universal', {
      url: h.url,
      auth: {
        universalAuth: {
          clientIdSecretRef: { name: 'ua-creds', key: 'clientId' },
          clientSecretSecretRef: { name: 'ua-creds', key: 'clientSecret' },
        },
      },
      requestsPerMinute: 600,
    });
    const conn = await h.waitForReady('Connection', 'universal');
    expect(conn.status?.id).toBe(identity.id);
    expect(conn.status?.organizationId).toBe(h.admin.organizationId);
    await expectNoSecretsIn('universal');
  });

  it('reports a rejected token without revealing it and follows changes of its Secret', async () => {
    await h.createSecret('bad-token', { token: forgedToken() });
    await h.create('Connection', 'rejected', tokenConnection('bad-token'));
    const refused = await h.waitForCondition('Connection', 'rejected', {
      type: 'Ready',
      status: 'False',
      reason: 'InvalidCredentials',
    });
    const synced = refused.status?.conditions?.find((c) => c.type === 'Synced');
    expect(synced).toMatchObject({ status: 'False', reason: 'InvalidCredentials' });
    expect(synced?.message).toMatch(/^the service rejected the credentials: /);
    await expectNoSecretsIn('rejected');

    // Fixing the Secret rebuilds the client at once; breaking it again is noticed too.
    await h.createSecret('bad-token', { token: h.admin.token });
    await h.waitForReady('Connection', 'rejected');
    await h.createSecret('bad-token', { token: forgedToken() });
    await h.waitForCondition('Connection', 'rejected', {
      type: 'Ready',
      status: 'False',
      reason: 'InvalidCredentials',
    });
    await expectNoSecretsIn('rejected');
  });

  it('waits for a missing Secret and becomes Ready once it appears', async () => {
    await h.create('Connection', 'late', tokenConnection('late-token'));
    const waiting = await h.waitForCondition('Connection', 'late', {
      type: 'Synced',
      status: 'False',
      reason: 'CredentialsNotFound',
    });
    expect(waiting.status?.conditions?.find((c) => c.type === 'Synced')?.message).toBe(
      `Secret ${h.namespace}/late-token does not exist`,
    );
    await h.createSecret('late-token', { token: h.admin.token });
    await h.waitForReady('Connection', 'late');
  });

  it('gives every resource using a connection the same client', async () => {
    const user = (name: string): ManagedObject<unknown> => ({
      apiVersion: 'coffer.dev/v1alpha1',
      kind: 'Project',
      metadata: { name, namespace: h.namespace },
      spec: { connectionRef: { name: HARNESS_CONNECTION } },
    });
    const a = await h.operator.services.connectionFor(user('a'));
    const b = await h.operator.services.connectionFor(user('b'));
    expect(a.client).toBe(b.client);
    expect(a.key).toBe(`Connection/${h.namespace}/${HARNESS_CONNECTION}`);
    expect(a.organizationId).toBe(h.admin.organizationId);
  });

  it('wakes a resource waiting on its Connection as soon as the Connection is Ready', async () => {
    await h.create('Project', 'probe', connectionProbeSpec({ name: 'arrives-later' }));
    await h.waitForCondition('Project', 'probe', {
      type: 'Synced',
      status: 'False',
      reason: 'ReferenceNotReady',
    });
    await h.createSecret('arrives-later-token', { token: h.admin.token });
    await h.create('Connection', 'arrives-later', tokenConnection('arrives-later-token'));
    // The waiting requeue is 10 minutes: only the dependency watch can make this happen in time.
    const probe = await h.waitForReady('Project', 'probe');
    expect(probe.status?.id).toBe(h.admin.organizationId);
  });

  it.each([
    [
      'both methods',
      {
        token: { secretRef: { name: 's', key: 'k' } },
        universalAuth: {
          clientIdSecretRef: { name: 's', key: 'a' },
          clientSecretSecretRef: { name: 's', key: 'b' },
        },
      },
    ],
    ['no method', {}],
  ])('is rejected by the API server with %s', async (_what, auth) => {
    const error = await h.create('Connection', 'invalid', { url: h.url, auth }).catch((e: unknown) => e);
    expect(statusCodeOf(error)).toBe(422);
    expect(String((error as { body?: unknown }).body)).toContain(
      'auth: set exactly one of token, universalAuth, kubernetes, jwt or oidc',
    );
  });
});
