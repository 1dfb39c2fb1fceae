// One rate limiter per connection: clients built for the same connection share the
// requestsPerMinute budget (also across credential versions), other connections do not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/clock.ts';
import { startTestServer, type TestServer } from '../../devserver/test-support.ts';
import { createLogger } from '../../runtime/logger.ts';
import { ConnectionClientFactory, type ConnectionClient } from './clients.ts';

let t: TestServer;
let admin: { token: string; identityId: string };
const built: ConnectionClient[] = [];

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.bootstrap();
});

afterAll(async () => {
  await Promise.all(built.map((c) => c.client.close()));
  await t.close();
});

describe('ConnectionClientFactory', () => {
  it('shares one requestsPerMinute budget per connection', async () => {
    const clock = new ManualClock({ start: 1_700_000_000_000, autoAdvance: true });
    const factory = new ConnectionClientFactory({ log: createLogger({ level: 'silent' }), clock });
    const build = (key: string) => {
      const client = factory.build({
        key,
        url: t.server.url,
        credentials: { auth: { method: 'token', token: admin.token } },
        requestsPerMinute: 60,
      });
      built.push(client);
      return client.client;
    };
    const first = build('Connection/ns/a');
    const rebuilt = build('Connection/ns/a');
    const other = build('Connection/ns/b');

    await first.identities.get(admin.identityId);
    expect(clock.delays).toEqual([]);
    // Same connection (e.g. its next credential version): the bucket is empty, so it waits ~1 s.
    await rebuilt.identities.get(admin.identityId);
    expect(clock.delays).toHaveLength(1);
    expect(clock.delays[0]).toBeGreaterThan(900);
    // Another connection to the same URL has its own budget.
    await other.identities.get(admin.identityId);
    expect(clock.delays).toHaveLength(1);
  });

  it('exposes the access token the client sends', async () => {
    const factory = new ConnectionClientFactory({ log: createLogger({ level: 'silent' }) });
    const client = factory.build({
      key: 'Connection/ns/c',
      url: t.server.url,
      credentials: { auth: { method: 'token', token: admin.token } },
    });
    built.push(client);
    expect(await client.accessToken()).toBe(admin.token);
  });
});
