// WorkloadSecret instant updates on the real control plane and a devserver over HTTP: every
// WorkloadSecret reading a project shares its one event subscription; an edit in the service
// reaches the target Secret through an event (resyncInterval 1h: nothing else could explain it),
// only the WorkloadSecret reading the touched folder reads again, and at rest (within the resync
// interval) nothing reads the service. A source folder deleted in the service (which sends no
// event for that) is noticed at the next event the project's stream delivers, and without any
// event within one resync interval (a folder check per stream and environment). With events
// unavailable (the service refuses a 6th stream of the same identity, 429) the resource falls
// back to its resync interval. Reads are counted with the devserver's stats.
// The two suites each have their own devserver, operator and namespace (so neither sees the
// other's reads) and run at the same time; the tests inside a suite run in order.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventSubscription } from '../../src/client/index.ts';
import { projectController } from '../../src/controllers/project/index.ts';
import { waitForOperatorIdle } from '../support/idle.ts';
import { waitFor } from '../support/kube.ts';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

const connectionRef = { name: HARNESS_CONNECTION };
const ids: Record<string, string> = {};
const folders = ['alpha', 'beta', 'gamma'] as const;
const LIST = 'GET /api/v3/secrets/raw';
const inOrder = { concurrent: false } as const;

async function project(h: OperatorHarness, name: string): Promise<string> {
  await h.create('Project', name, {
    connectionRef,
    name,
    slug: `${name}-${randomBytes(3).toString('hex')}`,
    environments: [{ name: 'Development', slug: 'dev' }],
    deletionPolicy: 'Delete',
  });
  return (await h.waitForReady('Project', name)).status?.id ?? '';
}

/** Writes `VALUE=value` into the project's `secretPath` in the service. */
async function put(
  h: OperatorHarness,
  projectName: string,
  secretPath: string,
  value: string,
): Promise<void> {
  await h.service.secrets.batchUpdate({
    workspaceId: ids[projectName] ?? '',
    environment: 'dev',
    secretPath,
    mode: 'upsert',
    secrets: [{ secretKey: 'VALUE', secretValue: value }],
  });
}

/** Source reads (secret lists) the devserver answered so far. */
function reads(h: OperatorHarness): number {
  return h.devserver.stats.snapshot().requests.byRoute[LIST] ?? 0;
}

/**
 * Waits until the operator is idle (streams opened, the rereads they cause and the folder checks
 * after events done, nothing due within `horizonMs`): see test/support/idle.ts.
 */
async function settled(h: OperatorHarness, horizonMs?: number): Promise<void> {
  await waitForOperatorIdle(h.operator, { horizonMs, timeoutMs: 120_000 });
}

function workloadSecret(projectName: string, secretPath: string, resyncInterval: string) {
  return {
    connectionRef,
    sources: [{ projectRef: { name: projectName }, environment: 'dev', secretPath }],
    target: { secret: {} },
    resyncInterval,
  };
}

/** A harness whose Connections and Projects do not poll the service during the test. */
function startQuietHarness(): Promise<OperatorHarness> {
  return startOperatorHarness({
    devserver: { enableAdmin: true },
    operator: { kinds: [projectController], defaultPollIntervalMs: 3_600_000 },
  });
}

describe('WorkloadSecret events (shared project subscription)', { concurrent: true }, () => {
  let h: OperatorHarness;
  beforeAll(async () => {
    h = await startQuietHarness();
    ids.live = await project(h, 'live');
    for (const name of folders) {
      await h.service.folders.create({ projectId: ids.live, environment: 'dev', path: '/', name });
      await put(h, 'live', `/${name}`, `${name}-1`);
    }
    for (const name of folders)
      await h.create('WorkloadSecret', name, workloadSecret('live', `/${name}`, '1h'));
    for (const name of folders) await h.waitForReady('WorkloadSecret', name, { timeoutMs: 60_000 });
  }, 180_000);

  afterAll(async () => {
    await h?.stop();
  });

  it(
    'delivers an edit through the event, and only the WorkloadSecret reading that folder reads again',
    { ...inOrder, timeout: 180_000 },
    async () => {
      await settled(h);
      const before = reads(h);
      await put(h, 'live', '/beta', 'beta-2');
      await waitFor(async () => (await h.readSecret('beta'))?.VALUE === 'beta-2', {
        timeoutMs: 30_000,
        message: 'the edit to reach the target Secret',
      });
      await settled(h);
      expect(reads(h) - before).toBe(1);
      expect((await h.readSecret('alpha'))?.VALUE).toBe('alpha-1');
      expect((await h.readSecret('gamma'))?.VALUE).toBe('gamma-1');
    },
  );

  // Every resource of the project resyncs every hour, so its stream's folder check is hourly too.
  it(
    'reads nothing from the service at rest (within the resync interval)',
    { ...inOrder, timeout: 120_000 },
    async () => {
      await settled(h);
      const before = h.devserver.stats.snapshot().requests.total;
      const listsBefore = reads(h);
      // Nothing is due within a minute: no poll, resync, folder check or reconnect (each would
      // keep the operator from being idle, and read).
      await settled(h, 60_000);
      expect(reads(h) - listsBefore).toBe(0);
      expect(h.devserver.stats.snapshot().requests.total - before).toBe(0);
    },
  );

  it(
    'notices a source folder deleted in the service at the next event of the project (SourceNotFound), leaving the target',
    { ...inOrder, timeout: 180_000 },
    async () => {
      await h.service.folders.create({
        projectId: ids.live ?? '',
        environment: 'dev',
        path: '/',
        name: 'doomed',
      });
      await put(h, 'live', '/doomed', 'doomed-1');
      await h.create('WorkloadSecret', 'doomed', workloadSecret('live', '/doomed', '1h'));
      await h.waitForReady('WorkloadSecret', 'doomed', { timeoutMs: 60_000 });
      await settled(h);
      // Over the devserver's HTTP API, as any client would; the service sends no event for it.
      await h.service.folders.delete('doomed', {
        projectId: ids.live ?? '',
        environment: 'dev',
        path: '/',
        forceDelete: true,
      });
      // The next change the project's stream delivers (an edit of another folder) is followed by
      // one folder list, which no longer shows /doomed.
      await put(h, 'live', '/alpha', 'alpha-2');
      const doomed = await h.waitForCondition(
        'WorkloadSecret',
        'doomed',
        { type: 'Synced', status: 'False', reason: 'SourceNotFound' },
        { timeoutMs: 30_000 },
      );
      expect(doomed.status?.conditions?.find((c) => c.type === 'Synced')?.message).toContain('/doomed');
      expect(await h.readSecret('doomed')).toEqual({ VALUE: 'doomed-1' });
      expect((await h.readSecret('alpha'))?.VALUE).toBe('alpha-2');
    },
  );

  it(
    'notices a source folder deleted in the service with no event following within one resyncInterval (SourceNotFound)',
    { ...inOrder, timeout: 180_000 },
    async () => {
      // A project of its own: its stream opens with this WorkloadSecret (so no event of the setup
      // reaches it) and checks its folders every 30 s.
      const projectId = (ids.still = await project(h, 'still'));
      await h.service.folders.create({ projectId, environment: 'dev', path: '/', name: 'bare' });
      await put(h, 'still', '/bare', 'bare-1');
      await h.create('WorkloadSecret', 'bare', workloadSecret('still', '/bare', '30s'));
      await h.waitForReady('WorkloadSecret', 'bare', { timeoutMs: 60_000 });
      await settled(h);
      await h.service.folders.delete('bare', { projectId, environment: 'dev', path: '/', forceDelete: true });
      // No change follows: only the stream's folder check, due at most 30 s after the stream
      // opened, can show that /bare is gone.
      const bare = await h.waitForCondition(
        'WorkloadSecret',
        'bare',
        { type: 'Synced', status: 'False', reason: 'SourceNotFound' },
        { timeoutMs: 45_000 },
      );
      expect(bare.status?.conditions?.find((c) => c.type === 'Synced')?.message).toContain('/bare');
      expect(await h.readSecret('bare')).toEqual({ VALUE: 'bare-1' });
    },
  );
});

describe('WorkloadSecret events refused (resync fallback)', { concurrent: true }, () => {
  let h: OperatorHarness;
  const held: EventSubscription[] = [];
  beforeAll(async () => {
    h = await startQuietHarness();
    ids.crowded = await project(h, 'crowded');
    await put(h, 'crowded', '/', 'crowded-1');
    // The harness Connection uses the same identity: with 5 streams held, the service refuses a 6th.
    const register = [{ event: 'secret:update' as const }];
    for (let i = 0; i < 5; i += 1)
      held.push(await h.service.events.subscribe({ projectId: ids.crowded, register }));
  }, 180_000);

  afterAll(async () => {
    for (const stream of held) stream.close();
    await h?.stop();
  });

  it(
    'falls back to the resync interval while the service refuses the event stream',
    { ...inOrder, timeout: 300_000 },
    async () => {
      // Nothing else reads this suite's devserver: no need to wait for quiet first.
      await h.create('WorkloadSecret', 'crowded', workloadSecret('crowded', '/', '30s'));
      await h.waitForReady('WorkloadSecret', 'crowded', { timeoutMs: 60_000 });
      const windowStart = reads(h);
      await put(h, 'crowded', '/', 'crowded-2');
      // No event can come: the edit arrives with the next resync (30 s, at most 10% jitter).
      await waitFor(async () => (await h.readSecret('crowded'))?.VALUE === 'crowded-2', {
        timeoutMs: 60_000,
        intervalMs: 500,
        message: 'the resync to deliver the edit',
      });
      const resyncedAt = Date.now();
      expect(reads(h) - windowStart).toBe(1);
      // And no more than the configured rate: once idle, the next resync is 27–33 s after this one
      // (30 s, at most 10% jitter; seen here up to a second after it), and nothing read meanwhile.
      const idle = await waitForOperatorIdle(h.operator, { horizonMs: 20_000 });
      const next = (idle.wakeups['workqueue:workloadsecret'] ?? 0) - resyncedAt;
      expect(next).toBeGreaterThanOrEqual(26_000);
      expect(next).toBeLessThanOrEqual(33_000);
      expect(reads(h) - windowStart).toBe(1);
    },
  );
});
