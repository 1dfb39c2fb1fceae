// The runtime informer against the run's real kube-apiserver: list+watch, handlers, indexes,
// label selectors and namespace subsets, on ConfigMaps in fresh namespaces.
import { CoreV1Api, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Informer } from '../../src/runtime/informer.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { clusterFromInjected, waitFor } from '../support/kube.ts';

const configMaps = { group: '', version: 'v1', plural: 'configmaps', namespaced: true } as const;
const log = createLogger({ level: 'silent' });

let kc: KubeConfig;
let core: CoreV1Api;
let nsA: string;
let nsB: string;
let nsC: string;
const started: Informer<V1ConfigMap>[] = [];

beforeAll(async () => {
  const cluster = clusterFromInjected();
  kc = cluster.kubeConfig();
  core = kc.makeApiClient(CoreV1Api);
  [nsA, nsB, nsC] = await Promise.all([
    cluster.createNamespace(),
    cluster.createNamespace(),
    cluster.createNamespace(),
  ]);
});

afterAll(async () => {
  await Promise.all(started.map((i) => i.stop()));
});

function configMap(
  namespace: string,
  name: string,
  data: Record<string, string>,
  labels?: Record<string, string>,
): V1ConfigMap {
  return { metadata: { name, namespace, labels }, data };
}

function startInformer(options: { namespaces?: string[]; labelSelector?: string } = {}) {
  const informer = new Informer<V1ConfigMap>({
    name: 'configmaps',
    kubeConfig: kc,
    resource: configMaps,
    log,
    ...options,
  });
  const events: string[] = [];
  informer.on('add', (o) => events.push(`add ${o.metadata?.namespace}/${o.metadata?.name}`));
  informer.on('update', (o) => events.push(`update ${o.metadata?.namespace}/${o.metadata?.name}`));
  informer.on('delete', (o) => events.push(`delete ${o.metadata?.namespace}/${o.metadata?.name}`));
  informer.addIndex('secret', (o) =>
    o.data?.secretRef ? [`${o.metadata?.namespace}/${o.data.secretRef}`] : [],
  );
  informer.start();
  started.push(informer);
  return { informer, events };
}

describe('Informer on a real API server', () => {
  it('lists existing objects, then follows creates, updates and deletes', async () => {
    await core.createNamespacedConfigMap({ namespace: nsA, body: configMap(nsA, 'before', { a: '1' }) });
    const { informer, events } = startInformer({ namespaces: [nsA] });
    await informer.waitForSync();
    expect(informer.get(nsA, 'before')?.data).toEqual({ a: '1' });
    expect(events).toContain(`add ${nsA}/before`);

    await core.createNamespacedConfigMap({ namespace: nsA, body: configMap(nsA, 'after', { b: '2' }) });
    await core.patchNamespacedConfigMap({
      namespace: nsA,
      name: 'before',
      body: [{ op: 'replace', path: '/data/a', value: 'changed' }],
    });
    await core.deleteNamespacedConfigMap({ namespace: nsA, name: 'after' });
    await waitFor(() => events.includes(`delete ${nsA}/after`), { message: 'the delete event' });
    expect(events.filter((e) => e.startsWith('add'))).toEqual([`add ${nsA}/before`, `add ${nsA}/after`]);
    expect(events).toContain(`update ${nsA}/before`);
    expect(informer.get(nsA, 'before')?.data).toEqual({ a: 'changed' });
    expect(informer.get(nsA, 'after')).toBeUndefined();
    // The cache holds objects as received, minus managedFields.
    expect(informer.get(nsA, 'before')?.metadata?.managedFields).toBeUndefined();
    expect(informer.restarts).toBe(0);
  });

  it('answers index queries as references change', async () => {
    const { informer } = startInformer({ namespaces: [nsB] });
    await informer.waitForSync();
    await core.createNamespacedConfigMap({
      namespace: nsB,
      body: configMap(nsB, 'user-1', { secretRef: 'creds' }),
    });
    await core.createNamespacedConfigMap({
      namespace: nsB,
      body: configMap(nsB, 'user-2', { secretRef: 'creds' }),
    });
    await core.createNamespacedConfigMap({
      namespace: nsB,
      body: configMap(nsB, 'user-3', { secretRef: 'other' }),
    });
    const users = () =>
      informer
        .byIndex('secret', `${nsB}/creds`)
        .map((o) => o.metadata?.name)
        .sort();
    await waitFor(() => users().length === 2, { message: 'two users of creds' });
    expect(users()).toEqual(['user-1', 'user-2']);
    await core.patchNamespacedConfigMap({
      namespace: nsB,
      name: 'user-2',
      body: [{ op: 'replace', path: '/data/secretRef', value: 'other' }],
    });
    await waitFor(() => users().length === 1, { message: 'user-2 to move to other' });
    expect(
      informer
        .byIndex('secret', `${nsB}/other`)
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(['user-2', 'user-3']);
  });

  it('watches only the given namespaces and only objects matching the label selector', async () => {
    const managed = { 'app.kubernetes.io/managed-by': 'coffer' };
    await core.createNamespacedConfigMap({ namespace: nsA, body: configMap(nsA, 'managed-a', {}, managed) });
    await core.createNamespacedConfigMap({ namespace: nsC, body: configMap(nsC, 'managed-c', {}, managed) });
    await core.createNamespacedConfigMap({ namespace: nsB, body: configMap(nsB, 'managed-b', {}, managed) });
    await core.createNamespacedConfigMap({ namespace: nsA, body: configMap(nsA, 'unmanaged-a', {}) });
    const { informer } = startInformer({
      namespaces: [nsA, nsC],
      labelSelector: 'app.kubernetes.io/managed-by=coffer',
    });
    await informer.waitForSync();
    await core.createNamespacedConfigMap({ namespace: nsC, body: configMap(nsC, 'managed-c2', {}, managed) });
    await core.createNamespacedConfigMap({ namespace: nsB, body: configMap(nsB, 'managed-b2', {}, managed) });
    await waitFor(() => informer.get(nsC, 'managed-c2'), { message: 'managed-c2 in the cache' });
    const names = informer
      .list()
      .map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`)
      .sort();
    expect(names).toEqual([`${nsA}/managed-a`, `${nsC}/managed-c`, `${nsC}/managed-c2`].sort());
    expect(informer.list(nsC)).toHaveLength(2);
  });

  it('watches all namespaces with one list+watch when no subset is given', async () => {
    const { informer } = startInformer();
    await informer.waitForSync();
    expect(informer.get(nsA, 'before')).toBeDefined();
    expect(informer.get(nsB, 'user-1')).toBeDefined();
    expect(informer.get(nsC, 'managed-c')).toBeDefined();
  });
});
