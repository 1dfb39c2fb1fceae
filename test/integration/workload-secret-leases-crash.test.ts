// Crash-safe lease issuance: `coffer operator` as a separate process, SIGKILLed again and again
// while WorkloadSecrets with a `dynamicSecret` source issue leases (first deliveries, then new
// leases forced by deleting every target). After a final restart each WorkloadSecret is Ready
// with exactly the lease its status records: 0 leaked leases in the service and 0 leaked roles in
// PostgreSQL (a real database behind the devserver), and each target's credentials log in.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectedControlPlane } from '../support/kube.ts';
import { HARNESS_TOKEN_SECRET, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';
import { sqlDatabaseInputs, startPostgres, type PostgresServer } from '../support/postgres.ts';
import {
  newProcessDir,
  removeProcessDir,
  startOperatorProcess,
  type OperatorProcess,
} from '../support/processes.ts';
import { waitFor } from '../support/wait-for.ts';

const projectSlug = 'lease-crash';
const scope = { projectSlug, environmentSlug: 'dev', path: '/' };
const names = Array.from({ length: 8 }, (_, i) => `crash-${i}`);
const kills = 6;
const ROLE = '^[A-Za-z0-9]{32}$';

let db: PostgresServer;
let h: OperatorHarness;
let dir: string;
let operator: OperatorProcess | undefined;

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
  const body = await call('GET', `/api/v1/dynamic-secrets/app-db/leases?${q}`);
  return (body.leases as { id: string }[]).map((l) => l.id).sort();
}

async function withDb<T>(user: string, password: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ host: db.host, port: db.port, user, password, database: 'postgres' });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function roles(): Promise<string[]> {
  return withDb(db.user, db.password, async (c) =>
    (await c.query<{ rolname: string }>('SELECT rolname FROM pg_roles WHERE rolname ~ $1', [ROLE])).rows
      .map((r) => r.rolname)
      .sort(),
  );
}

/** The lease ids every WorkloadSecret's status records (held and retired). */
async function recordedLeases(): Promise<string[]> {
  const ids: string[] = [];
  for (const name of names) {
    const status = (await h.get('WorkloadSecret', name))?.status as
      { leases?: { leaseId: string }[]; retiredLeases?: { leaseId: string }[] } | undefined;
    for (const l of [...(status?.leases ?? []), ...(status?.retiredLeases ?? [])]) ids.push(l.leaseId);
  }
  return ids.sort();
}

function readOperatorLog(name: string): string {
  const file = join(dir, `${name}.log`);
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

function startOperator(run: number): Promise<OperatorProcess> {
  return startOperatorProcess({
    kubeconfigPath: injectedControlPlane().kubeconfigPath,
    dir,
    name: `operator-${run}`,
    namespaces: [h.namespace],
  });
}

async function deleteTargets(): Promise<void> {
  for (const name of names)
    await h.core.deleteNamespacedSecret({ namespace: h.namespace, name }).catch(() => undefined);
}

beforeAll(async () => {
  db = await startPostgres();
  h = await startOperatorHarness({
    connection: false,
    operator: { kinds: [], directKinds: [] },
    devserver: { leaseSweepMs: 200 },
  });
  dir = newProcessDir('coffer-lease-crash-');
  await h.createSecret(HARNESS_TOKEN_SECRET, { token: h.admin.token });
  await h.create('Connection', 'coffer', {
    url: h.url,
    auth: { token: { secretRef: { name: HARNESS_TOKEN_SECRET, key: 'token' } } },
  });
  await call('POST', '/api/v2/workspace', { projectName: 'Lease crash', slug: projectSlug });
  await call('POST', '/api/v1/dynamic-secrets', {
    ...scope,
    name: 'app-db',
    provider: {
      type: 'sql-database',
      inputs: sqlDatabaseInputs(db),
    },
    defaultTTL: '1h',
  });
}, 180_000);

afterAll(async () => {
  await operator?.kill();
  await h?.stop();
  if (dir) removeProcessDir(dir);
  db?.stop();
});

describe('crash-safe lease issuance', () => {
  it(`leaks no lease and no role after ${kills} SIGKILLs during issuance and rotation`, async () => {
    operator = await startOperator(0);
    await Promise.all(
      names.map((name) =>
        h.create('WorkloadSecret', name, {
          connectionRef: { name: 'coffer' },
          sources: [{ projectSlug, environment: 'dev', dynamicSecret: { name: 'app-db', rotationOverlap: '0s' } }], // prettier-ignore
          target: { secret: { name } },
          resyncInterval: '1h',
        }),
      ),
    );
    for (let run = 1; run <= kills; run++) {
      // Kill once this replica issued its first lease (plus a random moment): the work in flight.
      await operator.waitForLog('controllers started', 60_000);
      const since = h.devserver.stats.writes.total;
      await waitFor(() => h.devserver.stats.writes.total > since, { timeoutMs: 20_000, intervalMs: 5 }).catch(() => undefined); // prettier-ignore
      await sleep(Math.floor(Math.random() * 150));
      await operator.kill();
      // From the second round on, new leases are forced: every target is gone.
      if (run > 1) await deleteTargets();
      operator = await startOperator(run);
    }
    for (const name of names) await h.waitForReady('WorkloadSecret', name, { timeoutMs: 120_000 });
    const logs = Array.from({ length: kills + 1 }, (_, i) => readOperatorLog(`operator-${i}`)).join('');
    const recovered = logs.split('revoked leases issued but never recorded').length - 1;
    console.log(
      `[lease-crash] ${kills} SIGKILLs; recoveries of leases issued but never recorded: ${recovered}`,
    );
    // Every replaced lease revoked (overlap 0s), nothing but the recorded ones left.
    await waitFor(
      async () => {
        const [service, recorded] = [await serviceLeases(), await recordedLeases()];
        return service.length === names.length && JSON.stringify(service) === JSON.stringify(recorded);
      },
      { timeoutMs: 60_000, message: 'exactly the recorded lease of each WorkloadSecret in the service' },
    );
    const users: string[] = [];
    for (const name of names) {
      const data = await h.readSecret(name);
      const user = data?.DB_USERNAME ?? '';
      users.push(user);
      const who = await withDb(user, data?.DB_PASSWORD ?? '', async (c) => (await c.query<{ u: string }>('SELECT current_user AS u')).rows[0]?.u); // prettier-ignore
      expect(who).toBe(user);
    }
    await waitFor(async () => (await roles()).length === names.length, { timeoutMs: 30_000, message: 'no leaked role' }); // prettier-ignore
    expect(await roles()).toEqual(users.sort());
    expect(await serviceLeases()).toEqual(await recordedLeases());
  }, 600_000);
});
