// IdentityAuth against the real control plane and a devserver, what is particular to it: token
// auth with an issued access token (usable, rotated, replaced when its Secret is deleted), a
// method change that revokes the old method, Orphan and adoption with other methods (OIDC, AWS),
// a missing Identity, invalid input, and no credential in logs, events or status. What every
// managed kind shares (update, drift, adoption, ObserveOnly, AlreadyExists, deletion policies, a
// missing connection) is conformance.test.ts.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient, staticToken } from '../../src/client/index.ts';
import { identityAuthController } from '../../src/controllers/identity-auth/index.ts';
import { identityController } from '../../src/controllers/identity/index.ts';
import { ANNOTATION_EXTERNAL_ID } from '../../src/runtime/object-meta.ts';
import { statusCodeOf, waitFor } from '../support/kube.ts';
import {
  HARNESS_CONNECTION,
  startOperatorHarness,
  type CofferObject,
  type OperatorHarness,
} from '../support/operator.ts';

let h: OperatorHarness;
const suffix = randomBytes(3).toString('hex');
const connectionRef = { name: HARNESS_CONNECTION };
const identityIds: Record<string, string> = {};
/** Every credential value seen, to check none leaked. */
const issued: string[] = [];

beforeAll(async () => {
  h = await startOperatorHarness({ operator: { kinds: [identityController, identityAuthController] } });
  for (const name of ['ident-a', 'ident-b', 'ident-c', 'ident-d']) {
    await h.create('Identity', name, { connectionRef, name: `${name}-${suffix}`, role: 'admin' });
  }
  for (const name of ['ident-a', 'ident-b', 'ident-c', 'ident-d']) {
    identityIds[name] = (await h.waitForReady('Identity', name)).status?.id ?? '';
  }
});

afterAll(async () => {
  await h?.stop();
});

const spec = (identity: string, extra: Record<string, unknown>) => ({
  connectionRef,
  identityRef: { name: identity },
  ...extra,
});

async function tokenRevoked(id: string): Promise<boolean> {
  try {
    return (await h.service.tokenAuthTokens.get(id)).isAccessTokenRevoked === true;
  } catch (error) {
    return (error as { status?: number }).status === 404;
  }
}

function credentials(obj: CofferObject | undefined) {
  return obj?.status?.credentials as
    { current?: { id: string }; retiring?: { id: string }[]; nextRotationAt?: string } | undefined;
}

describe('IdentityAuth with token credentials', () => {
  const identityId = () => identityIds['ident-a'] ?? '';
  let firstToken = '';
  let firstId = '';

  it('attaches token auth and issues a working access token into the Secret', async () => {
    await h.create(
      'IdentityAuth',
      'a-token',
      spec('ident-a', {
        method: 'token',
        accessTokenTTL: 3600,
        pollInterval: '10s',
        credentials: { secretName: 'a-token-creds', rotateEvery: '15s', overlap: '6s' },
      }),
    );
    const ready = await h.waitForReady('IdentityAuth', 'a-token');
    expect(ready.status).toMatchObject({ method: 'token', identityId: identityId() });
    const config = await h.service.identityAuth.token.get(identityId());
    expect(config).toMatchObject({ id: ready.status?.id, accessTokenTTL: 3600 });
    firstToken = (await h.readSecret('a-token-creds'))?.accessToken ?? '';
    firstId = credentials(ready)?.current?.id ?? '';
    issued.push(firstToken);
    const workload = createServiceClient({ baseUrl: h.url, auth: staticToken(firstToken) });
    await expect(workload.identities.list(h.admin.organizationId)).resolves.toBeInstanceOf(Array);
    await workload.close();
    expect(JSON.stringify(ready)).not.toContain(firstToken);
  });

  it('rotates the token on schedule and revokes the old one after the overlap', async () => {
    const rotated = await waitFor(
      async () => {
        const token = (await h.readSecret('a-token-creds'))?.accessToken;
        return token && token !== firstToken ? token : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, message: 'a new token in the Secret' },
    );
    issued.push(rotated);
    expect(await tokenRevoked(firstId)).toBe(false);
    await waitFor(async () => tokenRevoked(firstId), {
      timeoutMs: 40_000,
      intervalMs: 500,
      message: 'the replaced token revoked after the overlap',
    });
  });

  it('issues a new token when the Secret is deleted', async () => {
    // No scheduled rotation from here on: a new token can only come from the deleted Secret.
    await h.patch('IdentityAuth', 'a-token', {
      spec: { credentials: { secretName: 'a-token-creds', rotateEvery: '720h', overlap: '10s' } },
    });
    await h.waitForCondition('IdentityAuth', 'a-token', { type: 'Synced', status: 'True' });
    const before = (await h.readSecret('a-token-creds'))?.accessToken ?? '';
    await h.core.deleteNamespacedSecret({ namespace: h.namespace, name: 'a-token-creds' });
    const after = await waitFor(
      async () => {
        const token = (await h.readSecret('a-token-creds'))?.accessToken;
        return token && token !== before ? token : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, message: 'a new token in a re-created Secret' },
    );
    issued.push(before, after);
  });

  it('switches to universal auth, revoking token auth, and issues a client secret that logs in', async () => {
    await h.patch('IdentityAuth', 'a-token', { spec: { method: 'universal' } });
    await h.waitForCondition('IdentityAuth', 'a-token', { type: 'Synced', status: 'True' });
    const ready = await waitFor(
      async () => {
        const obj = await h.get('IdentityAuth', 'a-token');
        return obj?.status?.method === 'universal' ? obj : undefined;
      },
      { message: 'status.method universal' },
    );
    await expect(h.service.identityAuth.token.get(identityId())).rejects.toMatchObject({ status: 404 });
    const creds = await waitFor(
      async () => {
        const secret = await h.readSecret('a-token-creds');
        return secret?.clientSecret ? secret : undefined;
      },
      { message: 'client id and secret in the Secret' },
    );
    expect(creds.clientId).toBe(ready.status?.clientId);
    issued.push(creds.clientSecret ?? '');
    const login = await h.service.auth.loginUniversal({
      clientId: creds.clientId ?? '',
      clientSecret: creds.clientSecret ?? '',
    });
    expect(login.accessToken).toBeTruthy();
  });
});

describe('IdentityAuth lifecycle', () => {
  it('leaves the method attached with deletionPolicy Orphan', async () => {
    await h.create(
      'IdentityAuth',
      'b-oidc',
      spec('ident-b', {
        method: 'oidc',
        deletionPolicy: 'Orphan',
        oidc: {
          oidcDiscoveryUrl: 'https://idp.example',
          boundIssuer: 'https://idp.example',
          boundAudiences: ['api', 'web'],
        },
      }),
    );
    const ready = await h.waitForReady('IdentityAuth', 'b-oidc');
    await h.delete('IdentityAuth', 'b-oidc');
    await h.waitForDeletion('IdentityAuth', 'b-oidc');
    const config = await h.service.identityAuth.oidc.get(identityIds['ident-b'] ?? '');
    expect(config.id).toBe(ready.status?.id);
  });

  it('adopts an attached method by the external-id annotation and brings it in line', async () => {
    const identityId = identityIds['ident-c'] ?? '';
    const existing = await h.service.identityAuth.aws.attach(identityId, {
      accessTokenTTL: 60,
      accessTokenMaxTTL: 600,
    });
    await h.create(
      'IdentityAuth',
      'c-aws',
      spec('ident-c', { method: 'aws', aws: { allowedAccountIds: ['123456789012'] } }),
      { annotations: { [ANNOTATION_EXTERNAL_ID]: existing.id } },
    );
    const ready = await h.waitForReady('IdentityAuth', 'c-aws');
    expect(ready.status?.id).toBe(existing.id);
    const config = await h.service.identityAuth.aws.get(identityId);
    expect(config).toMatchObject({
      id: existing.id,
      accessTokenTTL: 2592000,
      allowedAccountIds: '123456789012',
    });
    const events = await h.events('c-aws');
    expect(events.some((e) => e.reason === 'CreatedExternal')).toBe(false);
  });

  it('waits for an Identity that does not exist', async () => {
    await h.create('IdentityAuth', 'orphan-ref', spec('no-such-identity', { method: 'token' }));
    const waiting = await h.waitForCondition('IdentityAuth', 'orphan-ref', {
      type: 'Synced',
      status: 'False',
      reason: 'ReferenceNotReady',
    });
    expect(waiting.status?.conditions?.find((c) => c.type === 'Synced')?.message).toContain(
      'Identity no-such-identity',
    );
  });

  it('is refused by the API server for invalid specs with readable messages', async () => {
    const cases: { name: string; body: Record<string, unknown>; says: string }[] = [
      {
        name: 'no-block',
        body: spec('ident-d', { method: 'jwt' }),
        says: 'spec.jwt is required when method is jwt',
      },
      {
        name: 'wrong-block',
        body: spec('ident-d', { method: 'token', aws: {} }),
        says: 'spec.aws may only be set when method is aws',
      },
      {
        name: 'ttl',
        body: spec('ident-d', { method: 'token', accessTokenTTL: 100, accessTokenMaxTTL: 10 }),
        says: 'accessTokenTTL cannot be greater than accessTokenMaxTTL',
      },
      {
        name: 'creds',
        body: spec('ident-d', { method: 'aws', credentials: { secretName: 'x' } }),
        says: 'credentials can only be issued for methods token and universal',
      },
      {
        name: 'overlap',
        body: spec('ident-d', {
          method: 'token',
          credentials: { secretName: 'x', rotateEvery: '1h', overlap: '2h' },
        }),
        says: 'credentials.overlap must be shorter than credentials.rotateEvery',
      },
    ];
    for (const c of cases) {
      const refused = await h.create('IdentityAuth', c.name, c.body).catch((e: unknown) => e);
      expect(statusCodeOf(refused), c.name).toBe(422);
      expect(String((refused as { body?: unknown }).body), c.name).toContain(c.says);
    }
    await h.create('IdentityAuth', 'd-token', spec('ident-d', { method: 'token' }));
    const moved = await h
      .patch('IdentityAuth', 'd-token', { spec: { identityRef: { name: 'ident-a' } } })
      .catch((e: unknown) => e);
    expect(statusCodeOf(moved)).toBe(422);
    expect(String((moved as { body?: unknown }).body)).toContain('identityRef is immutable');
  });

  it('never puts a token or client secret in logs, events or status', async () => {
    const logs = h.logs();
    expect(logs).not.toContain(h.admin.token);
    await h.operator.flushEvents();
    const events = JSON.stringify(await h.core.listNamespacedEvent({ namespace: h.namespace }));
    const objects = JSON.stringify(
      await h.custom.listNamespacedCustomObject({
        group: 'coffer.dev',
        version: 'v1alpha1',
        plural: 'identityauths',
        namespace: h.namespace,
      }),
    );
    for (const value of issued.filter((v) => v.length > 0)) {
      expect(logs).not.toContain(value);
      expect(events).not.toContain(value);
      expect(objects).not.toContain(value);
    }
    expect(issued.length).toBeGreaterThanOrEqual(4);
  });
});
