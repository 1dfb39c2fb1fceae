import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { staticToken } from './auth.ts';
import { ForbiddenError, RequestValidationError, TimeoutError } from './errors.ts';
import { parseSecretEvent, type SseFrame } from './events.ts';
import { ManualClock } from '../runtime/clock.ts';
import { createServiceClient, type ServiceClient } from './service-client.ts';
import { TransportRegistry } from './transport.ts';

const ORIGIN = 'http://svc.test';
const PATH = '/api/v1/events/subscribe/project-events';
const SUBSCRIPTION = {
  projectId: 'p1',
  register: [{ event: 'secret:update' as const, conditions: { environmentSlug: 'dev', secretPath: '/' } }],
};
const agents: MockAgent[] = [];
const clients: ServiceClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

function setup() {
  const agent = new MockAgent();
  agent.disableNetConnect();
  agents.push(agent);
  const client = createServiceClient({
    baseUrl: ORIGIN,
    dispatcher: agent,
    registry: new TransportRegistry(),
    clock: new ManualClock({ start: 1_700_000_000_000, autoAdvance: true }),
    auth: staticToken('events-token-1'),
  });
  clients.push(client);
  return { pool: agent.get(ORIGIN), client };
}

const update = {
  type: 'secret-manager',
  data: {
    eventType: 'secret:update',
    payload: [{ environment: 'dev', secretPath: '/', secretKeys: 'DB_URL' }],
  },
};

describe('events.subscribe', () => {
  it('posts the registration and yields the frames of the stream until it ends', async () => {
    const { pool, client } = setup();
    const stream = `event: ping\n\nid: 1700000000000\nevent: secret:update\ndata: ${JSON.stringify(update)}\n\n`;
    pool
      .intercept({ path: PATH, method: 'POST', body: JSON.stringify(SUBSCRIPTION) })
      .reply(200, stream, { headers: { 'content-type': 'text/event-stream' } });
    const subscription = await client.events.subscribe(SUBSCRIPTION);
    const frames: SseFrame[] = [];
    for await (const frame of subscription) frames.push(frame);
    expect(frames.map((f) => f.event)).toEqual(['ping', 'secret:update']);
    expect(frames[1]?.id).toBe('1700000000000');
    expect(parseSecretEvent(frames[1] as SseFrame)).toEqual({
      eventType: 'secret:update',
      changes: [{ environment: 'dev', secretPath: '/', secretKeys: ['DB_URL'] }],
    });
  });

  it('rejects with the typed error when the service refuses the subscription', async () => {
    const { pool, client } = setup();
    pool.intercept({ path: PATH, method: 'POST' }).reply(403, {
      reqId: 'req-9',
      statusCode: 403,
      error: 'PermissionDenied',
      message: 'You are not allowed',
    });
    await expect(client.events.subscribe(SUBSCRIPTION)).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('validates the registration before sending', async () => {
    const { client } = setup();
    await expect(client.events.subscribe({ projectId: 'p1', register: [] })).rejects.toBeInstanceOf(
      RequestValidationError,
    );
  });
});

/** A loopback server that opens an event stream, sends one ping and then stays silent. */
async function silentStreamServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write('event: ping\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('events.subscribe on an open stream', () => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  async function open(options: { idleTimeoutMs?: number; signal?: AbortSignal } = {}) {
    const server = await silentStreamServer();
    servers.push(server);
    const client = createServiceClient({
      baseUrl: server.url,
      registry: new TransportRegistry(),
      auth: staticToken('t-1'),
    });
    clients.push(client);
    const subscription = await client.events.subscribe(SUBSCRIPTION, options);
    const frames: SseFrame[] = [];
    const done = (async () => {
      for await (const frame of subscription) frames.push(frame);
    })();
    return { client, subscription, frames, done };
  }

  it('ends open streams when the client closes, so closing does not hang on them', async () => {
    const { client, frames, done } = await open({ idleTimeoutMs: 0 });
    await waitUntil(() => frames.length === 1);
    await client.close();
    await expect(done).resolves.toBeUndefined();
  });

  it('ends the iteration quietly on close()', async () => {
    const { subscription, frames, done } = await open({ idleTimeoutMs: 0 });
    await waitUntil(() => frames.length === 1);
    subscription.close();
    await expect(done).resolves.toBeUndefined();
    expect(frames).toEqual([{ event: 'ping' }]);
  });

  it("ends the iteration quietly when the caller's signal aborts", async () => {
    const controller = new AbortController();
    const { frames, done } = await open({ idleTimeoutMs: 0, signal: controller.signal });
    await waitUntil(() => frames.length === 1);
    controller.abort();
    await expect(done).resolves.toBeUndefined();
  });

  it('throws TimeoutError when nothing arrives within idleTimeoutMs', async () => {
    const { frames, done } = await open({ idleTimeoutMs: 30 });
    await expect(done).rejects.toBeInstanceOf(TimeoutError);
    expect(frames).toEqual([{ event: 'ping' }]);
  });
});

async function waitUntil(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i += 1) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
}

describe('parseSecretEvent', () => {
  it('accepts the bus-event layout with a single payload object', () => {
    const data = {
      type: 'secret-manager',
      data: {
        specversion: 1,
        event: 'secret:create',
        payload: { secretId: 's1', secretKey: 'A', environment: 'prod' },
      },
    };
    expect(parseSecretEvent({ event: 'secret-manager', data: JSON.stringify(data) })).toEqual({
      eventType: 'secret:create',
      changes: [{ environment: 'prod', secretPath: '/', secretKeys: ['A'] }],
    });
  });

  it('ignores pings, errors and non-JSON data', () => {
    expect(parseSecretEvent({ event: 'ping' })).toBeUndefined();
    expect(parseSecretEvent({ event: 'error', data: '{"message":"denied"}' })).toBeUndefined();
    expect(parseSecretEvent({ event: 'secret:update', data: 'not json' })).toBeUndefined();
  });
});
