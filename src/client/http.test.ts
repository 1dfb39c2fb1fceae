import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { staticToken } from './auth.ts';
import {
  PayloadTooLargeError,
  ForbiddenError,
  NetworkError,
  RateLimitedError,
  RequestValidationError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
} from './errors.ts';
import { ManualClock } from '../runtime/clock.ts';
import type { RequestInfo } from './http.ts';
import { createServiceClient, type ServiceClient, type ServiceClientOptions } from './service-client.ts';
import { TransportRegistry } from './transport.ts';

const ORIGIN = 'http://svc.test';
const TOKEN = 'tok-static-0123456789';
const PROJECT = { id: 'p1', name: 'Demo', slug: 'demo', environments: [] };
const agents: MockAgent[] = [];
const clients: ServiceClient[] = [];

function setup(options: Partial<ServiceClientOptions> = {}) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  agents.push(agent);
  const clock =
    options.clock instanceof ManualClock
      ? options.clock
      : new ManualClock({ start: 1_700_000_000_000, autoAdvance: true });
  const seen: RequestInfo[] = [];
  const client = createServiceClient({
    baseUrl: ORIGIN,
    dispatcher: agent,
    registry: new TransportRegistry(),
    random: () => 0.5,
    auth: staticToken(TOKEN),
    onRequest: (info) => seen.push(info),
    ...options,
    clock,
  });
  clients.push(client);
  return { pool: agent.get(ORIGIN), agent, clock, client, seen };
}

function refused(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
}

function reset(): Error {
  return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

describe('retries', () => {
  it('retries a GET on 5xx with full-jitter exponential backoff, then returns the result', async () => {
    const { pool, client, clock, seen } = setup();
    const path = '/api/v1/workspace/p1';
    pool.intercept({ path, method: 'GET' }).reply(503, { message: 'busy' });
    pool.intercept({ path, method: 'GET' }).reply(500, { message: 'oops' });
    pool.intercept({ path, method: 'GET' }).reply(200, { workspace: PROJECT });
    await expect(client.projects.get('p1')).resolves.toMatchObject({ id: 'p1', slug: 'demo' });
    // random() = 0.5: half of 200·2^n for the first and second retry.
    expect(clock.delays).toEqual([100, 200]);
    expect(seen.map((s) => [s.operation, s.method, s.status, s.attempt])).toEqual([
      ['projects.get', 'GET', 503, 0],
      ['projects.get', 'GET', 500, 1],
      ['projects.get', 'GET', 200, 2],
    ]);
  });

  it('caps the backoff at maxDelayMs and gives up after `retries` retries', async () => {
    const { pool, client, clock } = setup({ retry: { retries: 4, baseDelayMs: 1000, maxDelayMs: 3000 } });
    pool.intercept({ path: '/api/v1/workspace/p1', method: 'GET' }).reply(500, { message: 'down' }).times(5);
    await expect(client.projects.get('p1')).rejects.toBeInstanceOf(ServerError);
    expect(clock.delays).toEqual([500, 1000, 1500, 1500]);
  });

  it('does not retry a POST on 500 (it may have been processed)', async () => {
    const { pool, client, seen } = setup();
    pool.intercept({ path: '/api/v1/identities', method: 'POST' }).reply(500, { message: 'boom' });
    await expect(client.identities.create({ name: 'a', organizationId: 'o1' })).rejects.toBeInstanceOf(
      ServerError,
    );
    expect(seen).toHaveLength(1);
  });

  it.each([502, 503, 504])('retries a POST on %i (the request was not processed)', async (status) => {
    const { pool, client, seen } = setup();
    const identity = { id: 'i1', name: 'a', authMethods: [], hasDeleteProtection: false, metadata: [] };
    pool.intercept({ path: '/api/v1/identities', method: 'POST' }).reply(status, { message: 'gateway' });
    pool.intercept({ path: '/api/v1/identities', method: 'POST' }).reply(200, { identity });
    await expect(client.identities.create({ name: 'a', organizationId: 'o1' })).resolves.toMatchObject({
      id: 'i1',
    });
    expect(seen.map((s) => s.status)).toEqual([status, 200]);
  });

  it('does not retry a write after a connection reset, but does after a refused connection', async () => {
    const { pool, client, seen } = setup();
    const path = '/api/v1/workspace/p1';
    pool.intercept({ path, method: 'DELETE' }).replyWithError(reset());
    const err: unknown = await client.projects.delete('p1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).code).toBe('ECONNRESET');
    expect((err as NetworkError).status).toBe(0);
    expect(seen.map((s) => s.status)).toEqual([0]);

    pool.intercept({ path, method: 'DELETE' }).replyWithError(refused());
    pool.intercept({ path, method: 'DELETE' }).reply(200, { workspace: PROJECT });
    await expect(client.projects.delete('p1')).resolves.toMatchObject({ id: 'p1' });
  });

  it('retries a GET after a connection reset', async () => {
    const { pool, client } = setup();
    pool.intercept({ path: '/api/v1/workspace/p1', method: 'GET' }).replyWithError(reset());
    pool.intercept({ path: '/api/v1/workspace/p1', method: 'GET' }).reply(200, { workspace: PROJECT });
    await expect(client.projects.get('p1')).resolves.toMatchObject({ id: 'p1' });
  });

  it('never retries a 4xx', async () => {
    const { pool, client, seen } = setup();
    pool
      .intercept({ path: '/api/v1/workspace/p1', method: 'GET' })
      .reply(403, { reqId: 'req-1', statusCode: 403, error: 'PermissionDenied', message: 'no' });
    await expect(client.projects.get('p1')).rejects.toBeInstanceOf(ForbiddenError);
    expect(seen).toHaveLength(1);
  });
});

describe('429 and Retry-After', () => {
  const limited = (message: string) => ({
    reqId: 'req-2',
    statusCode: 429,
    error: 'RateLimitExceeded',
    message,
  });

  it('waits the Retry-After header (plus a little jitter) before retrying, for any method', async () => {
    const { pool, client, clock } = setup();
    pool
      .intercept({ path: '/api/v1/workspace/p1', method: 'PATCH' })
      .reply(429, limited('Rate limit exceeded. Please try again in 60 seconds'), {
        headers: { 'retry-after': '2' },
      });
    pool.intercept({ path: '/api/v1/workspace/p1', method: 'PATCH' }).reply(200, { workspace: PROJECT });
    await expect(client.projects.update('p1', { name: 'Demo' })).resolves.toMatchObject({ id: 'p1' });
    expect(clock.delays).toEqual([2100]);
  });

  it('takes the wait from the message when there is no header', async () => {
    const { pool, client, clock } = setup();
    pool
      .intercept({ path: '/api/v1/workspace/p1', method: 'GET' })
      .reply(429, limited('Rate limit exceeded. Please try again in 5 seconds'));
    pool.intercept({ path: '/api/v1/workspace/p1', method: 'GET' }).reply(200, { workspace: PROJECT });
    await client.projects.get('p1');
    expect(clock.delays).toEqual([5100]);
  });

  it('hands a wait longer than maxRetryAfterMs to the caller instead of sleeping', async () => {
    const { pool, client, clock } = setup({ retry: { maxRetryAfterMs: 10_000 } });
    pool
      .intercept({ path: '/api/v1/workspace/p1', method: 'GET' })
      .reply(429, limited('Rate limit exceeded. Please try again in 60 seconds'));
    const err: unknown = await client.projects.get('p1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).retryAfterMs).toBe(60_000);
    expect(clock.delays).toEqual([]);
  });
});

describe('timeouts and abort', () => {
  it('fails an attempt that exceeds timeoutMs with TimeoutError', async () => {
    const { pool, client } = setup({ retry: { retries: 0 }, timeoutMs: 20 });
    pool
      .intercept({ path: '/api/v1/workspace/p1', method: 'GET' })
      .reply(200, { workspace: PROJECT })
      .delay(10_000);
    const err: unknown = await client.projects.get('p1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as TimeoutError).message).toBe('cannot call projects.get: request timed out');
  });

  it('retries a GET after a timeout, but not a POST', async () => {
    const { pool, client, seen } = setup({ timeoutMs: 20 });
    pool
      .intercept({ path: '/api/v1/workspace/p1', method: 'GET' })
      .reply(200, { workspace: PROJECT })
      .delay(10_000);
    pool.intercept({ path: '/api/v1/workspace/p1', method: 'GET' }).reply(200, { workspace: PROJECT });
    await expect(client.projects.get('p1')).resolves.toMatchObject({ id: 'p1' });
    pool.intercept({ path: '/api/v1/identities', method: 'POST' }).reply(200, {}).delay(10_000);
    await expect(client.identities.create({ name: 'x', organizationId: 'o' })).rejects.toBeInstanceOf(
      TimeoutError,
    );
    expect(seen.map((s) => s.status)).toEqual([0, 200, 0]);
  });

  it('honours a per-call timeout', async () => {
    const { pool, client } = setup({ retry: { retries: 0 } });
    pool
      .intercept({ path: '/api/v1/workspace/p1', method: 'GET' })
      .reply(200, { workspace: PROJECT })
      .delay(10_000);
    await expect(client.projects.get('p1', { timeoutMs: 10 })).rejects.toBeInstanceOf(TimeoutError);
  });

  it("rejects with the caller's abort reason and does not retry", async () => {
    const { pool, client, seen } = setup();
    pool
      .intercept({ path: '/api/v1/workspace/p1', method: 'GET' })
      .reply(200, { workspace: PROJECT })
      .delay(10_000);
    const controller = new AbortController();
    const call = client.projects.get('p1', { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('shutting down')), 5);
    await expect(call).rejects.toThrow('shutting down');
    expect(seen).toHaveLength(0);
  });

  it('stops waiting for a retry when the caller aborts during the backoff', async () => {
    const clock = new ManualClock({ start: 1_700_000_000_000 });
    const { pool, client } = setup({ clock });
    pool.intercept({ path: '/api/v1/workspace/p1', method: 'GET' }).reply(503, {});
    const controller = new AbortController();
    const call = client.projects.get('p1', { signal: controller.signal });
    await waitUntil(() => clock.pending() === 1);
    controller.abort(new Error('cancelled'));
    await expect(call).rejects.toThrow('cancelled');
  });
});

describe('validation', () => {
  it('rejects an invalid body locally without sending anything', async () => {
    const { client, seen } = setup();
    const err: unknown = await client.environments
      .create('p1', { name: 'Prod', slug: 'Not A Slug' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestValidationError);
    expect((err as RequestValidationError).status).toBe(422);
    expect((err as RequestValidationError).issues[0]?.path).toEqual(['slug']);
    expect((err as Error).message).toMatch(
      /^cannot call environments.create: invalid request \(not sent\): slug:/,
    );
    expect(seen).toHaveLength(0);
  });

  it("refuses a body over the service's limit locally with 413, sending nothing", async () => {
    const { client, seen } = setup({ maxBodyBytes: 2048 });
    const err: unknown = await client.secrets
      .batchCreate({
        workspaceId: 'p1',
        environment: 'dev',
        secrets: [{ secretKey: 'BIG', secretValue: 'x'.repeat(4096) }],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PayloadTooLargeError);
    expect((err as PayloadTooLargeError).status).toBe(413);
    expect((err as Error).message).toContain("over the service's limit of 2048 bytes; nothing was sent");
    expect((err as Error).message).not.toContain('xxxx');
    expect(seen).toHaveLength(0);
  });

  it('rejects an empty path parameter locally', async () => {
    const { client, seen } = setup();
    await expect(client.projects.get('')).rejects.toBeInstanceOf(RequestValidationError);
    expect(seen).toHaveLength(0);
  });

  it('enforces TTL ≤ max TTL on attach before sending', async () => {
    const { client } = setup();
    const call = client.identityAuth.token.attach('i1', { accessTokenTTL: 7200, accessTokenMaxTTL: 60 });
    await expect(call).rejects.toThrow(/Access Token TTL cannot be greater than Access Token Max TTL/);
  });

  it('reports a response that does not match the schema, without retrying', async () => {
    const { pool, client, seen } = setup();
    pool.intercept({ path: '/api/v1/workspace/p1', method: 'GET' }).reply(200, { workspace: { id: 5 } });
    const err: unknown = await client.projects.get('p1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect((err as Error).message).toContain('workspace.id');
    expect(seen).toHaveLength(1);
  });

  it('drops unknown response fields', async () => {
    const { pool, client } = setup();
    pool
      .intercept({ path: '/api/v1/workspace/p1', method: 'GET' })
      .reply(200, { workspace: { ...PROJECT, futureField: true }, extra: 1 });
    const project = await client.projects.get('p1');
    expect(project).not.toHaveProperty('futureField');
  });
});

describe('requests', () => {
  it('sends the bearer token, JSON body, encoded path parameters and query', async () => {
    const { pool, client } = setup();
    pool
      .intercept({
        path: '/api/v1/workspace/a%2Fb/environments',
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Prod', slug: 'prod' }),
      })
      .reply(200, { message: 'ok', workspace: 'a/b', environment: { id: 'e1', name: 'Prod', slug: 'prod' } });
    await expect(client.environments.create('a/b', { name: 'Prod', slug: 'prod' })).resolves.toMatchObject({
      id: 'e1',
    });
    pool
      .intercept({ path: '/api/v1/identities', method: 'GET', query: { orgId: 'o1' } })
      .reply(200, { identities: [] });
    await expect(client.identities.list('o1')).resolves.toEqual([]);
  });

  it('keeps a base URL path prefix', async () => {
    const { pool, client } = setup({ baseUrl: `${ORIGIN}/infisical/` });
    pool
      .intercept({ path: '/infisical/api/v1/workspace/p1', method: 'GET' })
      .reply(200, { workspace: PROJECT });
    await expect(client.projects.get('p1')).resolves.toMatchObject({ id: 'p1' });
  });

  it('keeps working when the onRequest hook throws', async () => {
    const { pool, client } = setup({
      onRequest: () => {
        throw new Error('metrics broke');
      },
    });
    pool.intercept({ path: '/api/v1/workspace/p1', method: 'GET' }).reply(200, { workspace: PROJECT });
    await expect(client.projects.get('p1')).resolves.toMatchObject({ id: 'p1' });
  });
});

describe('shared transport', () => {
  it('shares one rate limiter between clients of the same base URL', async () => {
    const clock = new ManualClock({ start: 1_700_000_000_000 });
    const registry = new TransportRegistry();
    const agent = new MockAgent();
    agent.disableNetConnect();
    agents.push(agent);
    const pool = agent.get(ORIGIN);
    pool
      .intercept({ path: '/api/v1/workspace/p1', method: 'GET' })
      .reply(200, { workspace: PROJECT })
      .times(3);
    const make = (token: string) =>
      createServiceClient({
        baseUrl: ORIGIN,
        dispatcher: agent,
        registry,
        clock,
        auth: staticToken(token),
        rateLimit: { requestsPerMinute: 60, burst: 1 },
      });
    const a = make('token-a-000000');
    const b = make('token-b-000000');
    clients.push(a, b);
    await a.projects.get('p1');
    let secondDone = false;
    const second = b.projects.get('p1').then(() => (secondDone = true));
    await waitUntil(() => clock.pending() === 1);
    expect(secondDone).toBe(false);
    clock.advance(1000);
    await second;
    expect(secondDone).toBe(true);
  });

  it('opens one Pool per base URL and closes it with its last client', async () => {
    const registry = new TransportRegistry();
    const a = createServiceClient({ baseUrl: 'http://127.0.0.1:9', registry });
    const b = createServiceClient({ baseUrl: 'http://127.0.0.1:9/', registry });
    const c = createServiceClient({ baseUrl: 'http://127.0.0.1:10', registry });
    expect(registry.poolCount).toBe(2);
    // A different TLS setting needs its own Pool (connect options are per Pool).
    const d = createServiceClient({
      baseUrl: 'http://127.0.0.1:10',
      registry,
      tls: { rejectUnauthorized: false },
    });
    expect(registry.poolCount).toBe(3);
    await d.close();
    await a.close();
    await a.close();
    expect(registry.poolCount).toBe(2);
    await b.close();
    expect(registry.poolCount).toBe(1);
    await c.close();
    expect(registry.poolCount).toBe(0);
  });

  it('refuses base URLs with credentials or other protocols', () => {
    expect(() => createServiceClient({ baseUrl: 'http://user:pw@svc.test' })).toThrow(
      /must not contain credentials/,
    );
    expect(() => createServiceClient({ baseUrl: 'ftp://svc.test' })).toThrow(/not http or https/);
  });
});

/** Polls `cond` across macrotasks (the pipeline awaits several promises before sleeping). */
async function waitUntil(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !cond(); i += 1) await new Promise((r) => setImmediate(r));
  expect(cond()).toBe(true);
}
