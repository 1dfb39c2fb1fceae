// DynamicSecret against the real control plane, a devserver and a private PostgreSQL: the
// definition is created (Ready, with its id) and issues a lease that logs in to the database; a TTL
// change and a changed admin password in the referenced Secret reach the service; the CRD refuses
// bad TTLs and providers; a missing Secret or key is Synced=False with its reason; Delete removes
// the definition, Orphan keeps it; a Kubernetes provider's cluster token from a Secret issues a
// ServiceAccount token. The admin password and cluster token never appear in the resource, its events or
// the operator's log. The cases every managed kind shares (drift, adoption, AlreadyExists,
// ObserveOnly, ...) run in conformance.test.ts (test/support/conformance/kinds/dynamic-secret.ts).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamicSecretController } from '../../src/controllers/dynamic-secret/index.ts';
import { projectController } from '../../src/controllers/project/index.ts';
import { clusterFromInjected, statusCodeOf, waitFor } from '../support/kube.ts';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';
import { startPostgres, type PostgresServer } from '../support/postgres.ts';

let h: OperatorHarness;
let db: PostgresServer;
let projectSlug = '';
const connectionRef = { name: HARNESS_CONNECTION };
const ADMIN_ROLE = 'coffer_admin';
const passwords = [randomBytes(12).toString('hex'), randomBytes(12).toString('hex')] as const;
let clusterToken = '';

/** Runs `sql` as the server's superuser. */
async function asSuperuser(sql: string): Promise<void> {
  const client = new pg.Client({ host: db.host, port: db.port, user: db.user, password: db.password, database: db.database }); // prettier-ignore
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Logs in with a lease's credentials; the user name PostgreSQL reports. */
async function loginAs(data: Readonly<Record<string, string>>): Promise<string> {
  const client = new pg.Client({ host: db.host, port: db.port, user: data['DB_USERNAME'], password: data['DB_PASSWORD'], database: db.database }); // prettier-ignore
  await client.connect();
  try {
    return (await client.query<{ who: string }>('SELECT current_user AS who')).rows[0]?.who ?? '';
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  db = await startPostgres();
  await asSuperuser(`CREATE ROLE ${ADMIN_ROLE} WITH LOGIN SUPERUSER PASSWORD '${passwords[0]}'`);
  h = await startOperatorHarness({ operator: { kinds: [projectController, dynamicSecretController] } });
  projectSlug = `dyn-${randomBytes(3).toString('hex')}`;
  await h.create('Project', 'shop', {
    connectionRef,
    name: 'Shop',
    slug: projectSlug,
    deletionPolicy: 'Delete',
    environments: [{ name: 'Development', slug: 'dev' }],
  });
  await h.waitForReady('Project', 'shop');
  await h.createSecret('db-admin', { password: passwords[0] });
});

afterAll(async () => {
  await h?.stop();
  db?.stop();
});

const sqlDatabase = () => ({
  client: 'postgres',
  host: db.host,
  port: db.port,
  database: db.database,
  username: ADMIN_ROLE,
  passwordSecretRef: { name: 'db-admin', key: 'password' },
  creationStatement: `CREATE ROLE "{{username}}" WITH LOGIN PASSWORD '{{password}}' VALID UNTIL '{{expiration}}';`,
  renewStatement: `ALTER ROLE "{{username}}" VALID UNTIL '{{expiration}}';`,
  revocationStatement: `DROP ROLE IF EXISTS "{{username}}";`,
});

const spec = (name: string, extra: Record<string, unknown> = {}) => ({
  connectionRef,
  projectRef: { name: 'shop' },
  environment: 'dev',
  name,
  defaultTTL: '1h',
  maxTTL: '1d',
  provider: { sqlDatabase: sqlDatabase() },
  ...extra,
});

const scope = () => ({ projectSlug, environmentSlug: 'dev', path: '/' });
const stored = (name: string) => h.service.dynamicSecrets.get(name, scope());
const gone = (name: string) =>
  stored(name).then(
    () => false,
    (error: unknown) => (error as { status?: number }).status === 404,
  );

function condition(obj: { status?: { conditions?: { type: string; message?: string }[] } }, type: string) {
  return obj.status?.conditions?.find((c) => c.type === type);
}

describe('DynamicSecret', () => {
  it('creates the definition, Ready with its id, and it issues a lease that logs in', async () => {
    await h.create('DynamicSecret', 'orders-db', spec('orders-db'));
    const ready = await h.waitForReady('DynamicSecret', 'orders-db');
    expect(ready.status).toMatchObject({ name: 'orders-db', projectSlug, provider: 'sql-database' });
    const ds = await stored('orders-db');
    expect(ds).toMatchObject({ id: ready.status?.id, type: 'sql-database', defaultTTL: '1h', maxTTL: '1d' });
    expect(ds.inputs).toMatchObject({
      client: 'postgres',
      host: db.host,
      port: db.port,
      username: ADMIN_ROLE,
    });
    expect(ds.inputs?.['password'] === passwords[0]).toBe(true);
    expect(JSON.stringify(ready)).not.toContain(passwords[0]);

    const { data } = await h.service.dynamicSecretLeases.issue({
      ...scope(),
      dynamicSecretName: 'orders-db',
    });
    expect(await loginAs(data)).toBe(data['DB_USERNAME']);
  });

  it('sends a TTL change to the service', async () => {
    await h.patch('DynamicSecret', 'orders-db', { spec: { defaultTTL: '2h', maxTTL: '2d' } });
    await waitFor(async () => (await stored('orders-db')).defaultTTL === '2h', {
      message: 'the new default TTL in the service',
    });
    expect((await stored('orders-db')).maxTTL).toBe('2d');
  });

  it('sends a changed admin password from the Secret to the service', async () => {
    await asSuperuser(`ALTER ROLE ${ADMIN_ROLE} PASSWORD '${passwords[1]}'`);
    await h.createSecret('db-admin', { password: passwords[1] });
    await waitFor(async () => (await stored('orders-db')).inputs?.['password'] === passwords[1], {
      message: 'the new admin password in the service',
    });
    const { data } = await h.service.dynamicSecretLeases.issue({
      ...scope(),
      dynamicSecretName: 'orders-db',
    });
    expect(await loginAs(data)).toBe(data['DB_USERNAME']);
  });

  it.each([
    ['maxTTL below defaultTTL', { defaultTTL: '2h', maxTTL: '1h' }, 'maxTTL must be at least defaultTTL'],
    ['a TTL under a minute', { defaultTTL: '30s' }, 'defaultTTL must be at least 1m and at most 10y'],
    ['a TTL that is no duration', { defaultTTL: '1 hour' }, "should match '^[1-9][0-9]*(ms|s|m|h|d|w|y)$'"],
    [
      'two providers',
      {
        provider: {
          sqlDatabase: { client: 'postgres', host: 'h', port: 5432, database: 'd', username: 'u', passwordSecretRef: { name: 'db-admin', key: 'password' }, creationStatement: 'c', revocationStatement: 'r' }, // prettier-ignore
          kubernetes: { url: 'https://k', clusterTokenSecretRef: { name: 't', key: 'token' }, credentialType: 'static', namespace: 'default', serviceAccountName: 'sa' }, // prettier-ignore
        },
      },
      'exactly one provider must be set',
    ],
    [
      'a static Kubernetes provider without a ServiceAccount',
      { provider: { kubernetes: { url: 'https://k', clusterTokenSecretRef: { name: 't', key: 'token' }, credentialType: 'static', namespace: 'default' } } }, // prettier-ignore
      'credentialType static needs serviceAccountName',
    ],
  ])('is refused by the API server for %s', async (_what, extra, message) => {
    const refused = await h
      .create('DynamicSecret', 'refused', spec('refused', extra))
      .catch((e: unknown) => e);
    expect(statusCodeOf(refused)).toBe(422);
    expect(String((refused as { body?: unknown }).body)).toContain(message);
  });

  it('reports a missing Secret, then a missing key, as Synced=False and creates nothing', async () => {
    const ref = { name: 'later-admin', key: 'password' };
    await h.create('DynamicSecret', 'later', spec('later', { provider: { sqlDatabase: { ...sqlDatabase(), passwordSecretRef: ref } } })); // prettier-ignore
    const missing = await h.waitForCondition('DynamicSecret', 'later', { type: 'Synced', status: 'False', reason: 'SecretNotFound' }); // prettier-ignore
    expect(condition(missing, 'Synced')?.message).toBe(
      `cannot read Secret ${h.namespace}/later-admin: it does not exist`,
    );
    await h.createSecret('later-admin', { other: 'x' });
    const noKey = await h.waitForCondition('DynamicSecret', 'later', { type: 'Synced', status: 'False', reason: 'SecretKeyNotFound' }); // prettier-ignore
    expect(condition(noKey, 'Synced')?.message).toBe(
      `cannot read key password of Secret ${h.namespace}/later-admin: the Secret has no such key`,
    );
    expect(await gone('later')).toBe(true);
    await h.createSecret('later-admin', { password: passwords[1] });
    await h.waitForReady('DynamicSecret', 'later');
    expect(await gone('later')).toBe(false);
  });

  it('removes the definition from the service with deletionPolicy Delete', async () => {
    await h.delete('DynamicSecret', 'later');
    await h.waitForDeletion('DynamicSecret', 'later');
    expect(await gone('later')).toBe(true);
  });

  it('keeps the definition in the service with deletionPolicy Orphan', async () => {
    await h.create('DynamicSecret', 'kept', spec('kept', { deletionPolicy: 'Orphan' }));
    const ready = await h.waitForReady('DynamicSecret', 'kept');
    await h.delete('DynamicSecret', 'kept');
    await h.waitForDeletion('DynamicSecret', 'kept');
    expect((await stored('kept')).id).toBe(ready.status?.id);
  });

  it('defines a Kubernetes provider whose cluster token comes from a Secret, and it issues a token', async () => {
    const ns = h.namespace;
    for (const name of ['leased', 'provisioner']) {
      await h.core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name } } });
    }
    const rbac = h.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const rules = [
      { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get', 'list'] },
      { apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] },
    ];
    await rbac.createNamespacedRole({ namespace: ns, body: { metadata: { name: 'provisioner' }, rules } });
    const roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'provisioner' };
    const subjects = [{ kind: 'ServiceAccount', name: 'provisioner', namespace: ns }];
    await rbac.createNamespacedRoleBinding({ namespace: ns, body: { metadata: { name: 'provisioner' }, roleRef, subjects } }); // prettier-ignore
    const issued = await h.core.createNamespacedServiceAccountToken({ namespace: ns, name: 'provisioner', body: { spec: { expirationSeconds: 3600 } } }); // prettier-ignore
    clusterToken = issued.status?.token ?? '';
    await h.createSecret('cluster-token', { token: clusterToken });
    const cluster = clusterFromInjected();
    const kubernetes = {
      url: cluster.info.server,
      clusterTokenSecretRef: { name: 'cluster-token', key: 'token' },
      ca: readFileSync(cluster.info.caCertPath, 'utf8'),
      sslEnabled: true,
      credentialType: 'static',
      namespace: ns,
      serviceAccountName: 'leased',
      audiences: ['dyn-test'],
    };
    await h.create('DynamicSecret', 'cluster', spec('cluster', { provider: { kubernetes } }));
    const ready = await h.waitForReady('DynamicSecret', 'cluster');
    expect(ready.status).toMatchObject({ provider: 'kubernetes' });
    const { data } = await h.service.dynamicSecretLeases.issue({ ...scope(), dynamicSecretName: 'cluster' });
    expect(data['TOKEN']?.split('.')).toHaveLength(3);
  });

  it('never puts the admin password or cluster token in resources, events or logs', async () => {
    const events = JSON.stringify(await h.events('orders-db'));
    const obj = JSON.stringify(await h.get('DynamicSecret', 'orders-db'));
    expect(clusterToken.length).toBeGreaterThan(0);
    for (const password of [...passwords, clusterToken]) {
      expect(events.includes(password)).toBe(false);
      expect(obj.includes(password)).toBe(false);
      expect(h.logs().includes(password)).toBe(false);
    }
    expect(h.logs()).not.toContain(h.admin.token);
  });
});
