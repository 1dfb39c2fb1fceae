// Connection resolution when a namespace is deleted: the namespace controller deletes the
// Connection (and its token Secret) together with the resources that use it. A resource being
// deleted there keeps the Connection's last client until the namespace is gone; anywhere else a
// missing Connection is ReferenceNotReady, with the abandon hint for a resource being deleted.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../devserver/test-support.ts';
import type { ManagedObject } from '../external-client.ts';
import { WaitingError } from '../../runtime/errors.ts';
import { createLogger } from '../../runtime/logger.ts';
import { ConnectionResolver, type ConnectionObject } from './resolver.ts';

let t: TestServer;
let token = '';
let identityId = '';
let resolver: ConnectionResolver | undefined;

beforeAll(async () => {
  t = await startTestServer();
  ({ token, identityId } = await t.bootstrap());
});

afterEach(async () => {
  await resolver?.close();
  resolver = undefined;
});

afterAll(async () => {
  await t.close();
});

/** A resolver over one namespace `ns` with a Ready Connection `main` and its token Secret. */
function setup() {
  const state = {
    connection: undefined as ConnectionObject | undefined,
    secret: { token } as Record<string, string> | undefined,
    terminating: false,
  };
  state.connection = {
    apiVersion: 'coffer.dev/v1alpha1',
    kind: 'Connection',
    metadata: { name: 'main', namespace: 'ns', uid: 'u1', generation: 1 },
    spec: { url: t.server.url, auth: { token: { secretRef: { name: 'token', key: 'token' } } } },
    status: {
      organizationId: 'org-1',
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Available',
          message: '',
          observedGeneration: 1,
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    },
  };
  const read = () => Promise.resolve(state.secret);
  resolver = new ConnectionResolver({
    readers: {
      Connection: { get: () => Promise.resolve(state.connection) },
      ClusterConnection: { get: () => Promise.resolve(undefined) },
    },
    namespaceLabels: () => ({}),
    versions: {
      secret: () => Promise.resolve(state.secret ? '1' : undefined),
      configMap: () => Promise.resolve(undefined),
    },
    sources: { secrets: { read }, configMaps: { read: () => Promise.resolve(undefined) } },
    log: createLogger({ level: 'silent' }),
    waitRequeueMs: 1_000,
    namespaceTerminating: (namespace) => namespace === 'ns' && state.terminating,
  });
  return { state, resolver };
}

function project(deleting: boolean): ManagedObject<unknown> {
  return {
    apiVersion: 'coffer.dev/v1alpha1',
    kind: 'Project',
    metadata: {
      name: 'app',
      namespace: 'ns',
      ...(deleting ? { deletionTimestamp: new Date(), finalizers: ['coffer.dev/finalizer'] } : {}),
    },
    spec: { connectionRef: { name: 'main' } },
  };
}

/** The Connection and its Secret disappear; the operator forgets the Connection. */
function deleteConnection(s: ReturnType<typeof setup>): void {
  s.state.connection = undefined;
  s.state.secret = undefined;
  s.resolver.invalidate('Connection/ns/main');
}

describe('ConnectionResolver during a namespace deletion', () => {
  it('lets a resource being deleted use the last client of its deleted Connection', async () => {
    const s = setup();
    const before = await s.resolver.connectionFor(project(false));
    const connection = s.state.connection;
    s.state.terminating = true;
    // The namespace controller deletes the token Secret first; the Connection controller then
    // verifies again — a rebuild would fail, the current client is kept instead.
    s.state.secret = undefined;
    if (connection) expect((await s.resolver.clientFor('Connection', connection)).client).toBe(before.client);
    expect((await s.resolver.connectionFor(project(true))).client).toBe(before.client);
    deleteConnection(s);
    const during = await s.resolver.connectionFor(project(true));
    expect(during.client).toBe(before.client);
    expect(during.organizationId).toBe('org-1');
    // The kept client still works: it was not closed with the Connection.
    await expect(during.client.identities.get(identityId)).resolves.toMatchObject({ id: identityId });
  });

  it('drops the kept client once the namespace is gone', async () => {
    const s = setup();
    await s.resolver.connectionFor(project(false));
    s.state.terminating = true;
    deleteConnection(s);
    s.state.terminating = false; // The namespace is gone (no longer in the namespace cache).
    await expect(s.resolver.connectionFor(project(true))).rejects.toThrow(/does not exist/);
  });

  it('rebuilds the client after a Secret change outside a namespace deletion', async () => {
    const s = setup();
    const before = await s.resolver.connectionFor(project(false));
    s.state.secret = undefined;
    await expect(s.resolver.connectionFor(project(false))).rejects.toThrow();
    s.state.secret = { token };
    expect((await s.resolver.connectionFor(project(false))).client).not.toBe(before.client);
  });

  it('is ReferenceNotReady, with the abandon hint, when only the Connection was deleted', async () => {
    const s = setup();
    await s.resolver.connectionFor(project(false));
    deleteConnection(s);
    const error: unknown = await s.resolver.connectionFor(project(true)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitingError);
    expect((error as WaitingError).reason).toBe('ReferenceNotReady');
    expect((error as Error).message).toContain('coffer.dev/abandon');
  });

  it('never hands the last client to a resource that is not being deleted', async () => {
    const s = setup();
    await s.resolver.connectionFor(project(false));
    s.state.terminating = true;
    deleteConnection(s);
    const error: unknown = await s.resolver.connectionFor(project(false)).catch((e: unknown) => e);
    expect((error as Error).message).toBe('waiting for Connection main: it does not exist');
  });
});
