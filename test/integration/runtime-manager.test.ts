// The manager against the run's real kube-apiserver: controllers fed by informers (own objects,
// owned Secrets, referenced Secrets), /healthz and /readyz, /metrics, and leader election
// handover between two managers on a real Lease.
import {
  CoordinationV1Api,
  CoreV1Api,
  type KubeConfig,
  type V1ConfigMap,
  type V1Secret,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestsForOwner, requestsFromIndex } from '../../src/runtime/event-sources.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { kubeLeaseStore, type LeaseStore } from '../../src/runtime/lease-store.ts';
import { Manager, type LeaderElectionConfig, type ManagerExit } from '../../src/runtime/manager.ts';
import { OperatorMetrics } from '../../src/runtime/metrics.ts';
import type { Request } from '../../src/runtime/reconcile.ts';
import { clusterFromInjected, waitFor } from '../support/kube.ts';

const configMapsResource = { group: '', version: 'v1', plural: 'configmaps', namespaced: true } as const;
const log = createLogger({ level: 'silent' });
const loopback = { host: '127.0.0.1', port: 0 };
// Short timings keep the test quick; the assertions are about order, not speed.
const fastElection = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 250 };

let kc: KubeConfig;
let core: CoreV1Api;
let ns: string;
const running: { abort: AbortController; done: Promise<ManagerExit> }[] = [];

beforeAll(async () => {
  const cluster = clusterFromInjected();
  kc = cluster.kubeConfig();
  core = kc.makeApiClient(CoreV1Api);
  ns = await cluster.createNamespace();
});

afterAll(async () => {
  for (const r of running) r.abort.abort();
  await Promise.all(running.map((r) => r.done));
});

/** A manager with a ConfigMap controller that records every reconcile as `<tag> <name>`. */
function newManager(tag: string, reconciled: string[], leaderElection?: LeaderElectionConfig) {
  const manager = new Manager({
    kubeConfig: kc,
    log,
    metrics: new OperatorMetrics(),
    namespaces: [ns],
    metricsBindAddress: loopback,
    healthProbeBindAddress: loopback,
    leaderElection,
    gracefulShutdownTimeoutMs: 5_000,
  });
  const configMaps = manager.informer<V1ConfigMap>({ name: 'configmaps', resource: configMapsResource });
  configMaps.addIndex('secret', (o) =>
    o.data?.secretRef ? [`${o.metadata?.namespace}/${o.data.secretRef}`] : [],
  );
  const secrets = manager.informer<V1Secret>({
    name: 'secrets',
    resource: { group: '', version: 'v1', plural: 'secrets', namespaced: true },
    labelSelector: 'app.kubernetes.io/managed-by=coffer',
  });
  const controller = manager.controller({
    name: 'configmap',
    kind: 'ConfigMap',
    reconciler: (request: Request) => {
      reconciled.push(`${tag} ${request.name}`);
      return Promise.resolve({});
    },
  });
  controller.watches(configMaps);
  controller.watches(secrets, requestsForOwner({ group: '', kind: 'ConfigMap' }));
  controller.watches(secrets, requestsFromIndex(configMaps, 'secret'));
  return manager;
}

function run(manager: Manager) {
  const abort = new AbortController();
  const done = manager.run(abort.signal);
  running.push({ abort, done });
  return { abort, done };
}

async function get(port: number | undefined, path: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, body: await response.text() };
}

const managedLabels = { 'app.kubernetes.io/managed-by': 'coffer' };

describe('Manager', () => {
  it('reconciles own objects, owners of changed Secrets and users of referenced Secrets', async () => {
    const reconciled: string[] = [];
    const manager = newManager('m', reconciled);
    const { abort, done } = run(manager);
    await waitFor(() => manager.isLeader(), { message: 'controllers to start' });

    const owner = await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'owner' } },
    });
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'user' }, data: { secretRef: 'shared' } },
    });
    await waitFor(() => reconciled.includes('m owner') && reconciled.includes('m user'), {
      message: 'own objects',
    });

    reconciled.length = 0;
    await core.createNamespacedSecret({
      namespace: ns,
      body: {
        metadata: {
          name: 'owned',
          labels: managedLabels,
          ownerReferences: [
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: 'owner',
              uid: owner.metadata?.uid ?? '',
              controller: true,
            },
          ],
        },
        stringData: { k: 'v' },
      },
    });
    await waitFor(() => reconciled.includes('m owner'), { message: 'the owner of a new Secret' });
    reconciled.length = 0;
    await core.deleteNamespacedSecret({ namespace: ns, name: 'owned' });
    await waitFor(() => reconciled.includes('m owner'), { message: 'the owner of a deleted Secret' });

    reconciled.length = 0;
    await core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'shared', labels: managedLabels } },
    });
    await waitFor(() => reconciled.includes('m user'), { message: 'the user of a referenced Secret' });
    expect(reconciled).not.toContain('m owner');

    abort.abort();
    expect(await done).toBe('stopped');
  });

  it('serves /healthz, /readyz and /metrics', async () => {
    const reconciled: string[] = [];
    const manager = newManager('h', reconciled);
    // An informer on a resource that does not exist never syncs: the manager must not be ready.
    manager.informer({
      name: 'missing',
      resource: { group: 'example.invalid', version: 'v1', plural: 'nothings', namespaced: true },
    });
    manager.metrics.serviceRequest({ operation: 'createProject', status: 201, durationMs: 12 });
    manager.metrics.serviceRequest({ operation: 'createProject', status: 0, durationMs: 30_000 });
    const { abort, done } = run(manager);
    await waitFor(() => manager.ports.health, { message: 'the probe server' });
    const { health, metrics } = manager.ports;

    expect(await get(health, '/healthz')).toEqual({ status: 200, body: 'ok\n' });
    await waitFor(
      () =>
        manager.hasSynced() === false &&
        manager.informer({ name: 'configmaps', resource: configMapsResource }).hasSynced(),
      {
        message: 'the configmaps informer to sync',
      },
    );
    const notReady = await get(health, '/readyz');
    expect(notReady.status).toBe(500);
    expect(notReady.body).toContain('[-]informer:missing failed');
    expect(notReady.body).not.toContain('informer:configmaps');
    expect((await get(health, '/nope')).status).toBe(404);

    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'metered' } } });
    const text = (await get(metrics, '/metrics')).body;
    expect(text).toContain('coffer_informer_synced{informer="configmaps"} 1');
    expect(text).toContain('coffer_service_requests_total{operation="createProject",status="201"} 1');
    expect(text).toContain('coffer_service_requests_total{operation="createProject",status="error"} 1');
    expect(text).toContain('coffer_informer_restarts_total');
    expect(text).toContain('process_resident_memory_bytes');
    // Controllers wait for every informer, so with one never syncing nothing is reconciled.
    expect(reconciled).toEqual([]);
    abort.abort();
    await done;
  });

  it('reports reconciles, queue and ready state once synced', async () => {
    const reconciled: string[] = [];
    const manager = newManager('r', reconciled);
    const { abort, done } = run(manager);
    await waitFor(() => manager.ports.metrics, { message: 'servers' });
    const { health, metrics } = manager.ports;
    await waitFor(async () => (await get(health, '/readyz')).status === 200, { message: 'readiness' });
    await waitFor(() => reconciled.includes('r metered'), { message: 'a reconcile' });
    const text = (await get(metrics, '/metrics')).body;
    expect(text).toMatch(
      /coffer_reconcile_total\{controller="configmap",kind="ConfigMap",result="success"\} [1-9]/,
    );
    expect(text).toContain(
      'coffer_reconcile_duration_seconds_bucket{le="0.005",controller="configmap",kind="ConfigMap"}',
    );
    expect(text).toContain('coffer_workqueue_depth{name="configmap"}');
    expect(text).toContain('coffer_workqueue_queue_duration_seconds_count{name="configmap"}');
    abort.abort();
    await done;
  });
});

describe('Leader election between two managers', () => {
  const leaseName = 'runtime-test-leader';

  async function lease() {
    return kc.makeApiClient(CoordinationV1Api).readNamespacedLease({ name: leaseName, namespace: ns });
  }

  it('runs controllers only on the leader and hands over when it stops', async () => {
    const order: string[] = [];
    const reconciled: string[] = [];
    const election = (identity: string): LeaderElectionConfig => ({
      namespace: ns,
      name: leaseName,
      identity,
      ...fastElection,
    });
    const first = newManager('first', reconciled, election('first'));
    const a = run(first);
    await waitFor(() => first.isLeader(), { timeoutMs: 20_000, message: 'first to lead' });
    order.push('first leads');

    const second = newManager('second', reconciled, election('second'));
    const b = run(second);
    // Sampled throughout: the two managers must never run controllers at the same time.
    let bothLeading = false;
    const sampler = setInterval(() => {
      bothLeading ||= first.isLeader() && second.isLeader();
    }, 5);
    await waitFor(() => second.hasSynced(), { message: 'the standby cache' });
    const standbyReady = await get(second.ports.health, '/readyz');
    expect(standbyReady.status).toBe(200);
    expect(second.isLeader()).toBe(false);
    expect((await lease()).spec?.holderIdentity).toBe('first');

    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'during-first' } } });
    await waitFor(() => reconciled.includes('first during-first'), { message: 'first to reconcile' });
    expect(reconciled).not.toContain('second during-first');

    a.abort.abort();
    expect(await a.done).toBe('stopped');
    order.push('first stopped');
    await waitFor(() => second.isLeader(), { timeoutMs: 20_000, message: 'second to take over' });
    order.push('second leads');
    clearInterval(sampler);
    expect(order).toEqual(['first leads', 'first stopped', 'second leads']);
    expect(bothLeading).toBe(false);
    const held = await lease();
    expect(held.spec?.holderIdentity).toBe('second');
    expect(held.spec?.leaseTransitions).toBeGreaterThanOrEqual(1);

    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'during-second' } } });
    await waitFor(() => reconciled.includes('second during-second'), { message: 'second to reconcile' });
    expect(reconciled).not.toContain('first during-second');
    expect(await get(second.ports.metrics, '/metrics').then((r) => r.body)).toContain(
      `coffer_leader_election_status{name="${leaseName}"} 1`,
    );

    b.abort.abort();
    expect(await b.done).toBe('stopped');
    // A graceful stop releases the lease.
    expect((await lease()).spec?.holderIdentity ?? '').toBe('');
  });

  it('takes over from a leader that stopped renewing only after the lease expired', async () => {
    const name = 'runtime-test-crash';
    const reconciled: string[] = [];
    let crashed = false;
    let lastRenew = 0;
    const real = kubeLeaseStore(kc, ns, name);
    // A leader that can no longer reach the API server: its lease writes fail from `crashed` on.
    const unreachable: LeaseStore = {
      description: real.description,
      get: () => (crashed ? Promise.reject(new Error('connection refused')) : real.get()),
      create: async (r) => {
        const written = await real.create(r);
        lastRenew = written.record.renewTimeMs ?? 0;
        return written;
      },
      update: async (r, v) => {
        if (crashed) throw new Error('connection refused');
        const written = await real.update(r, v);
        lastRenew = written.record.renewTimeMs ?? 0;
        return written;
      },
    };
    const first = newManager('first', reconciled, {
      namespace: ns,
      name,
      identity: 'first',
      store: unreachable,
      ...fastElection,
    });
    const a = run(first);
    await waitFor(() => first.isLeader(), { timeoutMs: 20_000, message: 'first to lead' });
    const second = newManager('second', reconciled, {
      namespace: ns,
      name,
      identity: 'second',
      ...fastElection,
    });
    const b = run(second);
    await waitFor(() => second.hasSynced(), { message: 'the standby cache' });

    crashed = true;
    expect(await a.done).toBe('lost');
    await waitFor(() => second.isLeader(), { timeoutMs: 20_000, message: 'second to take over' });
    const acquired = (await real.get())?.record.acquireTimeMs ?? 0;
    expect(lastRenew).toBeGreaterThan(0);
    // The successor waited a full lease duration after the last renewal it saw.
    expect(acquired - lastRenew).toBeGreaterThanOrEqual(fastElection.leaseDurationMs);
    b.abort.abort();
    await b.done;
  });
});
