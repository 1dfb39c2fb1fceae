import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { staticToken, universalAuth } from './auth.ts';
import { ForbiddenError, ServerError, UnauthorizedError } from './errors.ts';
import { ManualClock } from '../runtime/clock.ts';
import type { ClientLogger } from './http.ts';
import { createServiceClient, type ServiceClient } from './service-client.ts';
import { TransportRegistry } from './transport.ts';

const ORIGIN = 'http://svc.test';
const CLIENT_SECRET = 'cs-very-secret-value-42';
const PROJECT = { id: 'p1', name: 'Demo', slug: 'demo' };
const LOGIN = '/api/v1/auth/universal-auth/login';
const RENEW = '/api/v1/auth/token/renew';
const GET = '/api/v1/workspace/p1';

const agents: MockAgent[] = [];
const clients: ServiceClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

/** The parts of a mocked request the fake service looks at. */
interface MockRequest {
  path: string;
  headers?: Headers | Record<string, string>;
  body?: unknown;
}

interface Seen {
  path: string;
  authorization: string | undefined;
  body: unknown;
}

function header(opts: MockRequest, name: string): string | undefined {
  const h = opts.headers;
  if (!h) return undefined;
  if (h instanceof Headers) return h.get(name) ?? undefined;
  return h[name];
}

/**
 * A fake service: login hands out tok-1, tok-2, …; renew hands out `renewed-<n>`; the
 * project GET answers 200 unless `reject` says otherwise for the presented token.
 */
function fakeService(
  options: { expiresIn?: number; maxTtl?: number; renewStatus?: number; loginStatus?: number } = {},
) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  agents.push(agent);
  const pool = agent.get(ORIGIN);
  const seen: Seen[] = [];
  const state = { logins: 0, renewals: 0, reject: new Map<string, { status: number; error: string }>() };
  const record = (opts: MockRequest): void => {
    const body = typeof opts.body === 'string' ? (JSON.parse(opts.body) as unknown) : undefined;
    seen.push({ path: opts.path, authorization: header(opts, 'authorization'), body });
  };
  const token = (accessToken: string) => ({
    accessToken,
    expiresIn: options.expiresIn ?? 100,
    accessTokenMaxTTL: options.maxTtl ?? 1000,
    tokenType: 'Bearer',
  });
  pool
    .intercept({ path: LOGIN, method: 'POST' })
    .reply<object>((opts) => {
      record(opts);
      state.logins += 1;
      if (options.loginStatus)
        return { statusCode: options.loginStatus, data: { message: 'Invalid credentials' } };
      return { statusCode: 200, data: token(`tok-${state.logins}`) };
    })
    .persist();
  pool
    .intercept({ path: RENEW, method: 'POST' })
    .reply<object>((opts) => {
      record(opts);
      state.renewals += 1;
      if (options.renewStatus) return { statusCode: options.renewStatus, data: { message: 'cannot renew' } };
      return { statusCode: 200, data: token(`renewed-${state.renewals}`) };
    })
    .persist();
  pool
    .intercept({ path: GET, method: 'GET' })
    .reply<object>((opts) => {
      record(opts);
      const presented = header(opts, 'authorization')?.slice('Bearer '.length) ?? '';
      const rejection = state.reject.get(presented);
      if (rejection)
        return {
          statusCode: rejection.status,
          data: { statusCode: rejection.status, ...rejection, message: 'token rejected' },
        };
      return { statusCode: 200, data: { workspace: PROJECT } };
    })
    .persist();
  return { agent, seen, state, options };
}

function logCapture(): { logger: ClientLogger; lines: unknown[] } {
  const lines: unknown[] = [];
  return {
    lines,
    logger: { debug: (obj, msg) => lines.push([obj, msg]), warn: (obj, msg) => lines.push([obj, msg]) },
  };
}

function client(
  agent: MockAgent,
  clock: ManualClock,
  logger?: ClientLogger,
  auth = universalAuth({ clientId: 'cid', clientSecret: CLIENT_SECRET }),
) {
  const c = createServiceClient({
    baseUrl: ORIGIN,
    dispatcher: agent,
    registry: new TransportRegistry(),
    clock,
    auth,
    logger,
    random: () => 0,
  });
  clients.push(c);
  return c;
}

const bearers = (seen: Seen[]) => seen.filter((s) => s.path === GET).map((s) => s.authorization);

describe('universalAuth', () => {
  it('logs in once for many concurrent callers and sends the token on each request', async () => {
    const { agent, seen, state } = fakeService();
    const c = client(agent, new ManualClock({ start: 1_700_000_000_000 }));
    await Promise.all(Array.from({ length: 5 }, () => c.projects.get('p1')));
    expect(state.logins).toBe(1);
    expect(bearers(seen)).toEqual(Array(5).fill('Bearer tok-1'));
    const login = seen.find((s) => s.path === LOGIN);
    expect(login?.authorization).toBeUndefined();
    expect(login?.body).toEqual({ clientId: 'cid', clientSecret: CLIENT_SECRET });
  });

  it('renews the token (without an auth header) when 80% of its lifetime has passed', async () => {
    const { agent, seen, state } = fakeService({ expiresIn: 100, maxTtl: 1000 });
    const clock = new ManualClock({ start: 1_700_000_000_000 });
    const c = client(agent, clock);
    await c.projects.get('p1');
    clock.advance(79_000);
    await c.projects.get('p1');
    expect(state.renewals).toBe(0);
    clock.advance(2000);
    await c.projects.get('p1');
    expect(state.renewals).toBe(1);
    expect(state.logins).toBe(1);
    const renew = seen.find((s) => s.path === RENEW);
    expect(renew?.authorization).toBeUndefined();
    expect(renew?.body).toEqual({ accessToken: 'tok-1' });
    expect(bearers(seen)).toEqual(['Bearer tok-1', 'Bearer tok-1', 'Bearer renewed-1']);
  });

  it('logs in again when renewal fails', async () => {
    const { agent, seen, state } = fakeService({ renewStatus: 401 });
    const clock = new ManualClock({ start: 1_700_000_000_000 });
    const { logger, lines } = logCapture();
    const c = client(agent, clock, logger);
    await c.projects.get('p1');
    clock.advance(90_000);
    await c.projects.get('p1');
    expect(state.renewals).toBe(1);
    expect(state.logins).toBe(2);
    expect(bearers(seen)).toEqual(['Bearer tok-1', 'Bearer tok-2']);
    expect(lines).toContainEqual([expect.anything(), 'cannot renew access token; logging in again']);
  });

  it('logs in instead of renewing when a renewal would pass the max TTL', async () => {
    const { agent, state } = fakeService({ expiresIn: 100, maxTtl: 150 });
    const clock = new ManualClock({ start: 1_700_000_000_000 });
    const c = client(agent, clock);
    await c.projects.get('p1');
    clock.advance(85_000);
    await c.projects.get('p1');
    expect(state.renewals).toBe(0);
    expect(state.logins).toBe(2);
  });

  it('never renews a token without expiry', async () => {
    const { agent, state } = fakeService({ expiresIn: 0, maxTtl: 0 });
    const clock = new ManualClock({ start: 1_700_000_000_000 });
    const c = client(agent, clock);
    await c.projects.get('p1');
    clock.advance(10 * 365 * 86_400_000);
    await c.projects.get('p1');
    expect(state.logins + state.renewals).toBe(1);
  });

  it.each([
    { status: 403, error: 'TokenError' },
    { status: 401, error: 'UnauthorizedError' },
  ])('logs in again and retries once when the token is rejected with $status $error', async (rejection) => {
    const { agent, seen, state } = fakeService();
    state.reject.set('tok-1', rejection);
    const c = client(agent, new ManualClock({ start: 1_700_000_000_000 }));
    await expect(c.projects.get('p1')).resolves.toMatchObject({ id: 'p1' });
    expect(state.logins).toBe(2);
    expect(bearers(seen)).toEqual(['Bearer tok-1', 'Bearer tok-2']);
  });

  it('gives up after one retry when the fresh token is rejected too', async () => {
    const { agent, state } = fakeService();
    state.reject.set('tok-1', { status: 401, error: 'UnauthorizedError' });
    state.reject.set('tok-2', { status: 401, error: 'UnauthorizedError' });
    const c = client(agent, new ManualClock({ start: 1_700_000_000_000 }));
    await expect(c.projects.get('p1')).rejects.toBeInstanceOf(UnauthorizedError);
    expect(state.logins).toBe(2);
  });

  it('does not retry a 403 permission failure', async () => {
    const { agent, state } = fakeService();
    state.reject.set('tok-1', { status: 403, error: 'PermissionDenied' });
    const c = client(agent, new ManualClock({ start: 1_700_000_000_000 }));
    const err: unknown = await c.projects.get('p1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ForbiddenError);
    expect((err as ForbiddenError).isTokenError).toBe(false);
    expect(state.logins).toBe(1);
  });

  it('fails the call with the login error, and tries again on the next call', async () => {
    const { agent, state } = fakeService({ loginStatus: 401 });
    const c = client(agent, new ManualClock({ start: 1_700_000_000_000 }));
    const err: unknown = await c.projects.get('p1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect((err as UnauthorizedError).operation).toBe('auth.loginUniversal');
    await expect(c.projects.get('p1')).rejects.toBeInstanceOf(UnauthorizedError);
    expect(state.logins).toBe(2);
  });

  it('keeps using a still-valid token while a refresh fails, and fails once it expired', async () => {
    const service = fakeService({ expiresIn: 100 });
    const clock = new ManualClock({ start: 1_700_000_000_000, autoAdvance: true });
    const { logger, lines } = logCapture();
    const c = client(service.agent, clock, logger);
    await c.projects.get('p1');
    clock.advance(85_000);
    service.options.renewStatus = 500;
    service.options.loginStatus = 500;
    await expect(c.projects.get('p1')).resolves.toMatchObject({ id: 'p1' });
    expect(bearers(service.seen)).toEqual(['Bearer tok-1', 'Bearer tok-1']);
    expect(lines).toContainEqual([
      expect.anything(),
      'cannot log in; using the current access token meanwhile',
    ]);
    clock.advance(20_000);
    await expect(c.projects.get('p1')).rejects.toBeInstanceOf(ServerError);
  });

  it('never logs the client secret or a token', async () => {
    const { agent, state } = fakeService({ renewStatus: 401 });
    state.reject.set('tok-2', { status: 403, error: 'TokenError' });
    const clock = new ManualClock({ start: 1_700_000_000_000 });
    const { logger, lines } = logCapture();
    const c = client(agent, clock, logger);
    await c.projects.get('p1');
    clock.advance(90_000);
    await c.projects.get('p1');
    const text = JSON.stringify(lines);
    expect(lines.length).toBeGreaterThan(2);
    for (const secret of [CLIENT_SECRET, 'tok-1', 'tok-2', 'tok-3', 'renewed'])
      expect(text).not.toContain(secret);
  });
});

describe('staticToken', () => {
  it('sends the token and does not retry a rejection', async () => {
    const { agent, seen, state } = fakeService();
    state.reject.set('static-token-1', { status: 401, error: 'UnauthorizedError' });
    const c = client(
      agent,
      new ManualClock({ start: 1_700_000_000_000 }),
      undefined,
      staticToken('static-token-1'),
    );
    await expect(c.projects.get('p1')).rejects.toBeInstanceOf(UnauthorizedError);
    expect(bearers(seen)).toEqual(['Bearer static-token-1']);
    expect(state.logins).toBe(0);
  });

  it('rejects an empty token', () => {
    expect(() => staticToken('')).toThrow(/empty/);
  });
});
