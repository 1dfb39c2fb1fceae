// What the sandbox tests check of the DynamicSecret sample's lease in demo-app-env: with the
// PostgreSQL provider, the delivered user and password log in to the sandbox's PostgreSQL (and a
// wrong password does not); with the Kubernetes provider, the delivered token authenticates as the
// ServiceAccount demo-app in a TokenReview. No credential is printed: assertions compare names
// and outcomes, never values.
import { AuthenticationV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import pg from 'pg';
import { expect } from 'vitest';
import type { PostgresServer } from '../../src/sandbox/postgres.ts';
import type { Sandbox } from '../../src/sandbox/sandbox.ts';
import { waitFor } from './wait-for.ts';

/** The keys a lease of the DynamicSecret sample delivers, by provider. */
export const leaseKeys = { sqlDatabase: ['DB_PASSWORD', 'DB_USERNAME'], kubernetes: ['TOKEN'] } as const;

/** The keys the sandbox's DynamicSecret sample delivers into demo-app-env (none without one). */
export function deliveredLeaseKeys(sandbox: Sandbox): readonly string[] {
  const provider = sandbox.dynamicSecrets?.provider;
  return provider ? leaseKeys[provider] : [];
}

/** The decoded data of the sandbox namespace's Secret `name` (never print it). */
export async function secretData(sandbox: Sandbox, name: string): Promise<Record<string, string>> {
  const core = sandbox.cluster.kubeConfig().makeApiClient(CoreV1Api);
  const secret = await core.readNamespacedSecret({ namespace: sandbox.namespace, name });
  return Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
  );
}

/** Logs in to `db` as `user`; the user name PostgreSQL reports. */
async function loginAs(db: PostgresServer, user: string, password: string): Promise<string> {
  const { host, port, database } = db;
  const client = new pg.Client({ host, port, database, user, password });
  await client.connect();
  try {
    return (await client.query<{ who: string }>('SELECT current_user AS who')).rows[0]?.who ?? '';
  } finally {
    await client.end();
  }
}

async function expectDatabaseLogin(db: PostgresServer, data: Record<string, string>): Promise<void> {
  const user = data['DB_USERNAME'] ?? '';
  const password = data['DB_PASSWORD'] ?? '';
  expect(user).not.toBe(db.user);
  expect(await loginAs(db, user, password)).toBe(user);
  // A wrong password is refused: the login above proves the delivered one.
  await expect(loginAs(db, user, `${password}-wrong`)).rejects.toThrow(/password authentication failed/);
}

async function expectTokenLogin(sandbox: Sandbox, data: Record<string, string>): Promise<void> {
  const authn = sandbox.cluster.kubeConfig().makeApiClient(AuthenticationV1Api);
  const review = await authn.createTokenReview({ body: { spec: { token: data['TOKEN'] ?? '' } } });
  expect(review.status?.authenticated).toBe(true);
  expect(review.status?.user?.username).toBe(`system:serviceaccount:${sandbox.namespace}:demo-app`);
}

/**
 * Asserts the sample DynamicSecret (of the sandbox's provider) is Ready, demo-app-env holds one
 * lease of it, and the lease's credentials work (see the module comment).
 */
export async function expectLeaseDelivered(sandbox: Sandbox): Promise<void> {
  const backend = sandbox.dynamicSecrets;
  if (!backend) throw new Error('the sandbox applied no DynamicSecret sample');
  const custom = sandbox.cluster.kubeConfig().makeApiClient(CustomObjectsApi);
  const at = { group: 'coffer.dev', version: 'v1alpha1', namespace: sandbox.namespace };
  const name = backend.provider === 'sqlDatabase' ? 'demo-db' : 'demo-app-token';
  const definition = (await custom.getNamespacedCustomObject({ ...at, plural: 'dynamicsecrets', name })) as {
    status?: { provider?: string; conditions?: { type: string; status: string }[] };
  };
  expect(definition.status?.provider).toBe(
    backend.provider === 'sqlDatabase' ? 'sql-database' : 'kubernetes',
  );
  expect(definition.status?.conditions).toContainEqual(
    expect.objectContaining({ type: 'Ready', status: 'True' }),
  );
  const data = await waitFor(
    async () => {
      const found = await secretData(sandbox, 'demo-app-env');
      return leaseKeys[backend.provider].every((key) => found[key]) ? found : undefined;
    },
    { timeoutMs: 60_000, message: 'the lease in demo-app-env' },
  );
  const delivery = (await custom.getNamespacedCustomObject({
    ...at,
    plural: 'workloadsecrets',
    name: 'demo-app-env',
  })) as {
    status?: { leases?: { name: string }[] };
  };
  // One lease, recorded in status by name and id, never with its credentials.
  expect(delivery.status?.leases?.map((l) => l.name)).toEqual(['demo-app']);
  for (const key of leaseKeys[backend.provider])
    expect(JSON.stringify(delivery).includes(data[key] ?? '-'), `${key} in the WorkloadSecret`).toBe(false);
  if (backend.provider === 'sqlDatabase') await expectDatabaseLogin(backend.postgres, data);
  else await expectTokenLogin(sandbox, data);
}
