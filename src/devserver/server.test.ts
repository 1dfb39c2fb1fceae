/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- the tests read fields of arbitrary JSON answers */
// The devserver's HTTP core over real loopback HTTP: health, routing, the error envelope,
// body limits, rate limiting, fault injection, admin routes, stats and persistence.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './test-support.ts';

const REQ_ID = /^req-[A-Za-z0-9]{14}$/;
const servers: TestServer[] = [];

async function start(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const t = await startTestServer(options);
  servers.push(t);
  return t;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((t) => t.close()));
});

describe('devserver HTTP core', () => {
  it('answers health checks with 200 on / and /api/status', async () => {
    const t = await start();
    expect((await t.call('GET', '/')).status).toBe(200);
    expect((await t.call('GET', '/api/status')).status).toBe(200);
    const head = await t.call('HEAD', '/api/status');
    expect(head.status).toBe(200);
    expect(head.body).toBeUndefined();
  });

  it('answers an unknown route with the router 404 body and no reqId', async () => {
    const t = await start();
    const res = await t.call('GET', '/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      message: 'Route GET:/api/v1/nothing-here not found',
      error: 'Not Found',
      statusCode: 404,
    });
  });

  it('ignores a trailing slash', async () => {
    const t = await start();
    await t.bootstrap();
    const res = await t.call('GET', '/api/v1/project-templates/');
    expect(res.status).toBe(200);
  });

  it('sends a strong ETag and answers 304 when it matches', async () => {
    const t = await start();
    await t.bootstrap();
    const first = await t.call('GET', '/api/v1/project-templates');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    const again = await t.call('GET', '/api/v1/project-templates', {
      headers: { 'if-none-match': etag ?? '' },
    });
    expect(again.status).toBe(304);
  });

  it('rejects malformed JSON with 400 in the error envelope', async () => {
    const t = await start();
    await t.bootstrap();
    const res = await t.call('POST', '/api/v1/identities', {
      raw: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.reqId).toMatch(REQ_ID);
    expect(res.body.statusCode).toBe(400);
    expect(typeof res.body.message).toBe('string');
  });

  it('answers validation failures with 422 ValidationFailure and the issue array', async () => {
    const t = await start();
    const res = await t.call('POST', '/api/v1/admin/bootstrap', {
      body: { email: 'not-an-email', password: 'x', organization: 'o' },
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('ValidationFailure');
    expect(res.body.reqId).toMatch(REQ_ID);
    expect(Array.isArray(res.body.message)).toBe(true);
    expect(res.body.message[0].path).toEqual(['email']);
  });

  it('rejects bodies over the limit with 413', async () => {
    const t = await start({ maxBodyBytes: 1024 });
    await t.bootstrap();
    const res = await t.call('POST', '/api/v1/identities', {
      body: { name: 'x'.repeat(2048), organizationId: 'o' },
    });
    expect(res.status).toBe(413);
    expect(res.body.statusCode).toBe(413);
    expect(res.body.reqId).toMatch(REQ_ID);
  });

  it('rate limits per bucket with 429, Retry-After and x-ratelimit headers', async () => {
    const t = await start({ rateLimit: { read: 2 } });
    const { orgId } = await t.bootstrap();
    const path = `/api/v1/identities?orgId=${orgId}`;
    const first = await t.call('GET', path);
    expect(first.headers.get('x-ratelimit-limit')).toBe('2');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
    await t.call('GET', path);
    const limited = await t.call('GET', path);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('RateLimitExceeded');
    const wait = Number(limited.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(limited.body.message).toBe(`Rate limit exceeded. Please try again in ${wait} seconds`);
    // Writes use another bucket, which has no limit here.
    expect(
      (await t.call('POST', '/api/v1/identities', { body: { name: 'w', organizationId: orgId } })).status,
    ).toBe(200);
    // A new minute opens a new window.
    t.clock.now += 60_000;
    expect((await t.call('GET', path)).status).toBe(200);
  });

  it('injects server errors and dropped connections, adjustable through the admin route', async () => {
    const t = await start({ enableAdmin: true, faults: { errorRatio: 1 } });
    const failed = await t.call('GET', '/api/v1/project-templates');
    expect([500, 503]).toContain(failed.status);
    expect(failed.body.reqId).toMatch(REQ_ID);
    expect((await t.call('GET', '/')).status).toBe(200);
    const put = await t.call('PUT', '/__devserver/faults', {
      body: { errorRatio: 0, dropRatio: 1, latencyMs: 5 },
    });
    expect(put.body).toEqual({ errorRatio: 0, dropRatio: 1, latencyMs: 5 });
    await expect(t.call('GET', '/api/v1/project-templates')).rejects.toThrow();
    await t.call('PUT', '/__devserver/faults', { body: { dropRatio: 0 } });
    expect((await t.call('GET', '/__devserver/faults')).body).toEqual({
      errorRatio: 0,
      dropRatio: 0,
      latencyMs: 5,
    });
    expect((await t.call('GET', '/api/v1/project-templates')).status).toBe(401);
    expect(t.server.stats.snapshot().faults).toEqual({ errors: 1, drops: 1 });
  });

  it('keeps the admin routes off unless enabled', async () => {
    const t = await start();
    expect((await t.call('GET', '/__devserver/stats')).status).toBe(404);
  });

  it('counts requests and successful writes, and resets on demand', async () => {
    const t = await start({ enableAdmin: true });
    const { orgId } = await t.bootstrap();
    await t.call('GET', `/api/v1/identities?orgId=${orgId}`);
    await t.call('POST', '/api/v1/identities', { body: { name: 'a', organizationId: orgId } });
    await t.call('POST', '/api/v1/identities', { body: { name: 'b', organizationId: 'someone-else' } });
    const stats = (await t.call('GET', '/__devserver/stats')).body;
    expect(stats.writes.total).toBe(2);
    expect(stats.writes.byRoute).toEqual({ 'POST /api/v1/admin/bootstrap': 1, 'POST /api/v1/identities': 1 });
    expect(stats.requests.byRoute['GET /api/v1/identities']).toBe(1);
    expect(stats.requests.byStatus['403']).toBe(1);
    await t.call('POST', '/__devserver/stats/reset');
    await t.call('GET', `/api/v1/identities?orgId=${orgId}`);
    expect(t.server.stats.writes.total).toBe(0);
    expect(t.server.stats.requests.total).toBe(1);
  });

  it('persists state to the data file and reloads it on start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'coffer-devserver-'));
    const dataFile = join(dir, 'state.json');
    try {
      const first = await start({ dataFile, persistDebounceMs: 5 });
      const { orgId, token } = await first.bootstrap();
      const created = await first.call('POST', '/api/v1/identities', {
        body: { name: 'kept', organizationId: orgId },
      });
      const project = await first.call('POST', '/api/v2/workspace', { body: { projectName: 'Persisted' } });
      await first.call('POST', '/api/v3/secrets/batch/raw', {
        body: {
          workspaceId: project.body.project.id,
          environment: 'dev',
          secrets: [{ secretKey: 'K', secretValue: 'v' }],
        },
      });
      await first.close();
      servers.splice(servers.indexOf(first), 1);
      expect(JSON.parse(await readFile(dataFile, 'utf8'))).toHaveProperty('state');

      const second = await start({ dataFile });
      const again = await second.call('GET', `/api/v1/identities/${created.body.identity.id}`, { token });
      expect(again.status).toBe(200);
      expect(again.body.identity.identity.name).toBe('kept');
      const secret = await second.call(
        'GET',
        `/api/v3/secrets/raw/K?workspaceId=${project.body.project.id}&environment=dev`,
        { token },
      );
      expect(secret.body.secret.secretValue).toBe('v');
      const boot = await second.call('POST', '/api/v1/admin/bootstrap', {
        token: null,
        body: { email: 'x@example.com', password: 'p', organization: 'o' },
      });
      expect(boot.status).toBe(400);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
