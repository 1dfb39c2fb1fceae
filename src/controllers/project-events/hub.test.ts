// The project event hub against a fake events API (stream lifecycle; with a fake folder list and
// fake timers, the periodic folder checks) and a devserver on loopback (real Server-Sent Events,
// refusals).
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startContract, type Contract } from '../../../test/support/client-contract.ts';
import { waitFor } from '../../../test/support/wait-for.ts';
import type { EventSubscription, ServiceClient, SseFrame, SubscribeInput } from '../../client/index.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import type { Request } from '../../runtime/reconcile.ts';
import { ProjectEventHub, type Hit, type HubOptions } from './hub.ts';

const log = pino({ level: 'silent' });
const fast = { debounceMs: 10, minBackoffMs: 10, maxBackoffMs: 40, pruneIntervalMs: 60_000 };

function resource(name: string): ManagedObject<unknown> {
  return {
    apiVersion: 'coffer.dev/v1alpha1',
    kind: 'SecretBatch',
    metadata: { name, namespace: 'ns', uid: `uid-${name}` },
    spec: {},
  };
}

/** A fake events API: each subscribe opens a stream the test can feed, counted while open. */
class FakeEvents {
  open = 0;
  maxOpen = 0;
  readonly subscribed: SubscribeInput[] = [];
  readonly feeds: ((frame: SseFrame | 'end') => void)[] = [];
  refuse: Error | undefined;

  subscribe(input: SubscribeInput, options: { signal?: AbortSignal } = {}): Promise<EventSubscription> {
    if (this.refuse) return Promise.reject(this.refuse);
    this.subscribed.push(input);
    this.open += 1;
    this.maxOpen = Math.max(this.maxOpen, this.open);
    const queue: (SseFrame | 'end')[] = [];
    let wake: (() => void) | undefined;
    this.feeds.push((frame) => {
      queue.push(frame);
      wake?.();
    });
    const signal = options.signal;
    signal?.addEventListener('abort', () => wake?.());
    const done = () => {
      this.open -= 1;
    };
    return Promise.resolve({
      close: () => undefined,
      async *[Symbol.asyncIterator]() {
        try {
          for (;;) {
            if (signal?.aborted) return;
            const next = queue.shift();
            if (next === 'end') return;
            if (next) yield next;
            else await new Promise<void>((resolve) => (wake = resolve));
          }
        } finally {
          done();
        }
      },
    });
  }

  /** Sends a frame on the newest stream. */
  send(frame: SseFrame | 'end'): void {
    this.feeds.at(-1)?.(frame);
  }
}

function update(env: string, path: string, key: string): SseFrame {
  const data = {
    type: 'secret-manager',
    data: { eventType: 'secret:update', payload: [{ environment: env, secretPath: path, secretKeys: key }] },
  };
  return { event: 'secret:update', data: JSON.stringify(data) };
}

interface Rig {
  hub: ProjectEventHub;
  enqueued: Request[][];
  stop: AbortController;
}

function rig(client: ServiceClient, extra: Partial<HubOptions> = {}): Rig {
  const enqueued: Request[][] = [];
  const hub = new ProjectEventHub({
    enqueue: (requests) => enqueued.push([...requests]),
    connectionFor: () => Promise.resolve({ client, key: 'Connection/ns/c' }),
    exists: () => Promise.resolve(true),
    log,
    timing: fast,
    ...extra,
  });
  const stop = new AbortController();
  return { hub, enqueued, stop };
}

function interest(client: ServiceClient, projectId: string, where: string, keys = ['K']) {
  const [environment = '', secretPath = '/'] = where.split(':');
  return { connection: { client, key: 'Connection/ns/c' }, projectId, environment, secretPath, keys };
}

const stops: AbortController[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop.abort();
});

describe('ProjectEventHub (fake events API)', () => {
  it('keeps one stream per project, reopening it (never two at once) when registrations change', async () => {
    const events = new FakeEvents();
    const client = { events } as unknown as ServiceClient;
    const { hub, enqueued, stop } = rig(client);
    stops.push(stop);
    hub.register(resource('a'), interest(client, 'p1', 'dev:/a'));
    hub.start(stop.signal);
    await waitFor(() => hub.stateOf('Connection/ns/c', 'p1')?.state === 'Active', { timeoutMs: 2000 });
    expect(enqueued.flat().map((r) => r.name)).toContain('a');
    hub.register(resource('b'), interest(client, 'p1', 'dev:/b'));
    hub.register(resource('c'), interest(client, 'p1', 'prod:/'));
    await waitFor(() => events.subscribed.at(-1)?.register.length === 9, { timeoutMs: 2000 });
    expect(events.maxOpen).toBe(1);
    expect(hub.streamCount).toBe(1);
    hub.register(resource('d'), interest(client, 'p2', 'dev:/'));
    await waitFor(() => hub.streamCount === 2 && events.open === 2, { timeoutMs: 2000 });
  });

  it('enqueues only the resources whose folder and keys an event touches', async () => {
    const events = new FakeEvents();
    const client = { events } as unknown as ServiceClient;
    const { hub, enqueued, stop } = rig(client);
    stops.push(stop);
    hub.register(resource('a'), interest(client, 'p1', 'dev:/a', ['A1']));
    hub.register(resource('b'), interest(client, 'p1', 'dev:/b', ['B1']));
    hub.start(stop.signal);
    await waitFor(() => events.open === 1, { timeoutMs: 2000 });
    enqueued.length = 0;
    events.send(update('dev', '/a', 'OTHER'));
    events.send(update('dev', '/b', 'B1'));
    events.send({ event: 'ping' });
    await waitFor(() => enqueued.length > 0, { timeoutMs: 2000 });
    expect(enqueued).toEqual([[{ namespace: 'ns', name: 'b' }]]);
  });

  it('does not enqueue a resource for the echo of its own announced write, but for the next change', async () => {
    const events = new FakeEvents();
    const client = { events } as unknown as ServiceClient;
    const { hub, enqueued, stop } = rig(client);
    stops.push(stop);
    hub.register(resource('a'), interest(client, 'p1', 'dev:/a', ['A1', 'A2']));
    hub.register(resource('b'), interest(client, 'p1', 'dev:/a', ['A2']));
    hub.start(stop.signal);
    await waitFor(() => hub.stateOf('Connection/ns/c', 'p1')?.state === 'Active', { timeoutMs: 2000 });
    enqueued.length = 0;
    hub.expectOwnWrite(resource('a'), ['A1', 'A2']);
    events.send(update('dev', '/a', 'A1'));
    events.send(update('dev', '/a', 'A2'));
    events.send(update('dev', '/a', 'A1'));
    await waitFor(() => enqueued.length === 2, { timeoutMs: 2000 });
    // b shares key A2 (someone else's write for it); a's second A1 change is not its echo.
    expect(enqueued).toEqual([[{ namespace: 'ns', name: 'b' }], [{ namespace: 'ns', name: 'a' }]]);
    expect(hub.echoesIgnored).toBe(2);
  });

  it('expects no echo after a failed write or while no stream covers the folder', async () => {
    const events = new FakeEvents();
    const client = { events } as unknown as ServiceClient;
    const { hub, enqueued, stop } = rig(client);
    stops.push(stop);
    hub.register(resource('a'), interest(client, 'p1', 'dev:/a', ['A1']));
    hub.expectOwnWrite(resource('a'), ['A1']); // not started: no stream, nothing recorded
    hub.start(stop.signal);
    await waitFor(() => hub.stateOf('Connection/ns/c', 'p1')?.state === 'Active', { timeoutMs: 2000 });
    enqueued.length = 0;
    events.send(update('dev', '/a', 'A1'));
    await waitFor(() => enqueued.length === 1, { timeoutMs: 2000 });
    hub.expectOwnWrite(resource('a'), ['A1']);
    hub.forgetOwnWrite(resource('a'));
    events.send(update('dev', '/a', 'A1'));
    await waitFor(() => enqueued.length === 2, { timeoutMs: 2000 });
    expect(hub.echoesIgnored).toBe(0);
  });

  it('reconnects after the stream ends and closes it when the last resource goes', async () => {
    const events = new FakeEvents();
    const client = { events } as unknown as ServiceClient;
    const { hub, stop } = rig(client);
    stops.push(stop);
    hub.register(resource('a'), interest(client, 'p1', 'dev:/'));
    hub.start(stop.signal);
    await waitFor(() => events.open === 1, { timeoutMs: 2000 });
    events.send('end');
    await waitFor(() => events.subscribed.length === 2 && events.open === 1, { timeoutMs: 2000 });
    hub.unregister(resource('a'));
    await waitFor(() => events.open === 0, { timeoutMs: 2000 });
    expect(hub.streamCount).toBe(0);
  });

  it('tells when it next acts on its own: now while a stream connects, nothing once it is open', async () => {
    const events = new FakeEvents();
    const client = { events } as unknown as ServiceClient;
    const { hub, stop } = rig(client);
    stops.push(stop);
    hub.register(resource('a'), interest(client, 'p1', 'dev:/'));
    expect(hub.nextScheduledAt()).toBeUndefined(); // not started
    hub.start(stop.signal);
    expect(hub.nextScheduledAt()).toBeLessThanOrEqual(Date.now());
    await waitFor(() => events.open === 1 && hub.nextScheduledAt() === undefined, { timeoutMs: 2000 });
  });

  it('stops its streams when the background stops and resumes them on a later start', async () => {
    const events = new FakeEvents();
    const client = { events } as unknown as ServiceClient;
    const { hub, stop } = rig(client);
    hub.register(resource('a'), interest(client, 'p1', 'dev:/'));
    hub.start(stop.signal);
    await waitFor(() => events.open === 1, { timeoutMs: 2000 });
    stop.abort();
    await waitFor(() => events.open === 0, { timeoutMs: 2000 });
    const again = new AbortController();
    stops.push(again);
    hub.start(again.signal);
    await waitFor(() => events.open === 1 && events.subscribed.length === 2, { timeoutMs: 2000 });
  });

  it('forgets resources that disappeared from the cache', async () => {
    const events = new FakeEvents();
    const client = { events } as unknown as ServiceClient;
    const { hub, stop } = rig(client, { exists: (request) => Promise.resolve(request.name !== 'gone') });
    stops.push(stop);
    hub.register(resource('gone'), interest(client, 'p1', 'dev:/'));
    hub.start(stop.signal);
    await waitFor(() => events.open === 1, { timeoutMs: 2000 });
    await hub.prune();
    await waitFor(() => events.open === 0, { timeoutMs: 2000 });
  });
});

describe('ProjectEventHub (devserver)', () => {
  let contract: Contract;
  beforeAll(async () => {
    contract = await startContract();
  });
  afterAll(async () => contract.close());

  it('enqueues a resource when its key changes in the service', async () => {
    const project = await contract.project();
    const { hub, enqueued, stop } = rig(contract.admin);
    stops.push(stop);
    hub.register(resource('a'), interest(contract.admin, project.id, 'dev:/', ['WATCHED']));
    hub.start(stop.signal);
    await waitFor(() => hub.stateOf('Connection/ns/c', project.id)?.state === 'Active', { timeoutMs: 5000 });
    enqueued.length = 0;
    const where = { workspaceId: project.id, environment: 'dev', secretPath: '/' };
    await contract.admin.secrets.create('UNRELATED', { ...where, secretValue: 'x' });
    await contract.admin.secrets.create('WATCHED', { ...where, secretValue: 'y' });
    await waitFor(() => enqueued.length > 0, { timeoutMs: 5000 });
    expect(enqueued).toEqual([[{ namespace: 'ns', name: 'a' }]]);
  });

  it('reports Unavailable (TooManyStreams) when the service refuses another stream, and enqueues for the status', async () => {
    const project = await contract.project();
    const register = [{ event: 'secret:update' as const }];
    const held = await Promise.all(
      [1, 2, 3, 4, 5].map(() => contract.admin.events.subscribe({ projectId: project.id, register })),
    );
    try {
      const { hub, enqueued, stop } = rig(contract.admin);
      stops.push(stop);
      hub.register(resource('a'), interest(contract.admin, project.id, 'dev:/'));
      hub.start(stop.signal);
      await waitFor(() => hub.stateOf('Connection/ns/c', project.id)?.state === 'Unavailable', {
        timeoutMs: 10_000,
      });
      expect(hub.stateOf('Connection/ns/c', project.id)?.reason).toBe('TooManyStreams');
      expect(enqueued.flat()).toEqual([{ namespace: 'ns', name: 'a' }]);
    } finally {
      for (const stream of held) stream.close();
    }
  });
});

describe('ProjectEventHub: several interests per resource (WorkloadSecret)', () => {
  it('matches recursive folders and any key, and hands the hit interests to wake', async () => {
    const events = new FakeEvents();
    const client = { events } as unknown as ServiceClient;
    const woken: { name: string; slot: number }[] = [];
    const { hub, enqueued, stop } = rig(client, {
      wake: (hits) => woken.push(...hits.map((h) => ({ name: h.request.name, slot: h.slot }))),
    });
    stops.push(stop);
    const any = { keys: [], anyKey: true };
    hub.registerAll(resource('w'), [
      { ...interest(client, 'p1', 'dev:/app'), ...any, recursive: true },
      { ...interest(client, 'p1', 'prod:/'), ...any },
    ]);
    hub.registerAll(resource('x'), [{ ...interest(client, 'p1', 'dev:/app'), ...any }]);
    hub.start(stop.signal);
    await waitFor(() => events.open === 1, { timeoutMs: 2000 });
    expect(hub.coveringEpoch('Connection/ns/c', 'p1', { environment: 'dev', secretPath: '/app/db' })).toBe(1);
    enqueued.length = 0;
    events.send(update('dev', '/app/db', 'ANY'));
    events.send(update('prod', '/', 'OTHER'));
    events.send(update('dev', '/application', 'K'));
    await waitFor(() => woken.length === 2, { timeoutMs: 2000 });
    expect(woken).toEqual([
      { name: 'w', slot: 0 },
      { name: 'w', slot: 1 },
    ]);
    expect(enqueued.flat()).toEqual([]);
  });

  it('drops the interests a resource no longer registers, and all of them on unregister', async () => {
    const events = new FakeEvents();
    const client = { events } as unknown as ServiceClient;
    const { hub, stop } = rig(client);
    stops.push(stop);
    hub.registerAll(resource('w'), [interest(client, 'p1', 'dev:/'), interest(client, 'p2', 'dev:/')]);
    hub.start(stop.signal);
    await waitFor(() => hub.streamCount === 2 && events.open === 2, { timeoutMs: 2000 });
    hub.registerAll(resource('w'), [interest(client, 'p1', 'dev:/')]);
    await waitFor(() => hub.streamCount === 1 && events.open === 1, { timeoutMs: 2000 });
    hub.unregister(resource('w'));
    await waitFor(() => hub.streamCount === 0 && events.open === 0, { timeoutMs: 2000 });
  });
});

describe('ProjectEventHub: folder checks while a stream is open (fake timers)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  /** A fake folder list: `/a` exists in every environment; each call is recorded. */
  function folderApi() {
    const lists: string[] = [];
    const list = (query: { projectId: string; environment: string }) => {
      lists.push(`${query.projectId}:${query.environment}`);
      return Promise.resolve([{ id: 'a', name: 'a', parentId: 'root' }]);
    };
    return { lists, folders: { list } };
  }

  it('lists each environment of each open stream once per its shortest resyncMs, and nothing for a stream not open', async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0); // no jitter
    const events = new FakeEvents();
    const { lists, folders } = folderApi();
    const client = { events, folders } as unknown as ServiceClient;
    const gone: Hit[] = [];
    const timing = { ...fast, minBackoffMs: 300_000, maxBackoffMs: 300_000 };
    const { hub, stop } = rig(client, { folderGone: (hits) => gone.push(...hits), timing });
    stops.push(stop);
    const any = { keys: [], anyKey: true };
    hub.registerAll(resource('a'), [
      { ...interest(client, 'p1', 'dev:/a'), ...any, resyncMs: 120_000 },
      { ...interest(client, 'p1', 'prod:/'), ...any, resyncMs: 120_000 },
    ]);
    hub.register(resource('b'), { ...interest(client, 'p1', 'dev:/b'), ...any, resyncMs: 60_000 });
    hub.register(resource('c'), { ...interest(client, 'p2', 'dev:/a'), ...any }); // default: 10 min
    await vi.advanceTimersByTimeAsync(900_000);
    expect(lists).toEqual([]); // not started: no stream, no check

    hub.start(stop.signal);
    await vi.advanceTimersByTimeAsync(0);
    expect(events.open).toBe(2);
    await vi.advanceTimersByTimeAsync(600_000);
    const count = (stream: string) => lists.filter((l) => l.startsWith(stream)).length;
    // p1: every 60 s (b's interval), dev and prod once each; p2: once in 10 min.
    expect(count('p1:dev')).toBe(10);
    expect(count('p1:prod')).toBe(10);
    expect(lists.filter((l) => l.startsWith('p2'))).toEqual(['p2:dev']);
    expect(new Set(gone.map((h) => `${h.request.name}#${h.slot}`))).toEqual(new Set(['b#0']));

    // p1's stream breaks (reconnecting 5 min later), p2's last resource goes: no check meanwhile.
    const p1 = events.subscribed.findIndex((input) => input.projectId === 'p1');
    events.feeds[p1]?.('end');
    hub.unregister(resource('c'));
    await vi.advanceTimersByTimeAsync(299_000);
    expect(events.open).toBe(0);
    expect(lists).toHaveLength(21);
    // p1 reopens: one period later, its folders are checked again.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(events.open).toBe(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(lists.slice(21).sort()).toEqual(['p1:dev', 'p1:prod']);
    stop.abort();
    await vi.advanceTimersByTimeAsync(600_000);
    expect(lists).toHaveLength(23);
  });
});
