import { describe, expect, it } from 'vitest';
import { ManualClock } from '../runtime/clock.ts';
import { createClientCache } from './client-cache.ts';

interface FakeClient {
  readonly id: number;
  closed: boolean;
}

function setup(closeDelayMs = 1_000) {
  const clock = new ManualClock();
  const closed: number[] = [];
  let built = 0;
  const cache = createClientCache<FakeClient>({
    clock,
    closeDelayMs,
    close: (client) => {
      client.closed = true;
      closed.push(client.id);
    },
  });
  const build = () => Promise.resolve({ id: ++built, closed: false });
  return { clock, closed, cache, build, builds: () => built };
}

const key = (credentialVersion: string, connection = 'Connection/ns/main') => ({
  connection,
  credentialVersion,
});

describe('client cache', () => {
  it('builds once for concurrent callers with the same key', async () => {
    const t = setup();
    let release!: () => void;
    const slow = () =>
      new Promise<FakeClient>((resolve) => {
        release = () => resolve({ id: 42, closed: false });
      });
    const first = t.cache.get(key('1'), slow);
    const second = t.cache.get(key('1'), t.build);
    release();
    expect(await first).toBe(await second);
    expect(t.builds()).toBe(0);
  });

  it.each([
    {
      reason: 'the same credential version reuses the client',
      next: '1',
      connection: 'Connection/ns/main',
      builds: 1,
    },
    { reason: 'a new credential version rebuilds', next: '2', connection: 'Connection/ns/main', builds: 2 },
    {
      reason: 'another connection gets its own client',
      next: '1',
      connection: 'Connection/ns/other',
      builds: 2,
    },
  ])('$reason', async ({ next, connection, builds }) => {
    const t = setup();
    await t.cache.get(key('1'), t.build);
    await t.cache.get(key(next, connection), t.build);
    expect(t.builds()).toBe(builds);
  });

  it('closes a replaced client after the grace period', async () => {
    const t = setup(1_000);
    const old = await t.cache.get(key('1'), t.build);
    await t.cache.get(key('2'), t.build);
    await Promise.resolve();
    expect(old.closed).toBe(false);
    t.clock.advance(1_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.closed).toEqual([1]);
    expect(t.cache.size).toBe(1);
  });

  it('does not cache a failed build', async () => {
    const t = setup();
    await expect(t.cache.get(key('1'), () => Promise.reject(new Error('bad credentials')))).rejects.toThrow(
      'bad credentials',
    );
    expect(t.cache.size).toBe(0);
    expect((await t.cache.get(key('1'), t.build)).id).toBe(1);
  });

  it('invalidates a connection and closes everything on shutdown', async () => {
    const t = setup(60_000);
    await t.cache.get(key('1'), t.build);
    await t.cache.get(key('1', 'Connection/ns/b'), t.build);
    t.cache.invalidate('Connection/ns/main');
    expect(t.cache.size).toBe(1);
    await t.cache.close();
    expect(t.closed.sort()).toEqual([1, 2]);
    expect(t.cache.size).toBe(0);
  });

  it('peeks at the current client without building or retiring', async () => {
    const t = setup();
    expect(t.cache.peek('Connection/ns/main')).toBeUndefined();
    const client = await t.cache.get(key('1'), t.build);
    expect(await t.cache.peek('Connection/ns/main')).toBe(client);
    expect(t.builds()).toBe(1);
    t.clock.advance(5_000);
    expect(t.closed).toEqual([]);
    t.cache.invalidate('Connection/ns/main');
    expect(t.cache.peek('Connection/ns/main')).toBeUndefined();
  });
});
