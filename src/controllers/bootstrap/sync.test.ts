// Bootstrap's sync against a devserver on loopback, with Secrets in memory: one call, the owned
// output Secret, AlreadyBootstrapped without retry, and a failed Secret write retried without a
// second call.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeSecrets } from '../../../test/support/fake-kube.ts';
import type { BootstrapSpec } from '../../api/v1alpha1/index.ts';
import { startDevServer, type DevServer } from '../../devserver/server.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import type { DirectServices } from '../../managed/direct/kind.ts';
import { createLogger } from '../../runtime/logger.ts';
import { createSecretWriter, type SecretWriter } from '../../runtime/secret-writer.ts';
import { connectionSpecFor } from './output-connection.ts';
import { bootstrapSync } from './sync.ts';

const log = createLogger({ level: 'silent' });
const ctx = { signal: new AbortController().signal, log, now: new Date() };
let server: DevServer;
let secrets: FakeSecrets;

beforeEach(async () => {
  server = await startDevServer({ port: 0 });
  secrets = new FakeSecrets();
  await secrets.createNamespacedSecret({
    namespace: 'ns',
    body: { metadata: { name: 'pw' }, data: { password: Buffer.from('a-password').toString('base64') } },
  });
});

afterEach(async () => {
  await server.close();
});

const calls = () => server.stats.requests.byRoute['POST /api/v1/admin/bootstrap'] ?? 0;

function services(writer?: SecretWriter): DirectServices {
  return {
    core: secrets,
    secrets: { read: (namespace: string, name: string) => Promise.resolve(secrets.data(namespace, name)) },
    secretWriter: writer ?? createSecretWriter({ api: secrets }),
  } as unknown as DirectServices;
}

function bootstrap(uid: string, output = 'out'): ManagedObject<BootstrapSpec> {
  return {
    apiVersion: 'coffer.dev/v1alpha1',
    kind: 'Bootstrap',
    metadata: { name: `b-${uid}`, namespace: 'ns', uid, generation: 1 },
    spec: {
      url: server.url,
      email: 'admin@example.com',
      passwordSecretRef: { name: 'pw', key: 'password' },
      organization: 'Acme',
      outputSecretName: output,
      createConnection: false,
    },
  };
}

describe('bootstrapSync', () => {
  it('calls the service once and then reads the owned output Secret', async () => {
    const sync = bootstrapSync(services());
    const first = await sync.sync(bootstrap('u1'), ctx);
    expect(first.ready).toMatchObject({ status: 'True', reason: 'Available' });
    const data = secrets.data('ns', 'out');
    expect(Object.keys(data ?? {}).sort()).toEqual(['identityId', 'organizationId', 'token', 'userId']);
    expect(first.status).toEqual({
      organizationId: data?.organizationId,
      userId: data?.userId,
      identityId: data?.identityId,
    });
    expect(JSON.stringify(first)).not.toContain(data?.token);
    const again = await sync.sync(bootstrap('u1'), ctx);
    expect(again.ready.status).toBe('True');
    expect(again.events).toEqual([]);
    expect(calls()).toBe(1);
  });

  it('reports AlreadyBootstrapped without a requeue', async () => {
    await bootstrapSync(services()).sync(bootstrap('u1'), ctx);
    const other = await bootstrapSync(services()).sync(bootstrap('u2', 'other-out'), ctx);
    expect(other).toMatchObject({
      ready: { status: 'False', reason: 'AlreadyBootstrapped' },
      synced: { status: 'False', reason: 'AlreadyBootstrapped' },
      requeueAfterMs: null,
    });
    expect(secrets.data('ns', 'other-out')).toBeUndefined();
  });

  it('keeps the result when the Secret write fails and retries only the write', async () => {
    const real = createSecretWriter({ api: secrets });
    let failures = 1;
    const flaky: SecretWriter = {
      write: (owner, output) =>
        failures-- > 0 ? Promise.reject(new Error('etcd hiccup')) : real.write(owner, output),
    };
    const sync = bootstrapSync(services(flaky));
    await expect(sync.sync(bootstrap('u1'), ctx)).rejects.toThrow('etcd hiccup');
    const retried = await sync.sync(bootstrap('u1'), ctx);
    expect(retried.ready.status).toBe('True');
    expect(secrets.data('ns', 'out')?.token).toBeTruthy();
    expect(calls()).toBe(1);
  });

  it('stops when the password Secret is missing', async () => {
    const spec = { ...bootstrap('u1').spec, passwordSecretRef: { name: 'missing', key: 'password' } };
    const outcome = await bootstrapSync(services()).sync({ ...bootstrap('u1'), spec }, ctx);
    expect(outcome).toMatchObject({ synced: { reason: 'CredentialsNotFound' }, requeueAfterMs: null });
    expect(calls()).toBe(0);
  });
});

describe('connectionSpecFor', () => {
  it('points the Connection at the output Secret with the same URL and TLS', () => {
    const spec = { ...bootstrap('u1').spec, tls: { caBundle: 'PEM', insecureSkipVerify: false } };
    expect(connectionSpecFor(spec)).toEqual({
      url: server.url,
      tls: { caBundle: 'PEM', insecureSkipVerify: false },
      auth: { token: { secretRef: { name: 'out', key: 'token' } } },
    });
  });
});
