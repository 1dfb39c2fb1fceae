// Folder checks after events: folder paths from a recursive list, when a stream's check runs, and
// a hub with `folderGone` against a devserver on loopback (a folder deleted in the service is
// reported after the next event the stream delivers; nothing is listed while no event comes).
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startContract, type Contract } from '../../../test/support/client-contract.ts';
import { waitFor } from '../../../test/support/wait-for.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import { FolderCheckSchedule, folderPaths, goneFolders } from './folder-check.ts';
import { ProjectEventHub, type Hit } from './hub.ts';

describe('folderPaths', () => {
  it('builds every path from ids, parents and names (the listed root left out)', () => {
    const folders = [
      { id: 'c', name: 'creds', parentId: 'b' },
      { id: 'a', name: 'app', parentId: 'root' },
      { id: 'b', name: 'db', parentId: 'a' },
      { id: 'd', name: 'other', parentId: 'root' },
    ];
    expect([...folderPaths(folders)].sort()).toEqual(['/app', '/app/db', '/app/db/creds', '/other']);
  });

  it('ends on an answer that is not a tree', () => {
    const loop = [
      { id: 'a', name: 'a', parentId: 'b' },
      { id: 'b', name: 'b', parentId: 'a' },
    ];
    expect(folderPaths(loop).size).toBeGreaterThan(0);
  });
});

describe('goneFolders', () => {
  it('lists each environment once and returns the watched folders it does not show', async () => {
    const asked: string[] = [];
    const watched = [
      { environment: 'dev', secretPath: '/app', name: 'a' },
      { environment: 'dev', secretPath: '/', name: 'b' },
      { environment: 'prod', secretPath: '/app', name: 'c' },
      { environment: 'dev', secretPath: '/gone', name: 'd' },
    ];
    const gone = await goneFolders(watched, (environment) => {
      asked.push(environment);
      return Promise.resolve((path: string) => path === '/' || (environment === 'dev' && path === '/app'));
    });
    expect(asked).toEqual(['dev', 'prod']);
    expect(gone.map((w) => w.name)).toEqual(['d', 'c']);
  });
});

describe('FolderCheckSchedule', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const timing = (folderCheckDelayMs: number, folderCheckIntervalMs: number) => ({
    folderCheckDelayMs,
    folderCheckIntervalMs,
    folderCheckPeriodMs: 600_000,
  });

  it('runs once per burst after the delay, and once more after the interval for events during a run', async () => {
    vi.useFakeTimers();
    let release: (() => void) | undefined;
    const runs: number[] = [];
    const run = () => {
      runs.push(Date.now());
      return new Promise<void>((resolve) => (release = resolve));
    };
    const schedule = new FolderCheckSchedule({ run, periodOf: () => 60_000 }, timing(1_000, 10_000));
    const start = Date.now();
    expect(schedule.nextDueAt()).toBeUndefined();
    schedule.touch('s');
    schedule.touch('s');
    expect(schedule.nextDueAt()).toBe(start + 1_000);
    await vi.advanceTimersByTimeAsync(999);
    expect(runs).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toEqual([start + 1_000]);
    expect(schedule.nextDueAt()).toBe(Date.now()); // a check runs now
    schedule.touch('s'); // during the run: one more check after it
    schedule.touch('s');
    await vi.advanceTimersByTimeAsync(500);
    release?.();
    await vi.advanceTimersByTimeAsync(9_999);
    expect(runs).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toEqual([start + 1_000, start + 11_500]);
    release?.();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(runs).toHaveLength(2);
    expect(schedule.nextDueAt()).toBeUndefined(); // no stream open: no periodic check
  });

  it('runs nothing for a stream it was told to forget', async () => {
    vi.useFakeTimers();
    const run = vi.fn(() => Promise.resolve());
    const schedule = new FolderCheckSchedule({ run, periodOf: () => 100 }, timing(10, 10));
    schedule.touch('s');
    schedule.forget('s');
    schedule.touch('t');
    schedule.opened('u');
    schedule.stop();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(run).not.toHaveBeenCalled();
  });

  /** A schedule whose jitter is `jitter` (0: none, 1: the whole 10%), recording when each stream's check ran. */
  function periodic(periodOf: (key: string) => number, jitter = 0) {
    const runs: [string, number][] = [];
    const run = (key: string) => {
      runs.push([key, Date.now()]);
      return Promise.resolve();
    };
    const schedule = new FolderCheckSchedule({ run, periodOf }, timing(1_000, 10_000), {
      random: () => jitter,
    });
    return { runs, schedule, at: (key: string) => runs.filter(([k]) => k === key).map(([, t]) => t) };
  }

  it('checks each open stream once per period, none before it opens or after it closes', async () => {
    vi.useFakeTimers();
    const { runs, schedule, at } = periodic((key) => (key === 's' ? 60_000 : 30_000));
    const start = Date.now();
    await vi.advanceTimersByTimeAsync(600_000);
    expect(runs).toEqual([]); // no stream open, no check (and no timer)
    expect(vi.getTimerCount()).toBe(0);
    schedule.opened('s');
    schedule.opened('t');
    await vi.advanceTimersByTimeAsync(180_000);
    const open = start + 600_000;
    expect(at('s')).toEqual([open + 60_000, open + 120_000, open + 180_000]);
    expect(at('t')).toEqual([1, 2, 3, 4, 5, 6].map((i) => open + i * 30_000));
    schedule.closed('s'); // reconnecting: its resources are read again when it reopens
    schedule.forget('t'); // no resource uses it any more
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(600_000);
    expect(runs).toHaveLength(9);
    schedule.opened('s');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(at('s').at(-1)).toBe(open + 840_000);
  });

  it('takes up to 10% off the period, never adds to it', async () => {
    vi.useFakeTimers();
    const { schedule, at } = periodic(() => 100_000, 1);
    const start = Date.now();
    schedule.opened('s');
    await vi.advanceTimersByTimeAsync(180_000);
    expect(at('s')).toEqual([start + 90_000, start + 180_000]);
  });

  it('counts the period from the last check, whether events or the period asked for it', async () => {
    vi.useFakeTimers();
    const { schedule, at } = periodic(() => 60_000);
    const start = Date.now();
    schedule.opened('s');
    await vi.advanceTimersByTimeAsync(40_000);
    schedule.touch('s'); // a burst of events: a check 1 s later, and the next period from its end
    await vi.advanceTimersByTimeAsync(100_000);
    expect(at('s')).toEqual([start + 41_000, start + 101_000]);
  });

  it('comes sooner when a resource asks for a shorter period, never sooner than the interval', async () => {
    vi.useFakeTimers();
    const { schedule, at } = periodic(() => 600_000);
    const start = Date.now();
    schedule.opened('s');
    schedule.periodAtMost('s', 600_000); // no change
    await vi.advanceTimersByTimeAsync(20_000);
    schedule.periodAtMost('s', 30_000);
    schedule.periodAtMost('t', 30_000); // not open: nothing
    await vi.advanceTimersByTimeAsync(10_000);
    expect(at('s')).toEqual([start + 30_000]);
    schedule.periodAtMost('s', 1); // at most once per folderCheckIntervalMs
    await vi.advanceTimersByTimeAsync(10_000);
    expect(at('s')).toEqual([start + 30_000, start + 40_000]);
    expect(at('t')).toEqual([]);
  });
});

describe('ProjectEventHub with folderGone (devserver)', () => {
  let contract: Contract;
  beforeAll(async () => {
    contract = await startContract();
  });
  afterAll(async () => contract.close());

  function resource(name: string): ManagedObject<unknown> {
    const metadata = { name, namespace: 'ns', uid: `uid-${name}` };
    return { apiVersion: 'coffer.dev/v1alpha1', kind: 'WorkloadSecret', metadata, spec: {} };
  }

  const folderLists = () => contract.dev.stats.snapshot().requests.byRoute['GET /api/v2/folders'] ?? 0;

  it('reports a deleted folder after the next event, listing each environment once', async () => {
    const { id: projectId } = await contract.project();
    const admin = contract.admin;
    for (const name of ['app', 'other']) await admin.folders.create({ projectId, environment: 'dev', name });
    const write = (secretPath: string, key: string) =>
      admin.secrets.create(key, { workspaceId: projectId, environment: 'dev', secretPath, secretValue: 'v' });
    await write('/app', 'A');
    const gone: Hit[] = [];
    const woken: Hit[] = [];
    const hub = new ProjectEventHub({
      enqueue: () => undefined,
      connectionFor: () => Promise.resolve({ client: admin, key: 'Connection/ns/c' }),
      exists: () => Promise.resolve(true),
      log: pino({ level: 'silent' }),
      timing: { debounceMs: 10, folderCheckDelayMs: 50, folderCheckIntervalMs: 50 },
      wake: (hits) => woken.push(...hits),
      folderGone: (hits) => gone.push(...hits),
    });
    const connection = { client: admin, key: 'Connection/ns/c' };
    const watch = (environment: string, secretPath: string) => ({
      connection,
      projectId,
      environment,
      secretPath,
      keys: [],
      anyKey: true,
    });
    hub.registerAll(resource('w'), [watch('dev', '/app'), watch('prod', '/')]);
    hub.registerAll(resource('x'), [watch('dev', '/other')]);
    const stop = new AbortController();
    try {
      hub.start(stop.signal);
      await waitFor(
        () =>
          hub.coveringEpoch('Connection/ns/c', projectId, { environment: 'dev', secretPath: '/other' }) !==
          undefined,
        { timeoutMs: 5_000 },
      );
      const before = folderLists();
      await admin.folders.delete('app', { projectId, environment: 'dev', path: '/', forceDelete: true });
      // The deletion sends no event, so nothing is checked yet; the next event is the signal.
      expect(folderLists()).toBe(before);
      await write('/other', 'B');
      await waitFor(() => gone.length > 0, { timeoutMs: 5_000 });
      expect(gone).toEqual([{ request: { namespace: 'ns', name: 'w' }, slot: 0 }]);
      expect(woken).toEqual([{ request: { namespace: 'ns', name: 'x' }, slot: 0 }]);
      expect(folderLists() - before).toBe(2);
    } finally {
      stop.abort();
    }
  });
});
