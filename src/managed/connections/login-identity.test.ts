// identityRef of the ServiceAccount logins: resolved to the Identity's status.id (Ready, not being
// deleted) or a LoginIdentityNotReadyError naming the field and the Identity; a ClusterConnection
// names the namespace; the resolver builds a new client when the Identity's id changes and makes
// the resources using the connection wait while the Identity is not usable.
import { afterEach, describe, expect, it } from 'vitest';
import type { ManagedObject } from '../external-client.ts';
import type { ReferencedObject } from '../references.ts';
import { createLogger } from '../../runtime/logger.ts';
import type { KubeObject } from '../../runtime/object-meta.ts';
import type { ConnectionSettings } from './credentials.ts';
import { LoginIdentityNotReadyError, loginIdentityId, withLoginIdentity } from './login-identity.ts';
import { ConnectionResolver, type ConnectionObject } from './resolver.ts';

const ready = (generation = 1) => ({
  type: 'Ready',
  status: 'True' as const,
  reason: 'Available',
  message: '',
  observedGeneration: generation,
  lastTransitionTime: '2026-01-01T00:00:00Z',
});

function identity(namespace: string, name: string, id?: string, isReady = true): ReferencedObject {
  return {
    apiVersion: 'coffer.dev/v1alpha1',
    kind: 'Identity',
    metadata: { name, namespace },
    status: { ...(id ? { id } : {}), conditions: isReady ? [ready()] : [] },
  };
}

/** An Identity reader over `objects` (keyed `namespace/name`). */
function reader(objects: Map<string, ReferencedObject>) {
  return {
    get: (r: { namespace?: string; name: string }) =>
      Promise.resolve(objects.get(`${r.namespace}/${r.name}`)),
  };
}

const token = { serviceAccountRef: { name: 'app', audiences: ['coffer'], expirationSeconds: 600 } };

function settings(identityRef: { name: string; namespace?: string }): ConnectionSettings {
  return { url: 'http://127.0.0.1:9', auth: { jwt: { identityRef, serviceAccountToken: token } } };
}

const connection: KubeObject = { metadata: { name: 'main', namespace: 'ns' } };
const clusterConnection: KubeObject = { metadata: { name: 'shared' } };

describe('withLoginIdentity', () => {
  it('leaves settings without identityRef alone', async () => {
    const plain: ConnectionSettings = {
      url: 'http://127.0.0.1:9',
      auth: { jwt: { identityId: 'id-1', serviceAccountToken: token } },
    };
    const resolved = await withLoginIdentity(connection, plain, { identities: undefined, waitRequeueMs: 1 });
    expect(resolved).toBe(plain);
    expect(loginIdentityId(resolved)).toBe('id-1');
  });

  it('replaces identityRef by the id of the Ready Identity of the Connection’s namespace', async () => {
    const identities = reader(new Map([['ns/app', identity('ns', 'app', 'id-app')]]));
    const resolved = await withLoginIdentity(connection, settings({ name: 'app' }), {
      identities,
      waitRequeueMs: 1,
    });
    expect(resolved.auth.jwt).toEqual({ identityId: 'id-app', serviceAccountToken: token });
    expect(loginIdentityId(resolved)).toBe('id-app');
  });

  it.each([
    ['missing', new Map<string, ReferencedObject>(), 'it does not exist'],
    ['not Ready', new Map([['ns/app', identity('ns', 'app', 'id-app', false)]]), 'it is not Ready'],
    ['without id', new Map([['ns/app', identity('ns', 'app')]]), 'it is not Ready'],
  ])('waits while the Identity is %s', async (_label, objects, why) => {
    const pending = withLoginIdentity(connection, settings({ name: 'app' }), {
      identities: reader(objects),
      waitRequeueMs: 1_234,
    });
    await expect(pending).rejects.toBeInstanceOf(LoginIdentityNotReadyError);
    await expect(pending).rejects.toMatchObject({
      reason: 'ReferenceNotReady',
      requeueAfterMs: 1_234,
      message: `spec.auth.jwt.identityRef: waiting for Identity app: ${why}`,
    });
  });

  it('reads a ClusterConnection’s Identity in the namespace it names, and says so', async () => {
    const objects = new Map([['team-a/app', identity('team-a', 'app', 'id-a')]]);
    const options = { identities: reader(objects), waitRequeueMs: 1 };
    const resolved = await withLoginIdentity(
      clusterConnection,
      settings({ name: 'app', namespace: 'team-a' }),
      options,
    );
    expect(loginIdentityId(resolved)).toBe('id-a');
    await expect(
      withLoginIdentity(clusterConnection, settings({ name: 'app', namespace: 'team-b' }), options),
    ).rejects.toThrow('spec.auth.jwt.identityRef: waiting for Identity team-b/app: it does not exist');
  });

  it('waits when the operator does not run the Identity kind', async () => {
    await expect(
      withLoginIdentity(connection, settings({ name: 'app' }), { identities: undefined, waitRequeueMs: 1 }),
    ).rejects.toThrow(
      'spec.auth.jwt.identityRef: cannot resolve Identity app: this operator does not run the Identity kind',
    );
  });

  it('takes any recorded id while the connection is being deleted', async () => {
    const deleting: KubeObject = { metadata: { ...connection.metadata, deletionTimestamp: new Date() } };
    const objects = new Map([['ns/app', identity('ns', 'app', 'id-app', false)]]);
    const resolved = await withLoginIdentity(deleting, settings({ name: 'app' }), {
      identities: reader(objects),
      waitRequeueMs: 1,
    });
    expect(loginIdentityId(resolved)).toBe('id-app');
  });
});

describe('ConnectionResolver with identityRef', () => {
  let resolver: ConnectionResolver | undefined;
  afterEach(async () => {
    await resolver?.close();
    resolver = undefined;
  });

  function setup() {
    const objects = new Map([['ns/app', identity('ns', 'app', 'id-1')]]);
    const main: ConnectionObject = {
      apiVersion: 'coffer.dev/v1alpha1',
      kind: 'Connection',
      metadata: { name: 'main', namespace: 'ns', uid: 'u1', generation: 1 },
      spec: settings({ name: 'app' }),
      status: { conditions: [ready()] },
    };
    const none = () => Promise.resolve(undefined);
    resolver = new ConnectionResolver({
      readers: { Connection: { get: () => Promise.resolve(main) }, ClusterConnection: { get: none } },
      identities: reader(objects),
      namespaceLabels: () => ({}),
      versions: { secret: none, configMap: none },
      sources: {
        secrets: { read: none },
        configMaps: { read: none },
        serviceAccountTokens: {
          request: () => Promise.reject(new Error('not called: clients log in lazily')),
          readProjected: () => Promise.reject(new Error('not called')),
          acceptedByApiServer: () => Promise.resolve(false),
        },
      },
      log: createLogger({ level: 'silent' }),
      waitRequeueMs: 1_000,
    });
    const user: ManagedObject<unknown> = {
      apiVersion: 'coffer.dev/v1alpha1',
      kind: 'Project',
      metadata: { name: 'p', namespace: 'ns' },
      spec: { connectionRef: { name: 'main' } },
    };
    return { resolver, objects, main, user };
  }

  it('builds a new client when the Identity gets a new id, and reuses it otherwise', async () => {
    const s = setup();
    const first = await s.resolver.clientFor('Connection', s.main);
    expect(await s.resolver.clientFor('Connection', s.main)).toBe(first);
    s.objects.set('ns/app', identity('ns', 'app', 'id-2'));
    expect(await s.resolver.clientFor('Connection', s.main)).not.toBe(first);
  });

  it('makes a resource using the connection wait while the Identity is not usable', async () => {
    const s = setup();
    s.objects.delete('ns/app');
    await expect(s.resolver.connectionFor(s.user)).rejects.toMatchObject({
      errorClass: 'waiting',
      reason: 'ReferenceNotReady',
      message:
        'waiting for Connection main: it cannot log in yet ' +
        '(spec.auth.jwt.identityRef: waiting for Identity app: it does not exist)',
    });
  });
});
