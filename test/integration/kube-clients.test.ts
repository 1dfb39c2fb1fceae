// The operator's plain-JSON stand-ins for client-node's typed clients (src/runtime/kube-clients.ts)
// and its Lease store, against the run's real kube-apiserver: the same calls answer the same
// objects, a failure carries its HTTP status under `code` as client-node's ApiException does, and
// a Lease written with MicroTime fields is accepted and read back to the millisecond.
import type { KubeConfig } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { kubernetesStatus } from '../../src/runtime/errors.ts';
import { plainCoreApi, plainCustomObjectsApi } from '../../src/runtime/kube-clients.ts';
import { kubeRequest } from '../../src/runtime/kube-request.ts';
import { kubeLeaseStore, LeaseConflictError } from '../../src/runtime/lease-store.ts';
import { clusterFromInjected } from '../support/kube.ts';

let kc: KubeConfig;
let namespace: string;

beforeAll(async () => {
  const cluster = clusterFromInjected();
  kc = cluster.kubeConfig();
  namespace = await cluster.createNamespace();
});

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('plainCoreApi', () => {
  it('creates, reads, replaces and deletes a Secret; a missing one fails with code 404', async () => {
    const core = plainCoreApi(kc);
    const created = await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'plain' }, data: { key: b64('one') } },
    });
    expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);
    const read = await core.readNamespacedSecret({ namespace, name: 'plain' });
    expect(read.data).toEqual({ key: b64('one') });
    expect(typeof read.metadata?.creationTimestamp).toBe('string');
    const replaced = await core.replaceNamespacedSecret({
      namespace,
      name: 'plain',
      body: { ...read, data: { key: b64('two') } },
    });
    expect(replaced.data).toEqual({ key: b64('two') });
    await core.deleteNamespacedSecret({ namespace, name: 'plain' });
    const missing = await core.readNamespacedSecret({ namespace, name: 'plain' }).catch((e: unknown) => e);
    expect((missing as { code?: unknown }).code).toBe(404);
    expect(kubernetesStatus(missing)).toBe(404);
  });

  it('reads a ConfigMap', async () => {
    const core = plainCoreApi(kc);
    const body = { metadata: { name: 'settings' }, data: { mode: 'fast' } };
    await kubeRequest(kc, { method: 'POST', path: `/api/v1/namespaces/${namespace}/configmaps`, body });
    expect((await core.readNamespacedConfigMap({ namespace, name: 'settings' })).data).toEqual({
      mode: 'fast',
    });
  });
});

describe('plainCustomObjectsApi', () => {
  // Any group's objects go through these calls; a Lease stands in (no CRDs in this cluster).
  it('creates, gets and replaces an object; a stale replace fails with code 409', async () => {
    const api = plainCustomObjectsApi(kc);
    const at = { group: 'coordination.k8s.io', version: 'v1', namespace, plural: 'leases' };
    type Lease = { metadata: { name: string; resourceVersion?: string }; spec: { holderIdentity?: string } };
    const body: Lease = { metadata: { name: 'plain-object' }, spec: { holderIdentity: 'a' } };
    const created = (await api.createNamespacedCustomObject({ ...at, body })) as Lease;
    const got = (await api.getNamespacedCustomObject({ ...at, name: 'plain-object' })) as Lease;
    expect(got.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    const replaced = (await api.replaceNamespacedCustomObject({
      ...at,
      name: 'plain-object',
      body: { ...got, spec: { holderIdentity: 'b' } },
    })) as Lease;
    expect(replaced.spec.holderIdentity).toBe('b');
    const conflict: unknown = await api
      .replaceNamespacedCustomObject({
        ...at,
        name: 'plain-object',
        body: { ...got, spec: { holderIdentity: 'c' } },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(kubernetesStatus(conflict)).toBe(409);
  });
});

describe('kubeLeaseStore', () => {
  it('creates and updates a Lease with microsecond times; a stale update is a LeaseConflictError', async () => {
    const store = kubeLeaseStore(kc, namespace, 'plain-lease');
    expect(await store.get()).toBeUndefined();
    const record = {
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTimeMs: 1_700_000_000_123,
      renewTimeMs: 1_700_000_000_456,
      leaseTransitions: 0,
    };
    const created = await store.create(record);
    expect(created.record).toEqual(record);
    const renewed = await store.update({ ...record, renewTimeMs: 1_700_000_001_789 }, created.version);
    expect((await store.get())?.record.renewTimeMs).toBe(1_700_000_001_789);
    await expect(store.update(record, created.version)).rejects.toBeInstanceOf(LeaseConflictError);
    expect(renewed.version).not.toBe(created.version);
  });
});
