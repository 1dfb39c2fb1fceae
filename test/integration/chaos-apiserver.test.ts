// API server faults: the operator runs against its own control plane whose kube-apiserver is
// restarted under it (twice). Watches break; the informers must notice, relist and watch again.
// Changes made while the operator's watches are down — a new Project, a spec edit, a deletion —
// are all applied afterwards: no event is lost.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import {
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { group, version } from '../../src/api/v1alpha1/index.ts';
import { createServiceClient, staticToken, type ServiceClient } from '../../src/client/index.ts';
import { startDevServer, type DevServer } from '../../src/devserver/server.ts';
import { startOperator, type RunningOperator } from '../../src/operator/start.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { OperatorMetrics } from '../../src/runtime/metrics.ts';
import { startControlPlane, type ControlPlane } from '../support/control-plane.ts';
import { waitFor } from '../support/kube.ts';
import { sumMetric } from '../support/processes.ts';

let plane: ControlPlane;
let kc: KubeConfig;
let custom: CustomObjectsApi;
let devserver: DevServer;
let service: ServiceClient;
let operator: RunningOperator;
let namespace: string;
const metrics = new OperatorMetrics();
const logLines: string[] = [];

const projects = { group, version, plural: 'projects' };
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

function projectSpec(name: string, description = 'before'): Record<string, unknown> {
  return {
    connectionRef: { name: 'coffer' },
    name,
    slug: `${name}-slug`,
    description,
    deletionPolicy: 'Delete',
    environments: [{ name: 'Development', slug: 'dev' }],
  };
}

async function createProject(name: string): Promise<void> {
  const body = {
    apiVersion: `${group}/${version}`,
    kind: 'Project',
    metadata: { name },
    spec: projectSpec(name),
  };
  await custom.createNamespacedCustomObject({ ...projects, namespace, body });
}

type Obj = { status?: { id?: string; conditions?: { type: string; status: string }[] } };

async function getProject(name: string): Promise<Obj | undefined> {
  try {
    return (await custom.getNamespacedCustomObject({ ...projects, namespace, name })) as Obj;
  } catch {
    return undefined;
  }
}

async function waitReady(name: string): Promise<Obj> {
  return waitFor(
    async () => {
      const obj = await getProject(name);
      return obj?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
        ? obj
        : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 250, message: `Project ${name} to be Ready` },
  );
}

async function bootstrap(): Promise<string> {
  const anonymous = createServiceClient({ baseUrl: devserver.url });
  try {
    const result = await anonymous.admin.bootstrap({
      email: 'admin@example.com',
      password: 'chaos-apiserver-password',
      organization: 'Chaos',
    });
    return result.identity.credentials.token;
  } finally {
    await anonymous.close();
  }
}

beforeAll(async () => {
  plane = await startControlPlane();
  kc = plane.kubeConfig();
  custom = kc.makeApiClient(CustomObjectsApi);
  const crdDir = join(import.meta.dirname, '..', '..', 'crds');
  await plane.installCRDs(readdirSync(crdDir).map((file) => join(crdDir, file)));
  namespace = await plane.createNamespace();
  devserver = await startDevServer({ port: 0 });
  const token = await bootstrap();
  service = createServiceClient({ baseUrl: devserver.url, auth: staticToken(token) });
  const log = createLogger({
    level: 'info',
    name: 'coffer',
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    }),
  });
  operator = await startOperator({
    kubeConfig: kc,
    log,
    namespaces: [namespace],
    metrics,
    waitRequeueMs: 1_000,
  });
  await operator.ready;
  await kc
    .makeApiClient(CoreV1Api)
    .createNamespacedSecret({ namespace, body: { metadata: { name: 'token' }, stringData: { token } } });
  const connection = {
    apiVersion: `${group}/${version}`,
    kind: 'Connection',
    metadata: { name: 'coffer' },
    spec: { url: devserver.url, auth: { token: { secretRef: { name: 'token', key: 'token' } } } },
  };
  await custom.createNamespacedCustomObject({
    group,
    version,
    plural: 'connections',
    namespace,
    body: connection,
  });
}, 180_000);

afterAll(async () => {
  await operator?.stop();
  await service?.close();
  await devserver?.close();
  await plane?.stop();
});

describe('kube-apiserver restarts', () => {
  it('applies a create, an edit and a deletion made while the watches were down', async () => {
    await createProject('before');
    await createProject('doomed');
    const before = await waitReady('before');
    const doomed = await waitReady('doomed');
    const restartsBefore = sumMetric(await metrics.text(), 'coffer_informer_restarts_total');

    await plane.restartApiServer();
    // Right away: the operator's watches are broken and reconnecting with backoff.
    await createProject('during');
    await custom.patchNamespacedCustomObject(
      { ...projects, namespace, name: 'before', body: { spec: { description: 'after the restart' } } },
      mergePatch,
    );
    await custom.deleteNamespacedCustomObject({ ...projects, namespace, name: 'doomed' });

    await waitReady('during');
    await waitFor(
      async () => (await service.projects.get(before.status?.id ?? '')).description === 'after the restart',
      {
        timeoutMs: 120_000,
        message: 'the edit to reach the service',
      },
    );
    await waitFor(async () => (await getProject('doomed')) === undefined, {
      timeoutMs: 120_000,
      message: 'Project doomed to be deleted',
    });
    await expect(service.projects.get(doomed.status?.id ?? '')).rejects.toMatchObject({ status: 404 });
    const restarts = sumMetric(await metrics.text(), 'coffer_informer_restarts_total') - restartsBefore;
    console.log(`[chaos] kube-apiserver restart: ${restarts} informer restarts, every change applied`);
    // The watches really broke (and were restarted), so the changes above crossed an outage.
    expect(restarts).toBeGreaterThan(0);
  }, 300_000);

  it('recovers again from a second restart', async () => {
    await plane.restartApiServer();
    await createProject('second');
    await waitReady('second');
    expect(logLines.join('')).not.toContain('"level":"fatal"');
  }, 300_000);
});
