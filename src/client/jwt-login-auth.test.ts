import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { jwtLogin, type JwtSupplier } from './jwt-login-auth.ts';
import { UnauthorizedError } from './errors.ts';
import { ManualClock } from '../runtime/clock.ts';
import type { JwtLoginMethod } from './auth-tokens.ts';
import { createServiceClient, type ServiceClient } from './service-client.ts';
import { TransportRegistry } from './transport.ts';

const ORIGIN = 'http://svc.test';
const GET = '/api/v1/workspace/p1';
const RENEW = '/api/v1/auth/token/renew';
const agents: MockAgent[] = [];
const clients: ServiceClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

interface FakeOptions {
  readonly method?: JwtLoginMethod;
  /** JWTs the login accepts; others get 401 with a message naming the mismatch. */
  readonly accepted: ReadonlySet<string>;
  readonly expiresIn?: number;
  readonly maxTtl?: number;
}

/** A fake service with one JWT login route; login n hands out `acc-n`. */
function fakeService(options: FakeOptions) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  agents.push(agent);
  const pool = agent.get(ORIGIN);
  const state = { logins: [] as string[], renewals: 0, bearers: [] as string[] };
  const token = (accessToken: string) => ({
    accessToken,
    expiresIn: options.expiresIn ?? 10,
    accessTokenMaxTTL: options.maxTtl ?? 10,
    tokenType: 'Bearer',
  });
  pool
    .intercept({ path: `/api/v1/auth/${options.method ?? 'kubernetes'}-auth/login`, method: 'POST' })
    .reply<object>((opts) => {
      const body = JSON.parse(opts.body as string) as { identityId: string; jwt: string };
      state.logins.push(body.jwt);
      if (!options.accepted.has(body.jwt))
        return {
          statusCode: 401,
          data: { statusCode: 401, message: 'Access denied: K8s namespace not allowed.' },
        };
      return { statusCode: 200, data: token(`acc-${state.logins.length}`) };
    })
    .persist();
  pool
    .intercept({ path: RENEW, method: 'POST' })
    .reply<object>(() => {
      state.renewals += 1;
      return { statusCode: 200, data: token(`renewed-${state.renewals}`) };
    })
    .persist();
  pool
    .intercept({ path: GET, method: 'GET' })
    .reply<object>((opts) => {
      const h = opts.headers as Record<string, string>;
      state.bearers.push(h['authorization'] ?? '');
      return { statusCode: 200, data: { workspace: { id: 'p1', name: 'Demo', slug: 'demo' } } };
    })
    .persist();
  return { agent, state };
}

/** A supplier handing out `jwt-1`, `jwt-2`, … on each fresh request; counts its calls. */
function rotatingSupplier() {
  const calls = { plain: 0, fresh: 0 };
  let current = 1;
  const supply: JwtSupplier = (request) => {
    if (request?.fresh) {
      calls.fresh += 1;
      current += 1;
    } else calls.plain += 1;
    return Promise.resolve(`jwt-${current}`);
  };
  return { supply, calls };
}

function client(
  agent: MockAgent,
  clock: ManualClock,
  supply: JwtSupplier,
  method: JwtLoginMethod = 'kubernetes',
) {
  const c = createServiceClient({
    baseUrl: ORIGIN,
    dispatcher: agent,
    registry: new TransportRegistry(),
    clock,
    auth: jwtLogin({ method, identityId: 'id-1', jwt: supply }),
    random: () => 0,
  });
  clients.push(c);
  return c;
}

describe('jwtLogin', () => {
  it.each(['kubernetes', 'jwt', 'oidc'] as const)(
    '%s: one login for many concurrent callers, at the method’s own route',
    async (method) => {
      const { agent, state } = fakeService({ method, accepted: new Set(['jwt-1']) });
      const { supply, calls } = rotatingSupplier();
      const c = client(agent, new ManualClock({ start: 1_700_000_000_000 }), supply, method);
      await Promise.all(Array.from({ length: 5 }, () => c.projects.get('p1')));
      expect(state.logins).toEqual(['jwt-1']);
      expect(calls).toEqual({ plain: 1, fresh: 0 });
      expect(state.bearers).toEqual(Array(5).fill('Bearer acc-1'));
    },
  );

  it('renews before expiry, and logs in again with a new JWT once the max TTL is reached', async () => {
    const { agent, state } = fakeService({ accepted: new Set(['jwt-1']), expiresIn: 10, maxTtl: 25 });
    const { supply, calls } = rotatingSupplier();
    const clock = new ManualClock({ start: 1_700_000_000_000 });
    const c = client(agent, clock, supply);
    await c.projects.get('p1');
    clock.advance(7_900);
    await c.projects.get('p1');
    expect(state.renewals).toBe(0);
    clock.advance(200); // past 80% of 10 s
    await c.projects.get('p1');
    expect(state.renewals).toBe(1);
    clock.advance(8_100); // a renewal now would pass the 25 s max TTL: a new login
    await c.projects.get('p1');
    expect(state.logins).toEqual(['jwt-1', 'jwt-1']);
    expect(calls.plain).toBe(2);
    expect(state.bearers).toEqual(['Bearer acc-1', 'Bearer acc-1', 'Bearer renewed-1', 'Bearer acc-2']);
  });

  it('asks once for a fresh JWT when the login answers 401, and uses it', async () => {
    const { agent, state } = fakeService({ accepted: new Set(['jwt-2']) });
    const { supply, calls } = rotatingSupplier();
    const c = client(agent, new ManualClock({ start: 1_700_000_000_000 }), supply);
    await c.projects.get('p1');
    expect(state.logins).toEqual(['jwt-1', 'jwt-2']);
    expect(calls).toEqual({ plain: 1, fresh: 1 });
    expect(state.bearers).toEqual(['Bearer acc-2']);
  });

  it('gives up after the fresh JWT is refused too, with the service’s message and no JWT', async () => {
    const { agent, state } = fakeService({ accepted: new Set() });
    const { supply, calls } = rotatingSupplier();
    const c = client(agent, new ManualClock({ start: 1_700_000_000_000 }), supply);
    const error = await c.projects.get('p1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as UnauthorizedError).serviceMessage).toBe('Access denied: K8s namespace not allowed.');
    expect(String((error as Error).message)).not.toMatch(/jwt-\d/);
    expect(JSON.stringify(error)).not.toMatch(/jwt-\d/);
    expect(state.logins).toEqual(['jwt-1', 'jwt-2']);
    expect(calls.fresh).toBe(1);
    expect(state.bearers).toEqual([]);
  });

  it('does not send the same JWT twice when the supplier has no fresher one', async () => {
    const { agent, state } = fakeService({ accepted: new Set() });
    const supply: JwtSupplier = () => Promise.resolve('jwt-same');
    const c = client(agent, new ManualClock({ start: 1_700_000_000_000 }), supply);
    await expect(c.projects.get('p1')).rejects.toBeInstanceOf(UnauthorizedError);
    expect(state.logins).toEqual(['jwt-same']);
  });

  it('passes a supplier failure through without logging in', async () => {
    const { agent, state } = fakeService({ accepted: new Set(['jwt-1']) });
    const supply: JwtSupplier = () => Promise.reject(new Error('cannot read the projected token'));
    const c = client(agent, new ManualClock({ start: 1_700_000_000_000 }), supply);
    await expect(c.projects.get('p1')).rejects.toThrow('cannot read the projected token');
    expect(state.logins).toEqual([]);
  });

  it('refuses an empty identity id', () => {
    expect(() => jwtLogin({ method: 'jwt', identityId: '', jwt: () => Promise.resolve('x') })).toThrow(
      'cannot use JWT auth: identityId is required',
    );
  });
});
