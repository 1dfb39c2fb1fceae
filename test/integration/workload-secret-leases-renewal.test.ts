// Lease lifetime of a WorkloadSecret `dynamicSecret` source in real time (the service's shortest
// TTL, 1m; a maximum TTL of 2m), against the devserver over HTTP and a real PostgreSQL: the lease
// is renewed at about two thirds of its time (status and the role's VALID UNTIL move, same
// lease); when a renewal would pass the maximum, a new lease is issued ahead of the expiry and
// delivered, the old one stays valid for the overlap and is then revoked (its role dropped).
// `status.leaseExpiry` follows the held lease. A Deployment opted in to restarts (annotation
// coffer.dev/reload-secrets) gets its pod template bumped exactly once by the rotation (the
// API server raises its generation) and never by a renewal or the revocation.
// With the service unreachable at renewal time the lease and the target are kept and
// `Synced=False LeaseNotRenewed` says so; once it answers again the lease is renewed.
import { AppsV1Api } from '@kubernetes/client-node';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';
import { sqlDatabaseInputs, startPostgres, type PostgresServer } from '../support/postgres.ts';
import { waitFor } from '../support/wait-for.ts';

let db: PostgresServer;
let h: OperatorHarness;
let apps: AppsV1Api;
const projectSlug = 'lease-renew';
const scope = { projectSlug, environmentSlug: 'dev', path: '/' };

interface Held {
  leaseId: string;
  expireAt: string;
}
interface Status {
  contentHash?: string;
  leases?: Held[];
  retiredLeases?: Held[];
  leaseExpiry?: string;
  lastRestart?: { time: string; workloads: string[] };
  pendingRestart?: unknown;
  lastHandledReconcileAt?: string;
  conditions?: { type: string; status: string; reason: string; message: string }[];
}

async function call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${h.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${h.admin.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function serviceLeases(): Promise<string[]> {
  const q = `projectSlug=${projectSlug}&environmentSlug=dev&path=/`;
  return ((await call('GET', `/api/v1/dynamic-secrets/short-db/leases?${q}`)).leases as { id: string }[]).map((l) => l.id); // prettier-ignore
}

async function query<T extends pg.QueryResultRow>(
  user: string,
  password: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  // prettier-ignore
  const client = new pg.Client({ host: db.host, port: db.port, user, password, database: 'postgres' });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function validUntil(role: string): Promise<string | undefined> {
  const rows = await query<{ v: Date | null }>(db.user, db.password, 'SELECT rolvaliduntil AS v FROM pg_roles WHERE rolname = $1', [role]); // prettier-ignore
  return rows[0]?.v?.toISOString();
}

async function logsIn(data: Record<string, string> | undefined): Promise<boolean> {
  try {
    const rows = await query<{ u: string }>(data?.DB_USERNAME ?? '', data?.DB_PASSWORD ?? '', 'SELECT current_user AS u'); // prettier-ignore
    return rows[0]?.u === data?.DB_USERNAME;
  } catch {
    return false;
  }
}

const statusOf = async () => ((await h.get('WorkloadSecret', 'short'))?.status ?? {}) as Status;
const synced = (s: Status) => s.conditions?.find((c) => c.type === 'Synced');

/** The Deployment `app` (opted in to restarts by the target Secret): generation, pod template annotations. */
async function app(): Promise<{ generation: number; annotations: Record<string, string> }> {
  const d = await apps.readNamespacedDeployment({ namespace: h.namespace, name: 'app' });
  return {
    generation: d.metadata?.generation ?? 0,
    annotations: d.spec?.template?.metadata?.annotations ?? {},
  };
}

/** Requests a reconcile and waits until status records it handled (every earlier one is written). */
async function settled(): Promise<Status> {
  const requested = await h.requestReconcile('WorkloadSecret', 'short');
  const value = requested.metadata.annotations?.['coffer.dev/reconcile-requested-at'];
  return waitFor(
    async () => {
      const s = await statusOf();
      return s.lastHandledReconcileAt === value ? s : undefined;
    },
    { timeoutMs: 30_000, message: 'the requested reconcile handled' },
  );
}

beforeAll(async () => {
  db = await startPostgres();
  h = await startOperatorHarness({ devserver: { leaseSweepMs: 200 } });
  apps = h.kubeConfig.makeApiClient(AppsV1Api);
  const labels = { app: 'app' };
  await apps.createNamespacedDeployment({
    namespace: h.namespace,
    body: {
      metadata: { name: 'app', annotations: { 'coffer.dev/reload-secrets': 'short-db' } },
      spec: {
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { containers: [{ name: 'app', image: 'registry.invalid/app:1', envFrom: [{ secretRef: { name: 'short-db' } }] }] }, // prettier-ignore
        },
      },
    },
  });
  await call('POST', '/api/v2/workspace', { projectName: 'Lease renew', slug: projectSlug });
  await call('POST', '/api/v1/dynamic-secrets', {
    ...scope,
    name: 'short-db',
    provider: {
      type: 'sql-database',
      inputs: sqlDatabaseInputs(db),
    },
    defaultTTL: '1m',
    maxTTL: '2m',
  });
  await h.create('WorkloadSecret', 'short', {
    connectionRef: { name: HARNESS_CONNECTION },
    sources: [{ projectSlug, environment: 'dev', dynamicSecret: { name: 'short-db', ttl: '1m', rotationOverlap: '20s' } }], // prettier-ignore
    target: { secret: { name: 'short-db' } },
    resyncInterval: '1h',
  });
  await h.waitForReady('WorkloadSecret', 'short', { timeoutMs: 60_000 });
}, 180_000);

afterAll(async () => {
  await h?.stop();
  db?.stop();
});

describe('WorkloadSecret lease lifetime', () => {
  let current: Held | undefined;

  it('renews the lease at about two thirds of its TTL', async () => {
    const first = (await statusOf()).leases?.[0] as Held;
    const data = (await h.readSecret('short-db')) ?? {};
    const role = data.DB_USERNAME ?? '';
    expect(await validUntil(role)).toBe(first.expireAt);
    const after = await waitFor(
      async () => {
        const s = await statusOf();
        const held = s.leases?.[0];
        return held?.leaseId === first.leaseId && held.expireAt !== first.expireAt ? s : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 500, message: 'the lease renewed' },
    );
    const renewed = after.leases?.[0] as Held;
    expect(after.leaseExpiry).toBe(renewed.expireAt);
    const issuedAt = Date.parse(first.expireAt) - 60_000;
    expect(Date.now() - issuedAt).toBeGreaterThan(35_000);
    expect(Date.parse(renewed.expireAt)).toBe(Date.parse(first.expireAt) + 60_000);
    expect(await validUntil(role)).toBe(renewed.expireAt);
    expect((await h.readSecret('short-db'))?.DB_PASSWORD).toBe(data.DB_PASSWORD);
    // The same content: no restart, none pending.
    expect(after.pendingRestart).toBeUndefined();
    expect(after.lastRestart).toBeUndefined();
    expect(await app()).toEqual({ generation: 1, annotations: {} });
    current = renewed;
  }, 120_000);

  it('issues a new lease before the maximum TTL, keeps the old one for the overlap, then revokes it', async () => {
    const old = await h.readSecret('short-db');
    const before = await app();
    const next = await waitFor(
      async () => {
        const s = await statusOf();
        const held = s.leases?.[0];
        return held && held.leaseId !== current?.leaseId ? s : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500, message: 'a new lease ahead of the maximum TTL' },
    );
    expect(Date.now()).toBeLessThan(Date.parse(current?.expireAt ?? ''));
    expect(next.retiredLeases?.map((l) => l.leaseId)).toEqual([current?.leaseId]);
    // The held lease's expiry, not the earlier one of the lease it replaced.
    expect(next.leaseExpiry).toBe(next.leases?.[0]?.expireAt);
    const fresh = await h.readSecret('short-db');
    expect(fresh?.DB_USERNAME).not.toBe(old?.DB_USERNAME);
    expect(await logsIn(fresh)).toBe(true);
    expect(await logsIn(old)).toBe(true);
    await waitFor(async () => !(await serviceLeases()).includes(current?.leaseId ?? ''), { timeoutMs: 60_000, message: 'the old lease revoked' }); // prettier-ignore
    expect(await validUntil(old?.DB_USERNAME ?? '')).toBeUndefined();
    // Restarted once, for the new content; the revocation (same content) restarted nothing.
    const restarted = await waitFor(async () => { const a = await app(); return a.annotations['coffer.dev/content-hash'] === next.contentHash ? a : undefined; }, { timeoutMs: 30_000, message: 'the opted-in Deployment restarted' }); // prettier-ignore
    const done = await settled();
    expect(done.pendingRestart).toBeUndefined();
    expect(done.lastRestart).toEqual({ time: restarted.annotations['coffer.dev/restarted-at'], workloads: ['Deployment/app'] }); // prettier-ignore
    expect(await app()).toEqual({ ...restarted, generation: before.generation + 1 });
    current = next.leases?.[0];
  }, 180_000);

  it('keeps the lease and the target while the service is unreachable, and says so', async () => {
    const before = await h.readSecret('short-db');
    h.devserver.faults.update({ dropRatio: 1 });
    try {
      const condition = await waitFor(
        async () => {
          const c = synced(await statusOf());
          return c?.status === 'False' && c.reason === 'LeaseNotRenewed' ? c : undefined;
        },
        { timeoutMs: 90_000, intervalMs: 500, message: 'Synced=False LeaseNotRenewed' },
      );
      expect(condition.message).toContain(current?.leaseId ?? '');
      expect(await h.readSecret('short-db')).toEqual(before);
      expect(await logsIn(before)).toBe(true);
      expect((await statusOf()).leases?.[0]?.leaseId).toBe(current?.leaseId);
    } finally {
      h.devserver.faults.update({ dropRatio: 0 });
    }
    await h.requestReconcile('WorkloadSecret', 'short');
    await waitFor(async () => synced(await statusOf())?.status === 'True', { timeoutMs: 60_000, message: 'Synced again' }); // prettier-ignore
    expect(await logsIn(await h.readSecret('short-db'))).toBe(true);
  }, 180_000);
});
