// The generic managed reconciler run the production way: a Manager with informers (Widgets and
// Coffer-managed Secrets) feeding a Controller, against the real API server. Shows that the
// pieces converge on their own: create, repair of a deleted output Secret, a dependency becoming
// Ready, a forced reconcile, and deletion.
import { CoreV1Api, type KubeConfig, type V1Secret } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagedObject } from '../../src/managed/external-client.ts';
import { cacheReader, customObjectPatcher } from '../../src/managed/kube-objects.ts';
import { createManagedReconciler } from '../../src/managed/reconciler.ts';
import { getCondition } from '../../src/runtime/conditions.ts';
import {
  ignoreStatusOnlyUpdates,
  requestsForOwner,
  requestsFromIndex,
} from '../../src/runtime/event-sources.ts';
import { createEventRecorder, kubeEventsApi } from '../../src/runtime/events.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { Manager } from '../../src/runtime/manager.ts';
import { ANNOTATION_RECONCILE_REQUESTED_AT, LABEL_MANAGED_BY } from '../../src/runtime/object-meta.ts';
import { createSecretWriter } from '../../src/runtime/secret-writer.ts';
import { clusterFromInjected, waitFor } from '../support/kube.ts';
import { KubeWidgets } from '../support/managed-kube.ts';
import {
  FakeWidgetService,
  widgetAdapter,
  widgetCrd,
  widgetResource,
  widgetSpecSchema,
} from '../support/test-kind.ts';

type Widget = ManagedObject<unknown>;

const log = createLogger({ level: 'silent' });
let kc: KubeConfig;
let ns: string;
let api: KubeWidgets;
const service = new FakeWidgetService();
const stop = new AbortController();
let done: Promise<unknown> | undefined;

function startManager(): void {
  const manager = new Manager({
    kubeConfig: kc,
    log,
    namespaces: [ns],
    metricsBindAddress: null,
    healthProbeBindAddress: null,
  });
  const widgets = manager.informer<Widget>({ name: 'widgets', resource: widgetResource });
  widgets.addIndex('parent', (w) => {
    const parent = (w.spec as { parentRef?: { name?: string } } | undefined)?.parentRef?.name;
    return parent ? [`${w.metadata.namespace}/${parent}`] : [];
  });
  const secrets = manager.informer<V1Secret>({
    name: 'secrets',
    resource: { group: '', version: 'v1', plural: 'secrets', namespaced: true },
    labelSelector: `${LABEL_MANAGED_BY}=coffer`,
  });
  const core = kc.makeApiClient(CoreV1Api);
  const reader = cacheReader(widgets);
  const reconciler = createManagedReconciler({
    schema: widgetSpecSchema,
    adapter: widgetAdapter(service, reader),
    reader,
    patcher: customObjectPatcher<Widget>(kc, widgetResource),
    events: createEventRecorder({ api: kubeEventsApi(kc), component: 'coffer-test' }),
    secrets: createSecretWriter({ api: core }),
    defaultDeletionPolicy: 'Delete',
    waitRequeueMs: 500,
  });
  manager
    .controller({ name: 'widget', kind: 'Widget', reconciler, maxConcurrentReconciles: 2 })
    .watches(widgets, undefined, ignoreStatusOnlyUpdates)
    .watches(widgets, requestsFromIndex(widgets, 'parent'))
    .watches(secrets, requestsForOwner({ group: widgetResource.group, kind: 'Widget' }));
  done = manager.run(stop.signal);
}

beforeAll(async () => {
  const cluster = clusterFromInjected();
  await cluster.installCRDs([widgetCrd]);
  kc = cluster.kubeConfig();
  ns = await cluster.createNamespace();
  api = new KubeWidgets(kc, ns);
  startManager();
});

afterAll(async () => {
  stop.abort();
  await done;
});

const readyId = (name: string) =>
  waitFor(
    async () => {
      const obj = await api.get(name);
      return getCondition(obj?.status?.conditions, 'Ready')?.status === 'True' ? obj?.status?.id : undefined;
    },
    { timeoutMs: 20_000, message: `Widget ${name} to be Ready` },
  );

describe('managed reconciler under the controller', () => {
  it('creates, repairs a deleted output Secret, and deletes', async () => {
    await api.create('solo', { name: 'solo', outputSecretName: 'solo-out' });
    const id = await readyId('solo');
    const core = kc.makeApiClient(CoreV1Api);
    await waitFor(() => core.readNamespacedSecret({ namespace: ns, name: 'solo-out' }), {
      message: 'the output Secret',
    });

    await core.deleteNamespacedSecret({ namespace: ns, name: 'solo-out' });
    const repaired = await waitFor(() => core.readNamespacedSecret({ namespace: ns, name: 'solo-out' }), {
      timeoutMs: 20_000,
      message: 'the output Secret to be re-created',
    });
    expect(Buffer.from(repaired.data?.id ?? '', 'base64').toString()).toBe(id);

    await api.delete('solo');
    await waitFor(async () => (await api.get('solo')) === undefined, {
      timeoutMs: 20_000,
      message: 'Widget solo to go',
    });
    expect(service.widgets.has(id)).toBe(false);
    expect(service.writes().filter((w) => w === 'create solo')).toHaveLength(1);
  });

  it('creates a child as soon as its parent becomes Ready', async () => {
    await api.create('kid', { name: 'kid', parentRef: { name: 'mum' } });
    await waitFor(
      async () =>
        getCondition((await api.get('kid'))?.status?.conditions, 'Synced')?.reason === 'ReferenceNotReady',
      {
        message: 'the child to wait',
      },
    );
    await api.create('mum', { name: 'mum' });
    const parentId = await readyId('mum');
    const childId = await readyId('kid');
    expect(service.widgets.get(childId)?.parentId).toBe(parentId);
  });

  it('answers a reconcile request by recording the handled value', async () => {
    await api.create('poke', { name: 'poke' });
    await readyId('poke');
    await api.patch('poke', {
      metadata: { annotations: { [ANNOTATION_RECONCILE_REQUESTED_AT]: '2026-01-01T00:00:00Z' } },
    });
    await waitFor(
      async () => (await api.get('poke'))?.status?.lastHandledReconcileAt === '2026-01-01T00:00:00Z',
      {
        message: 'the handled reconcile request in status',
      },
    );
  });

  it('makes the resource the controlling owner of its output Secret (for garbage collection)', async () => {
    // The test control plane runs no garbage collector, so the owner reference itself is checked.
    await api.create('owned', { name: 'owned', outputSecretName: 'owned-out' });
    await readyId('owned');
    const core = kc.makeApiClient(CoreV1Api);
    const secret = await waitFor(() => core.readNamespacedSecret({ namespace: ns, name: 'owned-out' }));
    const owner = await api.get('owned');
    expect(secret.metadata?.ownerReferences?.[0]).toMatchObject({
      uid: owner?.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    });
  });
});
