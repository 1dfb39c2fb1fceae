// Connection resolution while a connection is being deleted (held by its dependents): resources
// being deleted keep its last client, even once its Secret is gone; live resources wait; without
// a client in memory one is built from the Secrets, and their absence is ReferenceNotReady. And
// ClusterConnection admission: a resource being deleted that recorded its object may still
// delete it after its namespace lost admission.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../devserver/test-support.ts';
import type { ManagedObject } from '../external-client.ts';
import { TerminalError, WaitingError } from '../../runtime/errors.ts';
import { createLogger } from '../../runtime/logger.ts';
import { ConnectionResolver, type ConnectionKindName, type ConnectionObject } from './resolver.ts';

let t: TestServer;
let token = '';
const resolvers: ConnectionResolver[] = [];

beforeAll(async () => {
  t = await startTestServer();
  ({ token } = await t.bootstrap());
});

afterEach(async () => {
  await Promise.all(resolvers.splice(0).map((r) => r.close()));
});

afterAll(async () => {
  await t.close();
});

const readyCondition = {
  type: 'Ready',
  status: 'True',
  reason: 'Available',
  message: '',
  observedGeneration: 1,
  lastTransitionTime: '2026-01-01T00:00:00Z',
};

/** Shared state: one Connection `ns/main` and one ClusterConnection `shared` (admits `ns`). */
function world() {
  const secretRef = { name: 'token', key: 'token' };
  const metadata = { uid: 'u1', generation: 1, finalizers: ['coffer.dev/dependents'] };
  const status = { organizationId: 'org-1', conditions: [readyCondition] };
  return {
    secret: { token } as Record<string, string> | undefined,
    Connection: {
      apiVersion: 'coffer.dev/v1alpha1',
      kind: 'Connection',
      metadata: { ...metadata, name: 'main', namespace: 'ns' },
      spec: { url: t.server.url, auth: { token: { secretRef } } },
      status,
    } as ConnectionObject,
    ClusterConnection: {
      apiVersion: 'coffer.dev/v1alpha1',
      kind: 'ClusterConnection',
      metadata: { ...metadata, name: 'shared' },
      spec: {
        url: t.server.url,
        auth: { token: { secretRef: { ...secretRef, namespace: 'ns' } } },
        allowedNamespaces: { names: ['ns'] },
      },
      status,
    } as ConnectionObject,
  };
}

type World = ReturnType<typeof world>;

/** A resolver over `w` (a new one has an empty client cache, like an operator restart). */
function resolverOver(w: World): ConnectionResolver {
  const read = () => Promise.resolve(w.secret);
  const resolver = new ConnectionResolver({
    readers: {
      Connection: { get: () => Promise.resolve(w.Connection) },
      ClusterConnection: { get: () => Promise.resolve(w.ClusterConnection) },
    },
    namespaceLabels: () => ({}),
    versions: {
      secret: () => Promise.resolve(w.secret ? '1' : undefined),
      configMap: () => Promise.resolve(undefined),
    },
    sources: { secrets: { read }, configMaps: { read: () => Promise.resolve(undefined) } },
    log: createLogger({ level: 'silent' }),
    waitRequeueMs: 1_000,
  });
  resolvers.push(resolver);
  return resolver;
}

function deleting<T extends { metadata: object }>(obj: T): T {
  return { ...obj, metadata: { ...obj.metadata, deletionTimestamp: '2030-01-01T00:00:00Z' } };
}

/** A Project using `kind`; `recorded` gives it the external id the operator recorded. */
function project(kind: ConnectionKindName, options: { deleting?: boolean; recorded?: boolean } = {}) {
  const name = kind === 'Connection' ? 'main' : 'shared';
  const obj: ManagedObject<unknown> = {
    apiVersion: 'coffer.dev/v1alpha1',
    kind: 'Project',
    metadata: {
      name: 'app',
      namespace: 'ns',
      finalizers: ['coffer.dev/finalizer'],
      ...(options.recorded ? { annotations: { 'coffer.dev/external-id': 'p-1' } } : {}),
    },
    spec: { connectionRef: { kind, name } },
    ...(options.recorded ? { status: { id: 'p-1' } } : {}),
  };
  return options.deleting ? deleting(obj) : obj;
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as Error,
  );
}

describe('ConnectionResolver with a connection being deleted', () => {
  it('serves its last client to resources being deleted, even without its Secret', async () => {
    const w = world();
    const resolver = resolverOver(w);
    const before = await resolver.connectionFor(project('Connection'));
    w.Connection = deleting(w.Connection);
    w.secret = undefined;
    const during = await resolver.connectionFor(project('Connection', { deleting: true }));
    expect(during.client).toBe(before.client);
    expect(during.organizationId).toBe('org-1');
  });

  it('makes live resources wait: nothing new goes through a connection on its way out', async () => {
    const w = world();
    const resolver = resolverOver(w);
    w.Connection = deleting(w.Connection);
    const error = await failure(resolver.connectionFor(project('Connection')));
    expect(error).toBeInstanceOf(WaitingError);
    expect(error.message).toBe('waiting for Connection main: it is being deleted');
  });

  it('builds a client from the Secrets after a restart, and waits when they are gone', async () => {
    const w = world();
    w.Connection = deleting(w.Connection);
    const user = project('Connection', { deleting: true });
    await expect(resolverOver(w).connectionFor(user)).resolves.toMatchObject({ key: 'Connection/ns/main' });
    w.secret = undefined;
    const error = await failure(resolverOver(w).connectionFor(user));
    expect(error).toBeInstanceOf(WaitingError);
    expect((error as WaitingError).reason).toBe('ReferenceNotReady');
    expect(error.message).toContain('it is being deleted and its credentials are gone (Secret ns/token');
    expect(error.message).toContain('coffer.dev/abandon');
  });
});

describe('ClusterConnection admission of a resource being deleted', () => {
  function withoutAdmission(): World {
    const w = world();
    w.ClusterConnection = {
      ...w.ClusterConnection,
      spec: { ...(w.ClusterConnection.spec as object), allowedNamespaces: { names: ['other'] } },
    };
    return w;
  }

  it('lets a resource being deleted that recorded its object use it', async () => {
    const resolver = resolverOver(withoutAdmission());
    const user = project('ClusterConnection', { deleting: true, recorded: true });
    await expect(resolver.connectionFor(user)).resolves.toMatchObject({ key: 'ClusterConnection/shared' });
  });

  it.each([
    ['a live resource', { recorded: true }],
    ['a resource being deleted that recorded no object', { deleting: true }],
  ])('refuses %s', async (_what, options) => {
    const resolver = resolverOver(withoutAdmission());
    const error = await failure(resolver.connectionFor(project('ClusterConnection', options)));
    expect(error).toBeInstanceOf(TerminalError);
    expect((error as TerminalError).reason).toBe('NamespaceNotAllowed');
  });
});
