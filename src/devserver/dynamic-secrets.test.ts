/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call -- the tests read fields of arbitrary JSON answers */
// Dynamic secrets of a provider type the devserver only stores, over HTTP: create, get, update
// (rename, TTLs, merged inputs), the TTL and template rules (username templates, SQL statements),
// delete, and persistence across a restart with a data file. Leases on real providers: test/integration/dynamic-secrets-*.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './test-support.ts';

const scope = { projectSlug: 'dyn-unit', environmentSlug: 'dev', path: '/' };
const query = `projectSlug=${scope.projectSlug}&environmentSlug=dev`;
const gcp = { type: 'gcp-iam', inputs: { serviceAccountEmail: 'a@example.iam.gserviceaccount.com' } };

let dir: string;
let t: TestServer;
let token: string;

async function start(): Promise<void> {
  t = await startTestServer({ dataFile: join(dir, 'state.json'), persistDebounceMs: 10 });
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'coffer-dyn-'));
  await start();
  ({ token } = await t.bootstrap());
  await t.call('POST', '/api/v2/workspace', { body: { projectName: 'Dyn', slug: scope.projectSlug } });
});

afterEach(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('stored dynamic secrets', () => {
  it('creates, updates, reads and deletes', async () => {
    const created = await t.call('POST', '/api/v1/dynamic-secrets', {
      body: { ...scope, name: 'gcp-one', provider: gcp, defaultTTL: '1h', maxTTL: '2h', metadata: [{ key: 'team', value: 'a' }] }, // prettier-ignore
    });
    expect(created.status).toBe(200);
    expect(created.body.dynamicSecret).toMatchObject({ name: 'gcp-one', type: 'gcp-iam', defaultTTL: '1h', maxTTL: '2h', status: null, metadata: [{ key: 'team', value: 'a' }] }); // prettier-ignore
    const updated = await t.call('PATCH', '/api/v1/dynamic-secrets/GCP-ONE', {
      body: { ...scope, data: { newName: 'gcp-two', maxTTL: null, inputs: { extra: 1 } } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.dynamicSecret).toMatchObject({ name: 'gcp-two', maxTTL: null, defaultTTL: '1h' });
    expect(updated.body.dynamicSecret.inputs).toEqual({ ...gcp.inputs, extra: 1 });
    const got = await t.call('GET', `/api/v1/dynamic-secrets/gcp-two?${query}`);
    expect(got.body.dynamicSecret.inputs.serviceAccountEmail).toBe(gcp.inputs.serviceAccountEmail);
    const oldName = await t.call('GET', `/api/v1/dynamic-secrets/gcp-one?${query}`);
    expect([oldName.status, oldName.body.message]).toEqual([404, "Dynamic secret with name 'gcp-one in folder '/' not found"]); // prettier-ignore
    const deleted = await t.call('DELETE', '/api/v1/dynamic-secrets/gcp-two', { body: scope });
    expect(deleted.status).toBe(200);
    expect(deleted.body.dynamicSecret.inputs).toBeUndefined();
    expect((await t.call('GET', `/api/v1/dynamic-secrets?${query}`)).body.dynamicSecrets).toEqual([]);
  });

  it('applies the TTL, name and username-template rules', async () => {
    const create = (extra: Record<string, unknown>) =>
      t.call('POST', '/api/v1/dynamic-secrets', { body: { ...scope, name: 'gcp-x', provider: gcp, defaultTTL: '1h', ...extra } }); // prettier-ignore
    expect((await create({ defaultTTL: '59s' })).status).toBe(422);
    expect((await create({ maxTTL: '3653d' })).status).toBe(422);
    const garbage = await create({ defaultTTL: 'soon' });
    expect([garbage.status, garbage.body.message]).toEqual([400, 'Invalid date format string: soon']);
    expect((await create({ name: 'Not_A_Slug' })).status).toBe(422);
    expect((await create({ usernameTemplate: '{{password}}' })).status).toBe(422);
    expect((await create({ usernameTemplate: '{{lookup identity "name"}}' })).status).toBe(422);
    expect((await create({ usernameTemplate: '{{random-6}}' })).status).toBe(422);
    expect((await create({ usernameTemplate: '{{identity.name' })).status).toBe(422);
    expect((await create({ usernameTemplate: '{{identity.name}}-{{randomUsername}}' })).status).toBe(200);
    const helpers =
      '{{truncate identity.name 8}}_{{random 6}}{{replace (uppercase dynamicSecret.name) "[.]" "_"}}';
    expect((await create({ name: 'gcp-y', usernameTemplate: helpers })).status).toBe(200);
  });

  it("refuses SQL statements with blocks, comments, partials or other variables with the service's message", async () => {
    const sql = {
      client: 'postgres',
      host: '127.0.0.1',
      port: 1,
      database: 'db',
      username: 'admin',
      password: 'pw',
    };
    const statements = {
      creationStatement: 'CREATE ROLE "{{username}}"',
      revocationStatement: 'DROP ROLE "{{username}}"',
    };
    const create = (overrides: Record<string, string>) =>
      t.call('POST', '/api/v1/dynamic-secrets', {
        body: {
          ...scope,
          name: 'pg-x',
          defaultTTL: '1h',
          provider: { type: 'sql-database', inputs: { ...sql, ...statements, ...overrides } },
        },
      });
    const refusals: [Record<string, string>, string][] = [
      [{ creationStatement: '{{#if username}}CREATE ROLE "{{username}}"{{/if}}' }, 'SQL creation'],
      [{ creationStatement: 'CREATE ROLE "{{username}}" {{! comment }}' }, 'SQL creation'],
      [{ renewStatement: '{{> partial}}' }, 'SQL renew'],
      [{ renewStatement: 'ALTER ROLE "{{username}}" PASSWORD \'{{password}}\'' }, 'SQL renew'],
      [{ revocationStatement: 'DROP ROLE "{{truncate username 8}}"; -- {{expiration}}' }, 'SQL revoke'],
    ];
    for (const [overrides, label] of refusals) {
      const res = await create(overrides);
      expect([res.status, res.body.message], label).toEqual([400, `Template sanitization failed: ${label}`]);
    }
    // Helpers pass validation; then the (absent) database is what fails.
    const withHelpers = await create({
      revocationStatement: 'DROP ROLE "{{stripPrefix (lowercase username) "x"}}"',
    });
    expect([withHelpers.status, withHelpers.body.message]).toEqual([
      400,
      expect.stringMatching(/^Failed to connect with provider: /),
    ]);
  });

  it('keeps dynamic secrets across a restart with a data file', async () => {
    await t.call('POST', '/api/v1/dynamic-secrets', { body: { ...scope, name: 'gcp-kept', provider: gcp, defaultTTL: '1h' } }); // prettier-ignore
    await t.close();
    await start();
    // The bootstrap token survives the restart too (the signing key is persisted).
    const list = await t.call('GET', `/api/v1/dynamic-secrets?${query}`, { token });
    expect(list.body.dynamicSecrets.map((d: { name: string }) => d.name)).toEqual(['gcp-kept']);
  });
});
