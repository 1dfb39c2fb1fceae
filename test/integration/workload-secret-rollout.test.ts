// WorkloadSecret rollout restarts on the real control plane and a devserver over HTTP: a
// Deployment named in spec.rollout.workloads and one annotated coffer.dev/reload-secrets naming
// the target Secret get a pod template annotation bump (the API server raises their generation;
// rolling pods would need kube-controller-manager) on a real change of content, not on a read
// that finds the same content, and a burst of edits restarts them once (spec.rollout.debounce).
// A Deployment annotated for another Secret is never touched.
import { AppsV1Api, type V1Deployment } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectController } from '../../src/controllers/project/index.ts';
import { waitFor } from '../support/kube.ts';
import {
  HARNESS_CONNECTION,
  startOperatorHarness,
  type CofferObject,
  type OperatorHarness,
} from '../support/operator.ts';

let h: OperatorHarness;
let apps: AppsV1Api;
let projectId = '';
const connectionRef = { name: HARNESS_CONNECTION };
const RESTARTED_AT = 'coffer.dev/restarted-at';

function deployment(name: string, annotations: Record<string, string> = {}): V1Deployment {
  const labels = { app: name };
  return {
    metadata: { name, annotations },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: 'app',
              image: 'registry.invalid/app:1',
              envFrom: [{ secretRef: { name: 'app-config' } }],
            },
          ],
        },
      },
    },
  };
}

async function read(name: string): Promise<V1Deployment> {
  return apps.readNamespacedDeployment({ namespace: h.namespace, name });
}

const restartedAt = async (name: string) =>
  (await read(name)).spec?.template?.metadata?.annotations?.[RESTARTED_AT];
const generation = async (name: string) => (await read(name)).metadata?.generation ?? 0;

async function put(key: string, value: string): Promise<void> {
  await h.service.secrets.batchUpdate({
    workspaceId: projectId,
    environment: 'dev',
    secretPath: '/',
    mode: 'upsert',
    secrets: [{ secretKey: key, secretValue: value }],
  });
}

async function workloadSecret(): Promise<CofferObject | undefined> {
  return h.get('WorkloadSecret', 'app');
}

/**
 * Requests a reconcile of the WorkloadSecret and waits until its status records it handled. The
 * operator reconciles one key at a time, so every reconcile that had started before — with its
 * rollout decision, a pending restart recorded in `status.pendingRestart` or a restart done — is
 * finished and written by then.
 */
async function reconciledAfterwards(): Promise<CofferObject> {
  const requested = await h.requestReconcile('WorkloadSecret', 'app');
  const value = requested.metadata.annotations?.['coffer.dev/reconcile-requested-at'];
  return waitFor(
    async () => {
      const obj = await workloadSecret();
      return obj?.status?.lastHandledReconcileAt === value ? obj : undefined;
    },
    { timeoutMs: 30_000, message: 'the requested reconcile of the WorkloadSecret' },
  );
}

beforeAll(async () => {
  h = await startOperatorHarness({ operator: { kinds: [projectController] } });
  apps = h.kubeConfig.makeApiClient(AppsV1Api);
  projectId = await h.createDevProject('shop', 'Shop');
  await put('GREETING', 'hello-1');
  const namespace = h.namespace;
  await apps.createNamespacedDeployment({ namespace, body: deployment('web') });
  await apps.createNamespacedDeployment({
    namespace,
    body: deployment('side', { 'coffer.dev/reload-secrets': 'other, app-config' }),
  });
  await apps.createNamespacedDeployment({
    namespace,
    body: deployment('unrelated', { 'coffer.dev/reload-secrets': 'something-else' }),
  });
  await h.create('WorkloadSecret', 'app', {
    connectionRef,
    sources: [{ projectRef: { name: 'shop' }, environment: 'dev' }],
    target: { secret: { name: 'app-config' } },
    rollout: { workloads: [{ kind: 'Deployment', name: 'web' }], debounce: '4s' },
    resyncInterval: '1h',
  });
  await h.waitForReady('WorkloadSecret', 'app', { timeoutMs: 60_000 });
}, 180_000);

afterAll(async () => {
  await h?.stop();
});

describe('WorkloadSecret rollout restart', () => {
  it('restarts nothing on the first delivery nor on a read that finds the same content', async () => {
    expect((await h.readSecret('app-config'))?.GREETING).toBe('hello-1');
    const reads = () => h.devserver.stats.snapshot().requests.byRoute['GET /api/v3/secrets/raw'] ?? 0;
    const before = reads();
    // The same value written again: an event, a read, the same content.
    await put('GREETING', 'hello-1');
    await waitFor(() => reads() > before, { timeoutMs: 30_000, message: 'the WorkloadSecret to read again' });
    // Decided: a restart due later would be recorded as pending, one due now would be done.
    const after = await reconciledAfterwards();
    expect(after.status?.pendingRestart).toBeUndefined();
    expect(after.status?.lastRestart).toBeUndefined();
    expect(await restartedAt('web')).toBeUndefined();
    expect(await restartedAt('side')).toBeUndefined();
  }, 120_000);

  it('restarts the named and the annotated Deployment on a change, recording it in status', async () => {
    const before = { web: await generation('web'), side: await generation('side') };
    const previous = await restartedAt('web');
    await put('GREETING', 'hello-2');
    await waitFor(async () => (await restartedAt('web')) !== previous, { timeoutMs: 30_000 });
    await waitFor(async () => (await restartedAt('side')) === (await restartedAt('web')), {
      timeoutMs: 30_000,
    });
    expect(await generation('web')).toBe(before.web + 1);
    expect(await generation('side')).toBe(before.side + 1);
    const last = await waitFor(
      async () => {
        const status = (await workloadSecret())?.status as {
          lastRestart?: { time: string; workloads: string[] };
        };
        return status.lastRestart?.time === (await restartedAt('web')) ? status.lastRestart : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(last.workloads).toEqual(['Deployment/side', 'Deployment/web']);
    const template = (await read('web')).spec?.template?.metadata?.annotations ?? {};
    expect(Object.keys(template).sort()).toEqual(['coffer.dev/content-hash', RESTARTED_AT]);
    expect(await restartedAt('unrelated')).toBeUndefined();
  }, 120_000);

  it('restarts once for a burst of edits (debounce)', async () => {
    const before = { web: await generation('web'), side: await generation('side') };
    const previous = await restartedAt('web');
    for (let i = 0; i < 10; i += 1) await put('GREETING', `burst-${i}`);
    await waitFor(async () => (await h.readSecret('app-config'))?.GREETING === 'burst-9', {
      timeoutMs: 30_000,
    });
    await waitFor(async () => (await restartedAt('web')) !== previous, { timeoutMs: 60_000 });
    // Settled: the restart is recorded and none is pending, so no second one can follow without
    // a new change of content.
    const after = await reconciledAfterwards();
    expect(after.status?.pendingRestart).toBeUndefined();
    expect((after.status?.lastRestart as { time?: string } | undefined)?.time).toBe(await restartedAt('web'));
    expect(await generation('web')).toBe(before.web + 1);
    expect(await generation('side')).toBe(before.side + 1);
  }, 180_000);
});
