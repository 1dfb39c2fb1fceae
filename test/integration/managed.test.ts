// The generic managed reconciler against the real kube-apiserver, with the Widget test kind and
// an in-memory fake service: finalizers, annotations, status subresource, owned Secrets, Events
// and optimistic concurrency as the API server really implements them.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ANNOTATION_CREATE_PENDING,
  ANNOTATION_EXTERNAL_ID,
  ANNOTATION_PAUSED,
  FINALIZER,
  LABEL_MANAGED_BY,
} from '../../src/runtime/object-meta.ts';
import { clusterFromInjected, statusCodeOf } from '../support/kube.ts';
import { KubeWidgets, type Widget } from '../support/managed-kube.ts';
import { widget, widgetCrd, widgetResource } from '../support/test-kind.ts';
import { markInStatus } from '../../src/managed/create-mark.ts';
import { customObjectPatcher } from '../../src/managed/kube-objects.ts';
import { ConflictError } from '../../src/runtime/errors.ts';

let widgets: KubeWidgets;

beforeAll(async () => {
  const cluster = clusterFromInjected();
  await cluster.installCRDs([widgetCrd]);
  widgets = new KubeWidgets(cluster.kubeConfig(), await cluster.createNamespace());
});

describe('managed reconciler on a real API server', () => {
  it('creates the external object, records its id, and writes Ready status once', async () => {
    await widgets.create('create', { name: 'create-me', size: 2 });
    const outcome = await widgets.settle('create');
    expect(outcome.result?.requeueAfterMs).toBeGreaterThanOrEqual(600_000);
    const obj = await widgets.get('create');
    const id = obj?.metadata.annotations?.[ANNOTATION_EXTERNAL_ID];
    expect(id).toMatch(/^w-\d+$/);
    expect(obj?.metadata.annotations?.[ANNOTATION_CREATE_PENDING]).toBeUndefined();
    expect(obj?.metadata.finalizers).toEqual([FINALIZER]);
    expect(obj?.status).toMatchObject({ id, observedGeneration: 1, size: 2 });
    expect(await widgets.condition('create', 'Ready')).toMatchObject({ status: 'True', reason: 'Available' });
    expect(widgets.service.writes()).toEqual(['create create-me']);

    const version = obj?.metadata.resourceVersion;
    await widgets.reconcile('create');
    expect((await widgets.get('create'))?.metadata.resourceVersion).toBe(version);
    const events = await widgets.events('create');
    expect(events.map((e) => [e.type, e.reason, e.message])).toEqual([
      ['Normal', 'CreatedExternal', `created external object ${id}`],
    ]);
  });

  it('adopts an existing object named by the external-id annotation', async () => {
    const id = widgets.service.insert({ name: 'adopt-me', size: 1 });
    await widgets.create('adopt', { name: 'adopt-me' }, { [ANNOTATION_EXTERNAL_ID]: id });
    await widgets.settle('adopt');
    expect(widgets.service.writes().filter((w) => w.includes('adopt-me'))).toEqual([]);
    expect((await widgets.get('adopt'))?.status?.id).toBe(id);
    expect((await widgets.events('adopt')).map((e) => e.reason)).toEqual(['AdoptedExternal']);
  });

  it('corrects drift made in the service and applies spec changes', async () => {
    await widgets.create('drift', { name: 'drift-me', size: 3 });
    await widgets.settle('drift');
    const id = (await widgets.get('drift'))!.status!.id!;
    widgets.service.widgets.get(id)!.size = 99;
    await widgets.settle('drift');
    expect(widgets.service.widgets.get(id)?.size).toBe(3);

    await widgets.patch('drift', { spec: { size: 4 } });
    await widgets.settle('drift');
    expect(widgets.service.widgets.get(id)?.size).toBe(4);
    const obj = await widgets.get('drift');
    expect(obj?.status).toMatchObject({ observedGeneration: 2, size: 4 });
    expect(await widgets.condition('drift', 'Synced')).toMatchObject({
      status: 'True',
      observedGeneration: 2,
    });
    expect((await widgets.events('drift')).filter((e) => e.reason === 'UpdatedExternal')).toHaveLength(2);
  });

  it.each([
    { reason: 'Delete removes the external object', deletionPolicy: 'Delete', remains: false },
    { reason: 'Orphan leaves it in the service', deletionPolicy: 'Orphan', remains: true },
  ])('deletion: $reason and the resource goes away', async ({ deletionPolicy, remains }) => {
    const name = `delete-${deletionPolicy.toLowerCase()}`;
    await widgets.create(name, { name, deletionPolicy });
    await widgets.settle(name);
    const id = (await widgets.get(name))!.status!.id!;
    await widgets.delete(name);
    expect((await widgets.get(name))?.metadata.deletionTimestamp).toBeDefined();
    expect((await widgets.reconcile(name)).result).toEqual({});
    expect(await widgets.get(name)).toBeUndefined();
    expect(widgets.service.widgets.has(id)).toBe(remains);
  });

  it('recovers an interrupted create by adopting the one object with its natural key', async () => {
    const id = widgets.service.insert({ name: 'crashed-once', size: 1 });
    await widgets.createInterrupted('crash-adopt', { name: 'crashed-once' }, '2026-01-01T00:00:00Z');
    await widgets.settle('crash-adopt');
    const obj = await widgets.get('crash-adopt');
    expect(obj?.metadata.annotations?.[ANNOTATION_EXTERNAL_ID]).toBe(id);
    expect(obj?.metadata.annotations?.[ANNOTATION_CREATE_PENDING]).toBeUndefined();
    expect([...widgets.service.widgets.values()].filter((w) => w.name === 'crashed-once')).toHaveLength(1);
    expect(await widgets.condition('crash-adopt', 'Ready')).toMatchObject({ status: 'True' });
  });

  it('after an interrupted create, never adopts an object older than the mark', async () => {
    const foreign = widgets.service.insert({
      name: 'made-before',
      size: 4,
      createdAt: '2025-06-01T00:00:00Z',
    });
    await widgets.createInterrupted(
      'crash-foreign',
      { name: 'made-before', size: 1 },
      '2026-01-01T00:00:00Z',
    );
    const outcome = await widgets.settle('crash-foreign');
    expect(outcome.error).toMatchObject({ errorClass: 'terminal', reason: 'AlreadyExists' });
    expect((await widgets.condition('crash-foreign', 'Synced'))?.message).toContain(`id ${foreign}`);
    expect(
      (await widgets.get('crash-foreign'))?.metadata.annotations?.[ANNOTATION_EXTERNAL_ID],
    ).toBeUndefined();
    expect(widgets.service.widgets.get(foreign)?.size).toBe(4);
  });

  it('stops with CreateIncomplete when an interrupted create is ambiguous', async () => {
    widgets.service.insert({ name: 'crashed-twice', size: 1 });
    widgets.service.insert({ name: 'crashed-twice', size: 1 });
    await widgets.createInterrupted('crash-ambiguous', { name: 'crashed-twice' }, '2026-01-01T00:00:00Z');
    const outcome = await widgets.settle('crash-ambiguous');
    expect(outcome.error).toMatchObject({ errorClass: 'terminal', reason: 'CreateIncomplete' });
    const synced = await widgets.condition('crash-ambiguous', 'Synced');
    expect(synced).toMatchObject({ status: 'False', reason: 'CreateIncomplete' });
    expect(synced?.message).toContain('2 external objects created since may be the one it made');
    expect([...widgets.service.widgets.values()].filter((w) => w.name === 'crashed-twice')).toHaveLength(2);
    expect((await widgets.events('crash-ambiguous')).map((e) => [e.type, e.reason])).toEqual([
      ['Warning', 'CannotRecoverCreate'],
    ]);
  });

  it('waits on a reference that is not Ready, then proceeds', async () => {
    await widgets.create('child', { name: 'child', parentRef: { name: 'parent' } });
    const waiting = await widgets.settle('child');
    expect(waiting.error).toMatchObject({
      errorClass: 'waiting',
      reason: 'ReferenceNotReady',
      requeueAfterMs: 1_000,
    });
    expect(await widgets.condition('child', 'Synced')).toMatchObject({
      status: 'False',
      reason: 'ReferenceNotReady',
    });
    expect(await widgets.events('child')).toEqual([]);

    await widgets.create('parent', { name: 'parent' });
    await widgets.settle('parent');
    await widgets.settle('child');
    const parentId = (await widgets.get('parent'))!.status!.id;
    expect((await widgets.get('child'))?.status).toMatchObject({ parentId });
    expect(await widgets.condition('child', 'Synced')).toMatchObject({ status: 'True' });
  });

  it('reports an invalid spec terminally, once, without calling the service', async () => {
    const calls = widgets.service.calls.length;
    await widgets.create('invalid', { name: '', size: 1000 });
    const first = await widgets.settle('invalid');
    await widgets.reconcile('invalid');
    expect(first.error).toMatchObject({ errorClass: 'terminal', reason: 'InvalidSpec' });
    const synced = await widgets.condition('invalid', 'Synced');
    expect(synced?.message).toContain('spec.name: Too small');
    expect(synced?.message).toContain('spec.size: Too big');
    expect((await widgets.events('invalid')).map((e) => [e.type, e.reason, e.count])).toEqual([
      ['Warning', 'InvalidSpec', 1],
    ]);
    expect(widgets.service.calls).toHaveLength(calls);
  });

  it('gets a real 409 from a stale read and succeeds on the retry without a duplicate', async () => {
    await widgets.create('conflict', { name: 'conflict-me' });
    const stale = await widgets.get('conflict');
    await widgets.patch('conflict', { metadata: { labels: { touched: 'yes' } } });
    widgets.staleRead = stale;
    const first = await widgets.reconcile('conflict');
    expect(first.error).toMatchObject({ errorClass: 'conflict' });
    expect((await widgets.get('conflict'))?.metadata.finalizers).toBeUndefined();
    await widgets.settle('conflict');
    expect((await widgets.get('conflict'))?.metadata.finalizers).toEqual([FINALIZER]);
    expect(widgets.service.writes().filter((w) => w === 'create conflict-me')).toHaveLength(1);
  });

  it('refuses a manifest forging the create-pending mark, in the annotation and in status', async () => {
    const foreign = widgets.service.insert({ name: 'someone-elses', size: 4 });
    const manifest = widget(
      widgets.namespace,
      'forged',
      { name: 'someone-elses', size: 1 },
      {
        [ANNOTATION_CREATE_PENDING]: '2000-01-01T00:00:00Z',
      },
    );
    const { group, version, plural } = widgetResource;
    await widgets.custom.createNamespacedCustomObject({
      group,
      version,
      plural,
      namespace: widgets.namespace,
      body: { ...manifest, status: { createPending: '2000-01-01T00:00:00Z' } },
    });
    // The API server keeps status out of a create: only the status subresource writes it.
    expect((await widgets.get('forged'))?.status?.createPending).toBeUndefined();
    const outcome = await widgets.settle('forged');
    expect(outcome.error).toMatchObject({ errorClass: 'terminal', reason: 'AlreadyExists' });
    const synced = await widgets.condition('forged', 'Synced');
    expect(synced?.message).toContain(`id ${foreign}`);
    expect(synced?.message).toContain(
      `${ANNOTATION_CREATE_PENDING} annotation does not make it this resource's`,
    );
    expect((await widgets.get('forged'))?.metadata.annotations?.[ANNOTATION_EXTERNAL_ID]).toBeUndefined();
    expect(widgets.service.widgets.get(foreign)?.size).toBe(4);
  });

  it('guards the status half of the mark by resourceVersion: a real 409 after a concurrent write', async () => {
    await widgets.create('mark-guard', { name: 'mark-guard' });
    const stale = (await widgets.get('mark-guard'))!;
    await widgets.patch('mark-guard', { metadata: { labels: { touched: 'yes' } } });
    const patcher = customObjectPatcher<Widget>(clusterFromInjected().kubeConfig(), widgetResource);
    const mark = '2026-01-01T00:00:00Z';
    await expect(markInStatus(patcher, stale, mark)).rejects.toBeInstanceOf(ConflictError);
    expect((await widgets.get('mark-guard'))?.status?.createPending).toBeUndefined();
    const fresh = (await widgets.get('mark-guard'))!;
    expect((await markInStatus(patcher, fresh, mark)).status?.createPending).toBe(mark);
  });

  it('skips a paused resource and resumes when the annotation goes', async () => {
    await widgets.create('paused', { name: 'paused-me' }, { [ANNOTATION_PAUSED]: 'true' });
    expect((await widgets.settle('paused')).result).toEqual({});
    expect(widgets.service.calls.some((c) => c.includes('paused-me'))).toBe(false);
    expect(await widgets.condition('paused', 'Synced')).toMatchObject({ status: 'False', reason: 'Paused' });
    await widgets.patch('paused', { metadata: { annotations: { [ANNOTATION_PAUSED]: null } } });
    await widgets.settle('paused');
    expect(await widgets.condition('paused', 'Synced')).toMatchObject({ status: 'True' });
  });

  it('publishes an owned Secret and re-creates it after a user deletes it', async () => {
    await widgets.create('secret', { name: 'secret-out', outputSecretName: 'secret-out' });
    await widgets.settle('secret');
    const owner = await widgets.get('secret');
    const read = () =>
      widgets.core.readNamespacedSecret({ namespace: widgets.namespace, name: 'secret-out' });
    const secret = await read();
    expect(secret.metadata?.labels?.[LABEL_MANAGED_BY]).toBe('coffer');
    expect(secret.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Widget', name: 'secret', uid: owner?.metadata.uid, controller: true }),
    ]);
    expect(Buffer.from(secret.data?.token ?? '', 'base64').toString()).toBe(widgets.service.token);

    await widgets.core.deleteNamespacedSecret({ namespace: widgets.namespace, name: 'secret-out' });
    await expect(read()).rejects.toSatisfy((e) => statusCodeOf(e) === 404);
    await widgets.settle('secret');
    expect(Buffer.from((await read()).data?.token ?? '', 'base64').toString()).toBe(widgets.service.token);

    const visible = JSON.stringify([await widgets.get('secret'), await widgets.events('secret')]);
    expect(visible).not.toContain(widgets.service.token);
  });
});
