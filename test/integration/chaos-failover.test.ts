// Leader failover: two `coffer operator --leader-elect` processes with short Lease timings. Only
// the leader talks to the service (the standby's request counter stays at 0). SIGKILL the leader:
// mid-batch: the standby takes over once the Lease expires (the time is printed), finishes the
// work, and the devserver saw exactly one create per resource — no double writes.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectedControlPlane, waitFor } from '../support/kube.ts';
import { HARNESS_TOKEN_SECRET, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';
import {
  newProcessDir,
  removeProcessDir,
  startOperatorProcess,
  type OperatorProcess,
} from '../support/processes.ts';

const suffix = randomBytes(3).toString('hex');
const lease = { leaseDuration: '4s', renewDeadline: '3s', retryPeriod: '500ms' };
const leaseMs = 4_000;

let h: OperatorHarness;
let dir: string;
const replicas: OperatorProcess[] = [];

beforeAll(async () => {
  // CRDs, a namespace, a bootstrapped devserver and kube helpers; the in-process operator of the
  // harness runs no controllers: the replicas under test are the two child processes.
  h = await startOperatorHarness({ connection: false, operator: { kinds: [], directKinds: [] } });
  dir = newProcessDir('coffer-failover-');
  await h.createSecret(HARNESS_TOKEN_SECRET, { token: h.admin.token });
  await h.create('Connection', 'coffer', {
    url: h.url,
    auth: { token: { secretRef: { name: HARNESS_TOKEN_SECRET, key: 'token' } } },
  });
  for (const name of ['replica-a', 'replica-b']) {
    replicas.push(
      await startOperatorProcess({
        kubeconfigPath: injectedControlPlane().kubeconfigPath,
        dir,
        name,
        namespaces: [h.namespace],
        leaderElection: { namespace: h.namespace, id: `coffer-failover-${suffix}`, ...lease },
      }),
    );
  }
});

afterAll(async () => {
  for (const replica of replicas) await replica.kill();
  await h?.stop();
  if (dir) removeProcessDir(dir);
});

async function createProjects(prefix: string, count: number): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  for (const name of names) {
    await h.create('Project', name, {
      connectionRef: { name: 'coffer' },
      name,
      slug: `${name}-${suffix}`,
      environments: [{ name: 'Development', slug: 'dev' }],
    });
  }
  return names;
}

/** The replica that leads once exactly one does. */
async function leaderOf(candidates: readonly OperatorProcess[], timeoutMs: number): Promise<OperatorProcess> {
  return waitFor(
    async () => {
      const leading = [];
      for (const r of candidates) if (r.running && (await r.isLeader())) leading.push(r);
      return leading.length === 1 ? leading[0] : undefined;
    },
    { timeoutMs, intervalMs: 50, message: 'exactly one leader' },
  );
}

describe('leader failover', () => {
  let first: string[] = [];

  it('has one leader doing the work while the standby makes no service call', async () => {
    const leader = await leaderOf(replicas, 60_000);
    const standby = replicas.find((r) => r !== leader) as OperatorProcess;
    first = await createProjects('first', 10);
    for (const name of first) await h.waitForReady('Project', name, { timeoutMs: 60_000 });
    expect(await leader.metric('coffer_service_requests_total')).toBeGreaterThan(0);
    expect(await standby.metric('coffer_service_requests_total')).toBe(0);
    expect(await standby.isReady()).toBe(true);
  });

  it('fails over to the standby after SIGKILL, without double writes', async () => {
    const leader = await leaderOf(replicas, 10_000);
    const standby = replicas.find((r) => r !== leader) as OperatorProcess;
    // Kill while the leader is in the middle of creating the second batch.
    const posts = () => h.devserver.stats.requests.byRoute['POST /api/v2/workspace'] ?? 0;
    const second = await createProjects('second', 10);
    await waitFor(() => posts() > first.length, { timeoutMs: 30_000, intervalMs: 5, message: 'a create' });
    await leader.kill();
    const killedAt = Date.now();
    console.log(`[failover] leader killed after ${posts() - first.length} of ${second.length} creates`);
    await leaderOf([standby], 60_000);
    const takeoverMs = Date.now() - killedAt;
    console.log(
      `[failover] standby leads ${(takeoverMs / 1000).toFixed(1)} s after SIGKILL of the leader ` +
        `(lease ${leaseMs / 1000} s, retry ${lease.retryPeriod})`,
    );
    for (const name of second) await h.waitForReady('Project', name, { timeoutMs: 60_000 });
    // One project create and one environment create per resource, across both leaders: requests
    // of any outcome, so a second attempt refused by the service would count too.
    const requests = h.devserver.stats.requests.byRoute;
    expect(requests['POST /api/v2/workspace']).toBe(first.length + second.length);
    expect(requests['POST /api/v1/workspace/:projectId/environments']).toBe(first.length + second.length);
    for (const name of [...first, ...second]) {
      const obj = await h.get('Project', name);
      expect(obj?.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    }
  }, 180_000);
});
