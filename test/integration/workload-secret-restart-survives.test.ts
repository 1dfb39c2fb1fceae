// A pending WorkloadSecret rollout restart survives an operator restart (real control plane,
// devserver over HTTP): a change of content is delivered and its restart recorded in
// status.pendingRestart; the operator stops before the debounce ends (nothing restarted yet); a
// new operator, with no memory of it, finds it in status and restarts each opted-in workload
// exactly once (one generation bump each), then clears it.
import { Writable } from 'node:stream';
import { AppsV1Api, type V1Deployment } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectController } from '../../src/controllers/project/index.ts';
import { startOperator, type RunningOperator } from '../../src/operator/start.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { waitFor } from '../support/kube.ts';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

let h: OperatorHarness;
let apps: AppsV1Api;
let second: RunningOperator | undefined;
let projectId = '';
const secondLog: string[] = [];
const connectionRef = { name: HARNESS_CONNECTION };
const RESTARTED_AT = 'coffer.dev/restarted-at';
/** Long enough for the operator to be stopped well inside it on a loaded machine. */
const DEBOUNCE = '20s';

interface Status {
  contentHash?: string;
  pendingRestart?: { contentHash: string; fromHash: string; notBefore: string };
  lastRestart?: { time: string; workloads: string[] };
}

function deployment(name: string, annotations: Record<string, string> = {}): V1Deployment {
  const labels = { app: name };
  const container = { name: 'app', image: 'registry.invalid/app:1' };
  return {
    metadata: { name, annotations },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [container] } },
    },
  };
}

async function read(name: string): Promise<V1Deployment> {
  return apps.readNamespacedDeployment({ namespace: h.namespace, name });
}

const restartedAt = async (name: string) =>
  (await read(name)).spec?.template?.metadata?.annotations?.[RESTARTED_AT];
const generation = async (name: string) => (await read(name)).metadata?.generation ?? 0;
const status = async () => ((await h.get('WorkloadSecret', 'app'))?.status ?? {}) as Status;

async function put(value: string): Promise<void> {
  await h.service.secrets.batchUpdate({
    workspaceId: projectId,
    environment: 'dev',
    secretPath: '/',
    mode: 'upsert',
    secrets: [{ secretKey: 'GREETING', secretValue: value }],
  });
}

function logger() {
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      secondLog.push(chunk.toString('utf8'));
      done();
    },
  });
  return createLogger({ level: 'debug', name: 'coffer', destination });
}

beforeAll(async () => {
  h = await startOperatorHarness({ operator: { kinds: [projectController] } });
  apps = h.kubeConfig.makeApiClient(AppsV1Api);
  projectId = await h.createDevProject('shop', 'Shop');
  await put('hello-1');
  const namespace = h.namespace;
  await apps.createNamespacedDeployment({ namespace, body: deployment('web') });
  await apps.createNamespacedDeployment({
    namespace,
    body: deployment('side', { 'coffer.dev/reload-secrets': 'app-config' }),
  });
  await h.create('WorkloadSecret', 'app', {
    connectionRef,
    sources: [{ projectRef: { name: 'shop' }, environment: 'dev' }],
    target: { secret: { name: 'app-config' } },
    rollout: { workloads: [{ kind: 'Deployment', name: 'web' }], debounce: DEBOUNCE },
    resyncInterval: '1h',
  });
  await h.waitForReady('WorkloadSecret', 'app', { timeoutMs: 60_000 });
}, 180_000);

afterAll(async () => {
  await second?.stop();
  await h?.stop();
});

/** Changes the content and waits until status records the restart pending for it. */
async function changeAndWaitForPending(): Promise<{ fromHash: string; notBefore: number }> {
  const firstHash = (await status()).contentHash;
  await put('hello-2');
  await waitFor(async () => (await h.readSecret('app-config'))?.GREETING === 'hello-2', {
    timeoutMs: 30_000,
    message: 'the new value in the target',
  });
  const pending = await waitFor(
    async () => {
      const s = await status();
      return s.pendingRestart?.contentHash === s.contentHash ? s.pendingRestart : undefined;
    },
    { timeoutMs: 30_000, message: 'status.pendingRestart for the new content' },
  );
  expect(pending.fromHash).toBe(firstHash);
  return { fromHash: pending.fromHash, notBefore: Date.parse(pending.notBefore) };
}

async function startSecondOperator(): Promise<void> {
  second = await startOperator({
    kubeConfig: h.kubeConfig,
    log: logger(),
    namespaces: h.namespaces,
    waitRequeueMs: 1_000,
    clientCloseDelayMs: 1_000,
    kinds: [projectController],
  });
  await second.ready;
}

describe('WorkloadSecret rollout restart across an operator restart', () => {
  it('is carried out once per workload by the next operator', async () => {
    const before = { web: await generation('web'), side: await generation('side') };
    const { notBefore } = await changeAndWaitForPending();
    expect(notBefore).toBeGreaterThan(Date.now());

    await h.operator.stop();
    // Stopped inside the debounce: nothing was restarted by the first operator.
    expect(notBefore).toBeGreaterThan(Date.now());
    expect(await restartedAt('web')).toBeUndefined();
    expect(await restartedAt('side')).toBeUndefined();

    await startSecondOperator();
    await waitFor(async () => (await restartedAt('web')) !== undefined, {
      timeoutMs: 120_000,
      message: 'the new operator to restart the named Deployment',
    });
    const last = await waitFor(
      async () => {
        const s = await status();
        return s.pendingRestart === undefined ? s.lastRestart : undefined;
      },
      { timeoutMs: 30_000, message: 'status.pendingRestart cleared and lastRestart recorded' },
    );
    expect(last.workloads).toEqual(['Deployment/side', 'Deployment/web']);
    expect(await restartedAt('web')).toBe(last.time);
    expect(await restartedAt('side')).toBe(last.time);
    // Exactly once each: one pod template change, not before notBefore.
    expect(await generation('web')).toBe(before.web + 1);
    expect(await generation('side')).toBe(before.side + 1);
    expect(Date.parse(last.time)).toBeGreaterThanOrEqual(notBefore);
    expect(secondLog.join('')).not.toContain('hello-2');
  }, 240_000);
});
