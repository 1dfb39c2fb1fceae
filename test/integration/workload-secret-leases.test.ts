// WorkloadSecret `dynamicSecret` sources against the devserver over HTTP and a real PostgreSQL:
// a lease is issued and delivered beside a static source and through a template (a connection
// string), its credentials log in as a real role; status records the lease (id, expiry, params
// hash), never a credential, and its expiry shows in the real `kubectl get` (LEASE EXPIRY, a
// time, not <invalid>). A resync, an unrelated spec change and an operator restart issue no new
// lease (leases counted in the service, roles in PostgreSQL). After a restart a change of the
// static source does (the credentials were only in memory and the target): the new lease is
// delivered and the old one revoked after the overlap. A target deleted or edited by hand gets a
// new lease and the old one is revoked; the target is never empty. Deleting the WorkloadSecret
// revokes its lease (Revoke) or leaves it (Retain).
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOperator, type RunningOperator } from '../../src/operator/start.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { locateBinaries } from '../support/control-plane-binaries.ts';
import { clusterFromInjected } from '../support/kube.ts';
import { sqlDatabaseInputs, startPostgres, type PostgresServer } from '../support/postgres.ts';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';
import { waitFor } from '../support/wait-for.ts';

let db: PostgresServer;
let h: OperatorHarness;
let second: RunningOperator | undefined;
const projectSlug = 'lease-shop';
const scope = { projectSlug, environmentSlug: 'dev', path: '/' };
const connectionRef = { name: HARNESS_CONNECTION };
const ROLE = '^[A-Za-z0-9]{32}$';

interface HeldLease {
  leaseId: string;
  expireAt: string;
  renewAt: string;
  paramsHash: string;
}
interface Status {
  contentHash?: string;
  leases?: HeldLease[];
  leaseExpiry?: string;
  retiredLeases?: (HeldLease & { revokeAfter: string })[];
  conditions?: { type: string; status: string; reason: string; message: string }[];
}

async function call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${h.devserver.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${h.admin.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** The lease ids the service holds for the dynamic secret `name`. */
async function serviceLeases(name: string): Promise<string[]> {
  const q = `projectSlug=${projectSlug}&environmentSlug=dev&path=/`;
  const body = await call('GET', `/api/v1/dynamic-secrets/${name}/leases?${q}`);
  return (body.leases as { id: string }[]).map((l) => l.id).sort();
}

async function admin<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ host: db.host, port: db.port, user: db.user, password: db.password, database: 'postgres' }); // prettier-ignore
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** The lease roles that exist in PostgreSQL. */
async function roles(): Promise<string[]> {
  const rows = await admin<{ rolname: string }>('SELECT rolname FROM pg_roles WHERE rolname ~ $1', [ROLE]);
  return rows.map((r) => r.rolname).sort();
}

async function loginAs(user: string, password: string): Promise<string> {
  const client = new pg.Client({ host: db.host, port: db.port, user, password, database: 'postgres' });
  try {
    await client.connect();
    return (await client.query<{ who: string }>('SELECT current_user AS who')).rows[0]?.who ?? '';
  } catch (error) {
    return `failed:${(error as { code?: string }).code ?? 'unknown'}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function createDynamicSecret(name: string): Promise<void> {
  await call('POST', '/api/v1/dynamic-secrets', {
    ...scope,
    name,
    provider: {
      type: 'sql-database',
      inputs: sqlDatabaseInputs(db),
    },
    defaultTTL: '1h',
  });
}

async function putStatic(key: string, value: string): Promise<void> {
  await h.service.secrets.batchUpdate({
    projectSlug,
    environment: 'dev',
    secretPath: '/',
    mode: 'upsert',
    secrets: [{ secretKey: key, secretValue: value }],
  });
}

function workloadSecret(dynamicSecret: Record<string, unknown>, target: string) {
  return {
    connectionRef,
    sources: [
      { projectSlug, environment: 'dev', include: ['DB_HOST'] },
      { projectSlug, environment: 'dev', dynamicSecret },
    ],
    template: {
      data: { DATABASE_URL: 'postgres://{{ DB_USERNAME }}:{{ DB_PASSWORD }}@{{ DB_HOST }}/postgres' },
      mergeSourceKeys: true,
    },
    target: { secret: { name: target } },
    resyncInterval: '1h',
  };
}

const statusOf = async (name: string) => ((await h.get('WorkloadSecret', name))?.status ?? {}) as Status;
const leaseIdOf = async (name: string) => (await statusOf(name)).leases?.[0]?.leaseId;

/** Waits until `name` holds a lease other than `previous` and its target carries it. */
async function waitForNewLease(name: string, target: string, previous: string): Promise<string> {
  return waitFor(
    async () => {
      const s = await statusOf(name);
      const id = s.leases?.[0]?.leaseId;
      const ready = s.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
      const data = await h.readSecret(target);
      return id && id !== previous && ready && data?.DB_USERNAME ? id : undefined;
    },
    { timeoutMs: 60_000, message: `a new lease delivered by ${name}` },
  );
}

/**
 * The cell of `column` in `kubectl get workloadsecret <name>` (the real kubectl, server-side
 * printing), cut at the header's column positions (an empty cell leaves no gap to split on).
 */
function kubectlCell(name: string, column: string): string | undefined {
  const kubectl = locateBinaries().kubectl;
  if (!kubectl) throw new Error('cannot run kubectl: not found; run `npm run control-plane:install`');
  const args = ['--kubeconfig', clusterFromInjected().kubeconfigPath, 'get', 'workloadsecret', name, '-n', h.namespace]; // prettier-ignore
  const result = spawnSync(kubectl, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`kubectl get workloadsecret failed: ${result.stderr}`);
  const [header = '', row = ''] = result.stdout.split('\n');
  const start = header.indexOf(column);
  if (start < 0) return undefined;
  const next = header.slice(start + column.length).search(/\S/);
  const end = next < 0 ? undefined : start + column.length + next;
  return row.slice(start, end).trim();
}

/** The target's credentials log in, and its connection string is built from them. */
async function expectDelivered(target: string, host: string): Promise<{ user: string; password: string }> {
  const data = await h.readSecret(target);
  const user = data?.DB_USERNAME ?? '';
  const password = data?.DB_PASSWORD ?? '';
  expect(Object.keys(data ?? {}).sort()).toEqual(['DATABASE_URL', 'DB_HOST', 'DB_PASSWORD', 'DB_USERNAME']);
  expect(data?.DATABASE_URL).toBe(`postgres://${user}:${password}@${host}/postgres`);
  expect(await loginAs(user, password)).toBe(user);
  return { user, password };
}

beforeAll(async () => {
  db = await startPostgres();
  h = await startOperatorHarness({ devserver: { leaseSweepMs: 200 } });
  await call('POST', '/api/v2/workspace', { projectName: 'Lease shop', slug: projectSlug });
  await putStatic('DB_HOST', 'db-1.internal');
  await putStatic('OTHER', 'not delivered');
  await createDynamicSecret('app-db');
  await createDynamicSecret('keep-db');
}, 180_000);

afterAll(async () => {
  await second?.stop();
  await h?.stop();
  db?.stop();
});

describe('WorkloadSecret dynamicSecret source', () => {
  let first = '';

  it('issues one lease, delivers it with a static source through a template, records it in status', async () => {
    await h.create('WorkloadSecret', 'app', workloadSecret({ name: 'app-db', ttl: '1h', rotationOverlap: '1s' }, 'app-db')); // prettier-ignore
    await h.waitForReady('WorkloadSecret', 'app', { timeoutMs: 60_000 });
    const { user, password } = await expectDelivered('app-db', 'db-1.internal');
    const status = await statusOf('app');
    first = status.leases?.[0]?.leaseId ?? '';
    expect(status.leases).toHaveLength(1);
    expect(status.leases?.[0]).toMatchObject({ name: 'app-db', projectSlug, deletionPolicy: 'Revoke' });
    expect(Date.parse(status.leases?.[0]?.expireAt ?? '')).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(status.leaseExpiry).toBe(status.leases?.[0]?.expireAt);
    const cell = kubectlCell('app', 'LEASE EXPIRY');
    expect(cell, 'kubectl get prints a LEASE EXPIRY column').toBeDefined();
    expect(cell).not.toMatch(/<unknown>|<invalid>|<none>/);
    expect(Date.parse(cell ?? '')).toBe(Date.parse(status.leaseExpiry ?? ''));
    expect(await serviceLeases('app-db')).toEqual([first]);
    expect(await roles()).toEqual([user]);
    const object = JSON.stringify(await h.get('WorkloadSecret', 'app'));
    expect(object).not.toContain(password);
    expect(h.logs()).not.toContain(password);
  });

  it('issues no new lease on a resync or an unrelated spec change', async () => {
    const handled = await h.requestReconcile('WorkloadSecret', 'app');
    const requested = handled.metadata?.annotations?.['coffer.dev/reconcile-requested-at'];
    await waitFor(async () => ((await statusOf('app')) as { lastHandledReconcileAt?: string }).lastHandledReconcileAt === requested, { timeoutMs: 30_000 }); // prettier-ignore
    await h.patch('WorkloadSecret', 'app', { spec: { target: { secret: { name: 'app-db', labels: { tier: 'one' } } } } }); // prettier-ignore
    await waitFor(async () => (await h.core.readNamespacedSecret({ namespace: h.namespace, name: 'app-db' })).metadata?.labels?.tier === 'one', { timeoutMs: 30_000 }); // prettier-ignore
    expect(await leaseIdOf('app')).toBe(first);
    expect(await serviceLeases('app-db')).toEqual([first]);
    expect(await roles()).toHaveLength(1);
  });

  it('issues no new lease after an operator restart and an unrelated spec change', async () => {
    await h.operator.stop();
    second = await startOperator({
      kubeConfig: h.kubeConfig,
      log: createLogger({ level: 'warn', name: 'coffer' }),
      namespaces: h.namespaces,
      waitRequeueMs: 1_000,
      clientCloseDelayMs: 1_000,
    });
    await second.ready;
    await h.patch('WorkloadSecret', 'app', { spec: { target: { secret: { name: 'app-db', labels: { tier: 'two' } } } } }); // prettier-ignore
    await waitFor(async () => (await h.core.readNamespacedSecret({ namespace: h.namespace, name: 'app-db' })).metadata?.labels?.tier === 'two', { timeoutMs: 30_000 }); // prettier-ignore
    await h.waitForReady('WorkloadSecret', 'app', { timeoutMs: 30_000 });
    expect(await leaseIdOf('app')).toBe(first);
    expect(await serviceLeases('app-db')).toEqual([first]);
    expect(await roles()).toHaveLength(1);
    await expectDelivered('app-db', 'db-1.internal');
  });

  it('after a restart, a change of the static source delivers a new lease and revokes the old one', async () => {
    const before = (await h.readSecret('app-db'))?.DB_USERNAME ?? '';
    await putStatic('DB_HOST', 'db-2.internal');
    const next = await waitForNewLease('app', 'app-db', first);
    const { user } = await expectDelivered('app-db', 'db-2.internal');
    await waitFor(async () => (await serviceLeases('app-db')).length === 1, { timeoutMs: 30_000, message: 'the old lease revoked' }); // prettier-ignore
    expect(await serviceLeases('app-db')).toEqual([next]);
    expect(await roles()).toEqual([user]);
    expect(user).not.toBe(before);
    first = next;
  });

  it('a target deleted or edited by hand gets a new lease; the old one is revoked', async () => {
    await h.core.deleteNamespacedSecret({ namespace: h.namespace, name: 'app-db' });
    const afterDelete = await waitForNewLease('app', 'app-db', first);
    const delivered = await expectDelivered('app-db', 'db-2.internal');
    await waitFor(async () => (await roles()).length === 1, { timeoutMs: 30_000, message: 'one role left' });
    expect(await roles()).toEqual([delivered.user]);

    const secret = await h.core.readNamespacedSecret({ namespace: h.namespace, name: 'app-db' });
    secret.data = { ...secret.data, DB_PASSWORD: Buffer.from('edited').toString('base64') };
    await h.core.replaceNamespacedSecret({ namespace: h.namespace, name: 'app-db', body: secret });
    const afterEdit = await waitForNewLease('app', 'app-db', afterDelete);
    const again = await expectDelivered('app-db', 'db-2.internal');
    await waitFor(async () => (await serviceLeases('app-db')).length === 1, { timeoutMs: 30_000, message: 'the old lease revoked' }); // prettier-ignore
    expect(await serviceLeases('app-db')).toEqual([afterEdit]);
    expect(await roles()).toEqual([again.user]);
    first = afterEdit;
  });

  it('deleting the WorkloadSecret revokes its lease (Revoke) or leaves it (Retain)', async () => {
    await h.create('WorkloadSecret', 'keep', workloadSecret({ name: 'keep-db', deletionPolicy: 'Retain' }, 'keep-db')); // prettier-ignore
    await h.waitForReady('WorkloadSecret', 'keep', { timeoutMs: 60_000 });
    const kept = await expectDelivered('keep-db', 'db-2.internal');
    const keptLease = await leaseIdOf('keep');

    await h.delete('WorkloadSecret', 'app');
    await h.delete('WorkloadSecret', 'keep');
    await h.waitForDeletion('WorkloadSecret', 'app', { timeoutMs: 30_000 });
    await h.waitForDeletion('WorkloadSecret', 'keep', { timeoutMs: 30_000 });
    expect(await serviceLeases('app-db')).toEqual([]);
    expect(await serviceLeases('keep-db')).toEqual([keptLease]);
    expect(await roles()).toEqual([kept.user]);
    expect(await loginAs(kept.user, kept.password)).toBe(kept.user);
  });
});
