/**
 * The workload of `npm run bench:leases`: a private PostgreSQL, one project with a `sql-database`
 * dynamic secret on it, WorkloadSecrets `w-<i>` each holding one lease of it (target Secret
 * `w-<i>`), and what is read back: the lease each WorkloadSecret holds, the leases the service
 * keeps, the login roles PostgreSQL has, and the service calls by kind of lease call.
 */
import pg from 'pg';
import { group, version } from '../../src/api/v1alpha1/index.ts';
import type { Lease, LeaseScope } from '../../src/client/index.ts';
import { sqlDatabaseInputs, type PostgresServer } from '../../test/support/postgres.ts';
import { createObject, forEachLimited, type At, type Service } from './operator-setup.ts';

/** The dynamic secret the WorkloadSecrets lease from. */
export interface LeaseTarget {
  readonly name: string;
  readonly scope: LeaseScope;
}

/** How each WorkloadSecret asks for its lease. */
export interface LeaseOptions {
  readonly ttl: string;
  readonly rotationOverlap: string;
}

/**
 * Creates a project and in its folder `/` of environment dev the dynamic secret `bench-db`
 * (PostgreSQL `db`, the superuser as admin, roles created with `VALID UNTIL` the lease's expiry).
 */
export async function createDynamicSecret(
  service: Service,
  db: PostgresServer,
  ttls: { defaultTTL: string; maxTTL: string },
): Promise<LeaseTarget> {
  const slug = `leases-${Date.now().toString(36)}`;
  await service.client.projects.create({ projectName: 'Bench leases', slug });
  const scope = { projectSlug: slug, environmentSlug: 'dev', path: '/' };
  const name = 'bench-db';
  await service.client.dynamicSecrets.create({
    ...scope,
    name,
    provider: { type: 'sql-database', inputs: sqlDatabaseInputs(db) },
    ...ttls,
  });
  return { name, scope };
}

/** Sets the dynamic secret's maximum TTL (e.g. `300s`). */
export async function setMaxTtl(service: Service, target: LeaseTarget, maxTTL: string): Promise<void> {
  await service.client.dynamicSecrets.update(target.name, { ...target.scope, data: { maxTTL } });
}

/** The spec of WorkloadSecret `w-<i>`: one `dynamicSecret` source, target Secret `w-<i>`. */
export function leaseWorkloadSecretSpec(
  target: LeaseTarget,
  i: number,
  options: LeaseOptions,
): Record<string, unknown> {
  const { projectSlug, environmentSlug, path } = target.scope;
  return {
    connectionRef: { name: 'coffer' },
    sources: [
      {
        projectSlug,
        environment: environmentSlug,
        secretPath: path,
        dynamicSecret: { name: target.name, ttl: options.ttl, rotationOverlap: options.rotationOverlap },
      },
    ],
    target: { secret: { name: `w-${i}` } },
    resyncInterval: '1h',
  };
}

/** Creates WorkloadSecrets `w-0..w-<count-1>` (`leaseWorkloadSecretSpec`). */
export function createLeaseWorkloadSecrets(
  at: At,
  target: LeaseTarget,
  count: number,
  options: LeaseOptions & { concurrency: number },
): Promise<void> {
  return forEachLimited(count, options.concurrency, (i) =>
    createObject(at, 'WorkloadSecret', `w-${i}`, leaseWorkloadSecretSpec(target, i, options)),
  );
}

interface LeaseStatus {
  metadata: { name: string };
  status?: { leases?: { leaseId: string }[]; retiredLeases?: { leaseId: string }[] };
}

/** The WorkloadSecrets of `namespace` as listed now, with the leases their status records. */
async function listWorkloadSecrets({ env, namespace }: At): Promise<LeaseStatus[]> {
  const plural = 'workloadsecrets';
  const list: unknown = await env.custom.listNamespacedCustomObject({ group, version, plural, namespace });
  return (list as { items: LeaseStatus[] }).items;
}

/** Held lease id by WorkloadSecret name, and every lease id its status records (held or retired). */
export async function recordedLeases(at: At): Promise<{ held: Map<string, string>; all: Set<string> }> {
  const held = new Map<string, string>();
  const all = new Set<string>();
  for (const item of await listWorkloadSecrets(at)) {
    const leases = item.status?.leases ?? [];
    const first = leases[0];
    if (first) held.set(item.metadata.name, first.leaseId);
    for (const lease of [...leases, ...(item.status?.retiredLeases ?? [])]) all.add(lease.leaseId);
  }
  return { held, all };
}

/** The number of WorkloadSecrets left in the namespace. */
export async function workloadSecretCount(at: At): Promise<number> {
  return (await listWorkloadSecrets(at)).length;
}

/** The leases the service keeps for the dynamic secret. */
export function serviceLeases(service: Service, target: LeaseTarget): Promise<Lease[]> {
  return service.client.dynamicSecretLeases.list(target.name, target.scope);
}

/** The login roles of `db` other than its superuser: the roles leases created and not yet dropped. */
export async function leaseRoles(db: PostgresServer): Promise<string[]> {
  const client = new pg.Client({
    host: db.host,
    port: db.port,
    user: db.user,
    password: db.password,
    database: db.database,
  });
  await client.connect();
  try {
    const sql = 'SELECT rolname FROM pg_roles WHERE rolcanlogin AND rolname <> current_user';
    return (await client.query<{ rolname: string }>(sql)).rows.map((r) => r.rolname);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * "leases in the service 100 (recorded by no WorkloadSecret: 0); login roles in PostgreSQL 100
 * (of no lease: 0)": what the service and the database hold beside what the WorkloadSecrets
 * record. Lease ids recorded in status (`recorded`) and roles of live leases are not leaked.
 */
export async function leakText(
  service: Service,
  target: LeaseTarget,
  db: PostgresServer,
  recorded: ReadonlySet<string>,
): Promise<{ text: string; leases: number; roles: number; leaked: number }> {
  const leases = await serviceLeases(service, target);
  const roles = await leaseRoles(db);
  const unrecorded = leases.filter((l) => !recorded.has(l.id)).length;
  const entities = new Set(leases.map((l) => l.externalEntityId));
  const orphanRoles = roles.filter((r) => !entities.has(r)).length;
  return {
    text: `leases in the service ${leases.length} (recorded by no WorkloadSecret: ${unrecorded}); login roles in PostgreSQL ${roles.length} (of no lease: ${orphanRoles})`,
    leases: leases.length,
    roles: roles.length,
    leaked: unrecorded + orphanRoles,
  };
}

const leaseRoutes: Record<string, string> = {
  'POST /api/v1/dynamic-secrets/leases/:leaseId/renew': 'renew',
  'POST /api/v1/dynamic-secrets/leases': 'create',
  'DELETE /api/v1/dynamic-secrets/leases/:leaseId': 'revoke',
};

/** Service calls grouped as renew / create / revoke / other (the other routes named). */
export function leaseCalls(byRoute: Readonly<Record<string, number>>): {
  renew: number;
  create: number;
  revoke: number;
  other: number;
  text: string;
} {
  const counts = { renew: 0, create: 0, revoke: 0, other: 0 };
  const others: string[] = [];
  for (const [route, count] of Object.entries(byRoute)) {
    const kind = leaseRoutes[route];
    if (kind === 'renew' || kind === 'create' || kind === 'revoke') counts[kind] += count;
    else {
      counts.other += count;
      others.push(`${route} ${count}`);
    }
  }
  const otherText = others.length > 0 ? ` (${others.join(', ')})` : '';
  return {
    ...counts,
    text: `renew ${counts.renew}, create ${counts.create}, revoke ${counts.revoke}, other ${counts.other}${otherText}`,
  };
}
