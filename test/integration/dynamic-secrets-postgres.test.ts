/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call -- the tests read fields of arbitrary JSON answers */
// Dynamic secrets of the devserver against a real PostgreSQL (test/support/postgres.ts), over HTTP:
// a lease's credentials are a real role that logs in until revoked or expired; renewal moves the
// role's VALID UNTIL; revocation (by request, by expiry, by deleting the dynamic secret) drops it;
// a username template with helpers names the role; a failing revocation is recorded on the lease
// and `isForced` deletes it anyway; TTL bounds,
// permissions, and provider types the devserver only stores. No credential appears in an error.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createIdentityWithToken,
  startTestServer,
  type TestServer,
} from '../../src/devserver/test-support.ts';
import {
  roleStatements,
  sqlDatabaseInputs,
  startPostgres,
  type PostgresServer,
} from '../support/postgres.ts';
import { waitFor } from '../support/wait-for.ts';

let db: PostgresServer;
let t: TestServer;
let orgId: string;
let projectId: string;
const projectSlug = 'dyn-pg';
const scope = { projectSlug, environmentSlug: 'dev', path: '/' };

function inputs(overrides: Record<string, unknown> = {}) {
  return sqlDatabaseInputs(db, overrides);
}

async function createDynamicSecret(name: string, extra: Record<string, unknown> = {}) {
  const res = await t.call('POST', '/api/v1/dynamic-secrets', {
    body: {
      ...scope,
      name,
      provider: { type: 'sql-database', inputs: inputs() },
      defaultTTL: '1h',
      ...extra,
    },
  });
  expect(res.status).toBe(200);
  return res.body.dynamicSecret as { id: string; name: string };
}

async function lease(name: string, ttl?: string) {
  const res = await t.call('POST', '/api/v1/dynamic-secrets/leases', {
    body: { ...scope, dynamicSecretName: name, ...(ttl ? { ttl } : {}) },
  });
  expect(res.status).toBe(200);
  return res.body as {
    lease: { id: string; expireAt: string; externalEntityId: string };
    data: { DB_USERNAME: string; DB_PASSWORD: string };
  };
}

/** Runs `sql` as the superuser. */
async function admin<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ host: db.host, port: db.port, user: db.user, password: db.password, database: 'postgres' }); // prettier-ignore
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** The role's VALID UNTIL, or undefined when the role does not exist. */
async function validUntil(role: string): Promise<Date | null | undefined> {
  const rows = await admin<{ rolvaliduntil: Date | null }>(
    'SELECT rolvaliduntil FROM pg_roles WHERE rolname = $1',
    [role],
  );
  return rows.length === 0 ? undefined : (rows[0]?.rolvaliduntil ?? null);
}

/** Logs in as the lease's role; the role name it got, or the error code when login fails. */
async function loginAs(data: { DB_USERNAME: string; DB_PASSWORD: string }): Promise<string> {
  const client = new pg.Client({ host: db.host, port: db.port, user: data.DB_USERNAME, password: data.DB_PASSWORD, database: 'postgres' }); // prettier-ignore
  try {
    await client.connect();
    const rows = (await client.query<{ who: string }>('SELECT current_user AS who')).rows;
    return rows[0]?.who ?? '';
  } catch (error) {
    return `failed:${(error as { code?: string }).code ?? 'unknown'}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

beforeAll(async () => {
  db = await startPostgres();
  t = await startTestServer({ leaseSweepMs: 50 });
  ({ orgId } = await t.bootstrap());
  const project = await t.call('POST', '/api/v2/workspace', {
    body: { projectName: 'Dyn', slug: projectSlug },
  });
  projectId = project.body.project.id;
});

afterAll(async () => {
  await t?.close();
  db?.stop();
});

describe('sql-database leases on PostgreSQL', () => {
  it('creates a role that logs in, renews its VALID UNTIL and drops it on revoke', async () => {
    const ds = await createDynamicSecret('pg-login', { maxTTL: '4h' });
    const { lease: created, data } = await lease('pg-login', '1h');
    expect(created.externalEntityId).toBe(data.DB_USERNAME);
    expect(data.DB_USERNAME).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(data.DB_PASSWORD).toHaveLength(48);
    expect(await loginAs(data)).toBe(data.DB_USERNAME);
    expect((await validUntil(data.DB_USERNAME))?.toISOString()).toBe(created.expireAt);

    const renewed = await t.call('POST', `/api/v1/dynamic-secrets/leases/${created.id}/renew`, {
      body: { ...scope, ttl: '30m' },
    });
    expect(renewed.status).toBe(200);
    const expected = new Date(Date.parse(created.expireAt) + 30 * 60_000).toISOString();
    expect(renewed.body.lease.expireAt).toBe(expected);
    expect((await validUntil(data.DB_USERNAME))?.toISOString()).toBe(expected);

    const got = await t.call('GET', `/api/v1/dynamic-secrets/leases/${created.id}?projectSlug=${projectSlug}&environmentSlug=dev`); // prettier-ignore
    expect(got.body.lease).toMatchObject({
      id: created.id,
      expireAt: expected,
      dynamicSecret: { id: ds.id },
    });
    expect(JSON.stringify(got.body)).not.toContain(data.DB_PASSWORD);

    const revoked = await t.call('DELETE', `/api/v1/dynamic-secrets/leases/${created.id}`, { body: scope });
    expect(revoked.status).toBe(200);
    expect(revoked.body.lease.id).toBe(created.id);
    expect(await validUntil(data.DB_USERNAME)).toBeUndefined();
    expect(await loginAs(data)).toMatch(/^failed:/);
    const leases = await t.call('GET', `/api/v1/dynamic-secrets/pg-login/leases?projectSlug=${projectSlug}&environmentSlug=dev`); // prettier-ignore
    expect(leases.body.leases).toEqual([]);

    // A username template with helpers (the bootstrap identity is "Instance Admin Identity").
    await createDynamicSecret('pg-templated', {
      usernameTemplate: '{{lowercase (replace (truncate identity.name 12) " " "-")}}_{{random 6}}',
    });
    const templated = await lease('pg-templated');
    expect(templated.data.DB_USERNAME).toMatch(/^instance-adm_[A-Za-z0-9]{6}$/);
    expect(await loginAs(templated.data)).toBe(templated.data.DB_USERNAME);
    const dropped = await t.call('DELETE', `/api/v1/dynamic-secrets/leases/${templated.lease.id}`, { body: scope }); // prettier-ignore
    expect(dropped.status).toBe(200);
    expect(await validUntil(templated.data.DB_USERNAME)).toBeUndefined();
  });

  it('revokes a lease once it expires (on the server clock)', async () => {
    await createDynamicSecret('pg-expiry');
    const { lease: created, data } = await lease('pg-expiry', '2m');
    expect(await loginAs(data)).toBe(data.DB_USERNAME);
    t.clock.now = Date.parse(created.expireAt) + 1000;
    await waitFor(async () => (await validUntil(data.DB_USERNAME)) === undefined, {
      message: 'role dropped',
    });
    const leases = await t.call('GET', `/api/v1/dynamic-secrets/pg-expiry/leases?projectSlug=${projectSlug}&environmentSlug=dev`); // prettier-ignore
    expect(leases.body.leases).toEqual([]);
  });

  it('records a failed revocation on the lease, and isForced deletes it anyway', async () => {
    await createDynamicSecret('pg-broken');
    const { lease: created, data } = await lease('pg-broken');
    const patched = await t.call('PATCH', '/api/v1/dynamic-secrets/pg-broken', {
      body: {
        ...scope,
        data: { inputs: { revocationStatement: 'DROP ROLE "{{username}}"; SELECT no_such_fn()' } },
      },
    });
    expect(patched.status).toBe(200);
    const failed = await t.call('DELETE', `/api/v1/dynamic-secrets/leases/${created.id}`, { body: scope });
    expect(failed.status).toBe(200);
    expect(failed.body.lease.status).toBe('failed-deletion');
    expect(failed.body.lease.statusDetails).toContain('Failed to revoke lease from provider');
    expect(failed.body.lease.statusDetails).not.toContain(data.DB_USERNAME);
    // The transaction rolled back: the role is still there.
    expect(await loginAs(data)).toBe(data.DB_USERNAME);
    const forced = await t.call('DELETE', `/api/v1/dynamic-secrets/leases/${created.id}`, {
      body: { ...scope, isForced: true },
    });
    expect(forced.status).toBe(200);
    const gone = await t.call('GET', `/api/v1/dynamic-secrets/leases/${created.id}?projectSlug=${projectSlug}&environmentSlug=dev`); // prettier-ignore
    expect(gone.status).toBe(404);
    await admin(`DROP ROLE "${data.DB_USERNAME}"`);
  });

  it('deleting a dynamic secret with leases revokes them, then deletes it', async () => {
    await createDynamicSecret('pg-delete');
    const { data } = await lease('pg-delete');
    const deleted = await t.call('DELETE', '/api/v1/dynamic-secrets/pg-delete', { body: scope });
    expect(deleted.status).toBe(200);
    expect(deleted.body.dynamicSecret.status).toBe('deleting');
    await waitFor(async () => (await validUntil(data.DB_USERNAME)) === undefined, {
      message: 'role dropped',
    });
    await waitFor(
      async () => (await t.call('GET', `/api/v1/dynamic-secrets/pg-delete?projectSlug=${projectSlug}&environmentSlug=dev`)).status === 404, // prettier-ignore
      { message: 'dynamic secret deleted' },
    );
  });

  it('applies the TTL bounds', async () => {
    const tooShort = await t.call('POST', '/api/v1/dynamic-secrets', {
      body: {
        ...scope,
        name: 'pg-ttl',
        provider: { type: 'sql-database', inputs: inputs() },
        defaultTTL: '30s',
      },
    });
    expect(tooShort.status).toBe(422);
    expect(JSON.stringify(tooShort.body.message)).toContain('TTL must be a greater than 1min');
    expect(JSON.stringify(tooShort.body)).not.toContain(db.password);
    const tooLong = await t.call('POST', '/api/v1/dynamic-secrets', {
      body: { ...scope, name: 'pg-ttl', provider: { type: 'sql-database', inputs: inputs() }, defaultTTL: '1h', maxTTL: '11y' }, // prettier-ignore
    });
    expect(JSON.stringify(tooLong.body.message)).toContain('TTL must be less than 10 years');
    await createDynamicSecret('pg-ttl', { maxTTL: '2h' });
    const overMax = await t.call('POST', '/api/v1/dynamic-secrets/leases', {
      body: { ...scope, dynamicSecretName: 'pg-ttl', ttl: '3h' },
    });
    expect([overMax.status, overMax.body.message]).toEqual([400, 'TTL cannot be larger than max TTL']);
    const { lease: created } = await lease('pg-ttl', '90m');
    const renew = await t.call('POST', `/api/v1/dynamic-secrets/leases/${created.id}/renew`, {
      body: { ...scope, ttl: '1h' },
    });
    expect(renew.status).toBe(400);
    expect(renew.body.message).toContain('would exceed the maximum allowed lease duration');
    expect((await t.call('DELETE', `/api/v1/dynamic-secrets/leases/${created.id}`, { body: scope })).status).toBe(200); // prettier-ignore
  });

  it('refuses a bad admin password with a message that names no credential', async () => {
    const res = await t.call('POST', '/api/v1/dynamic-secrets', {
      body: { ...scope, name: 'pg-badpass', provider: { type: 'sql-database', inputs: inputs({ password: 'wrong-password-x' }) }, defaultTTL: '1h' }, // prettier-ignore
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^Failed to connect with provider: /);
    expect(res.body.message).not.toContain('wrong-password-x');
  });
});

describe('dynamic-secret permissions and stored-only providers', () => {
  it('lets a viewer list but not lease or create; refuses non-members', async () => {
    await createDynamicSecret('pg-perm');
    const viewer = await createIdentityWithToken(t, orgId);
    await t.call('POST', `/api/v1/projects/${projectId}/memberships/identities/${viewer.identityId}`, {
      body: { role: 'viewer' },
    });
    const list = await t.call('GET', `/api/v1/dynamic-secrets?projectSlug=${projectSlug}&environmentSlug=dev`, { token: viewer.token }); // prettier-ignore
    expect(list.status).toBe(200);
    expect(list.body.dynamicSecrets.map((d: { name: string }) => d.name)).toContain('pg-perm');
    expect(list.body.dynamicSecrets[0].inputs).toBeUndefined();
    const leased = await t.call('POST', '/api/v1/dynamic-secrets/leases', {
      token: viewer.token,
      body: { ...scope, dynamicSecretName: 'pg-perm' },
    });
    expect([leased.status, leased.body.message]).toEqual([
      403,
      'You are not allowed to lease on dynamic-secrets',
    ]);
    const created = await t.call('POST', '/api/v1/dynamic-secrets', {
      token: viewer.token,
      body: {
        ...scope,
        name: 'pg-viewer',
        provider: { type: 'sql-database', inputs: inputs() },
        defaultTTL: '1h',
      },
    });
    expect(created.status).toBe(403);
    const outsider = await createIdentityWithToken(t, orgId, { role: 'member' });
    const refused = await t.call('GET', `/api/v1/dynamic-secrets?projectSlug=${projectSlug}&environmentSlug=dev`, { token: outsider.token }); // prettier-ignore
    expect([refused.status, refused.body.error]).toEqual([403, 'ProjectMembershipNotFound']);
  });

  it('applies the environment condition of a custom role to leases and the list', async () => {
    await createDynamicSecret('pg-cond');
    await t.call('POST', `/api/v2/workspace/${projectId}/roles`, {
      body: {
        slug: 'prod-leaser',
        name: 'Prod leaser',
        permissions: [
          {
            subject: 'dynamic-secrets',
            action: ['lease', 'read-root-credential'],
            conditions: { environment: 'prod' },
          },
        ],
      },
    });
    const who = await createIdentityWithToken(t, orgId);
    await t.call('POST', `/api/v1/projects/${projectId}/memberships/identities/${who.identityId}`, {
      body: { role: 'prod-leaser' },
    });
    const leased = await t.call('POST', '/api/v1/dynamic-secrets/leases', {
      token: who.token,
      body: { ...scope, dynamicSecretName: 'pg-cond' },
    });
    expect(leased.status).toBe(403);
    const list = await t.call('GET', `/api/v1/dynamic-secrets?projectSlug=${projectSlug}&environmentSlug=dev`, { token: who.token }); // prettier-ignore
    expect([list.status, list.body.dynamicSecrets]).toEqual([200, []]);
  });

  it('stores other provider types with validated inputs and refuses to lease them', async () => {
    const redis = { host: 'redis.example', port: 6379, username: 'default', creationStatement: 'ACL SETUSER {{username}} on', revocationStatement: 'ACL DELUSER {{username}}' }; // prettier-ignore
    const invalid = await t.call('POST', '/api/v1/dynamic-secrets', {
      body: {
        ...scope,
        name: 'redis-bad',
        provider: { type: 'redis', inputs: { host: 'x' } },
        defaultTTL: '1h',
      },
    });
    expect(invalid.status).toBe(422);
    const stored = await t.call('POST', '/api/v1/dynamic-secrets', {
      body: { ...scope, name: 'redis-one', provider: { type: 'redis', inputs: redis }, defaultTTL: '1h' },
    });
    expect(stored.status).toBe(200);
    expect(stored.body.dynamicSecret).toMatchObject({ name: 'redis-one', type: 'redis', inputs: redis });
    const leased = await t.call('POST', '/api/v1/dynamic-secrets/leases', {
      body: { ...scope, dynamicSecretName: 'redis-one' },
    });
    expect([leased.status, leased.body.message]).toEqual([
      400,
      'Dynamic secret provider "redis" is not available in the devserver',
    ]);
    const unknown = await t.call('POST', '/api/v1/dynamic-secrets', {
      body: { ...scope, name: 'nope', provider: { type: 'nope', inputs: {} }, defaultTTL: '1h' },
    });
    expect(unknown.status).toBe(422);
  });

  it('answers the service’s 404s and duplicate 400', async () => {
    await createDynamicSecret('pg-dup');
    const dup = await t.call('POST', '/api/v1/dynamic-secrets', {
      body: {
        ...scope,
        name: 'pg-dup',
        provider: { type: 'sql-database', inputs: inputs() },
        defaultTTL: '1h',
      },
    });
    expect([dup.status, dup.body.message]).toEqual([
      400,
      'Provided dynamic secret already exists under the folder',
    ]);
    const noProject = await t.call('GET', '/api/v1/dynamic-secrets?projectSlug=ghost&environmentSlug=dev');
    expect([noProject.status, noProject.body.message]).toEqual([404, "Project with slug 'ghost' not found"]);
    const noFolder = await t.call('GET', `/api/v1/dynamic-secrets?projectSlug=${projectSlug}&environmentSlug=dev&path=/nope`); // prettier-ignore
    expect([noFolder.status, noFolder.body.message]).toEqual([404, "Folder with path '/nope' in environment 'dev' not found"]); // prettier-ignore
    const noLease = await t.call('POST', '/api/v1/dynamic-secrets/leases', {
      body: { ...scope, dynamicSecretName: 'ghost' },
    });
    expect(noLease.status).toBe(404);
    const got = await t.call(
      'GET',
      `/api/v1/dynamic-secrets/pg-dup?projectSlug=${projectSlug}&environmentSlug=dev`,
    );
    expect(got.body.dynamicSecret).toMatchObject({ name: 'pg-dup', type: 'sql-database', defaultTTL: '1h', maxTTL: null }); // prettier-ignore
    expect(got.body.dynamicSecret.inputs.creationStatement).toBe(roleStatements.creationStatement);
  });
});
