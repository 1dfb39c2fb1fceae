import { describe, expect, it } from 'vitest';
import { ns, setupManaged as setup } from '../../test/support/managed-harness.ts';
import {
  ANNOTATION_ABANDON,
  ANNOTATION_PAUSED,
  ANNOTATION_RECONCILE_REQUESTED_AT,
  FINALIZER,
} from '../runtime/object-meta.ts';

/** `expect.stringContaining`, typed for object literals. */
const containing = (text: string): string => expect.stringContaining(text) as string;

describe('managed reconciler: deletion', () => {
  async function created(spec: Record<string, unknown> = {}, t = setup()) {
    t.create('a', { name: 'alpha', ...spec });
    await t.reconcile('a');
    return t;
  }

  it.each([
    {
      reason: 'Delete removes the external object',
      spec: {},
      annotations: {} as Record<string, string>,
      remaining: 0,
      event: 'DeletedExternal',
    },
    {
      reason: 'Orphan leaves it',
      spec: { deletionPolicy: 'Orphan' },
      annotations: {},
      remaining: 1,
      event: 'OrphanedExternal',
    },
    {
      reason: 'abandon leaves it',
      spec: {},
      annotations: { [ANNOTATION_ABANDON]: 'true' },
      remaining: 1,
      event: 'AbandonedExternal',
    },
  ])('$reason and releases the resource', async ({ spec, annotations, remaining, event }) => {
    const t = await created(spec);
    t.store.edit({ namespace: ns, name: 'a' }, (o) => {
      o.metadata.annotations = { ...o.metadata.annotations, ...annotations };
    });
    t.store.delete({ namespace: ns, name: 'a' });
    expect((await t.reconcile('a')).result).toEqual({});
    expect(t.get('a')).toBeUndefined();
    expect(t.service.widgets.size).toBe(remaining);
    expect(t.events.list().at(-1)?.reason).toBe(event);
  });

  it('treats an external object that is already gone as deleted', async () => {
    const t = await created();
    t.service.widgets.clear();
    t.store.delete({ namespace: ns, name: 'a' });
    await t.reconcile('a');
    expect(t.get('a')).toBeUndefined();
  });

  it('reports deletion protection and lets an admin abandon', async () => {
    const t = await created();
    t.service.widgets.get('w-1')!.deleteProtection = true;
    t.store.delete({ namespace: ns, name: 'a' });
    const { error } = await t.reconcile('a');
    expect(error).toMatchObject({ errorClass: 'waiting', reason: 'DeletionBlocked' });
    expect(t.get('a')?.metadata.finalizers).toEqual([FINALIZER]);
    expect(t.condition('a', 'Synced')?.message).toContain(ANNOTATION_ABANDON);
    expect(t.condition('a', 'Ready')).toMatchObject({ status: 'False', reason: 'Deleting' });
    t.store.edit({ namespace: ns, name: 'a' }, (o) => {
      o.metadata.annotations = { ...o.metadata.annotations, [ANNOTATION_ABANDON]: 'true' };
    });
    await t.reconcile('a');
    expect(t.get('a')).toBeUndefined();
    expect(t.service.widgets.size).toBe(1);
  });

  it.each([
    {
      reason: 'Orphan in the raw spec still releases',
      spec: { name: 'alpha', size: 'big', deletionPolicy: 'Orphan' },
      gone: true,
    },
    { reason: 'Delete needs a valid spec', spec: { name: 'alpha', size: 'big' }, gone: false },
  ])('with an invalid spec: $reason', async ({ spec, gone }) => {
    const t = await created();
    t.store.edit({ namespace: ns, name: 'a' }, (o) => {
      o.spec = spec;
    });
    t.store.delete({ namespace: ns, name: 'a' });
    const { error } = await t.reconcile('a');
    expect(t.get('a') === undefined).toBe(gone);
    if (!gone)
      expect(error).toMatchObject({
        errorClass: 'terminal',
        reason: 'InvalidSpec',
        message: containing(ANNOTATION_ABANDON),
      });
  });

  it('uses the id a parent recorded earlier when the parent is already gone', async () => {
    const t = setup();
    t.create('parent', { name: 'papa', deletionPolicy: 'Orphan' });
    await t.reconcile('parent');
    t.create('child', { name: 'kid', parentRef: { name: 'parent' } });
    await t.reconcile('child');
    t.store.delete({ namespace: ns, name: 'parent' });
    await t.reconcile('parent');
    t.store.delete({ namespace: ns, name: 'child' });
    await t.reconcile('child');
    expect(t.get('child')).toBeUndefined();
    expect([...t.service.widgets.values()].map((w) => w.name)).toEqual(['papa']);
  });
});

describe('managed reconciler: annotations and outputs', () => {
  it('skips a paused resource, including its deletion', async () => {
    const t = setup();
    t.create('a', { name: 'alpha' }, { [ANNOTATION_PAUSED]: 'true' });
    expect((await t.reconcile('a')).result).toEqual({});
    expect(t.service.calls).toEqual([]);
    expect(t.condition('a', 'Synced')).toMatchObject({ status: 'False', reason: 'Paused' });
    t.store.edit({ namespace: ns, name: 'a' }, (o) => {
      o.metadata.finalizers = [FINALIZER];
    });
    t.store.delete({ namespace: ns, name: 'a' });
    await t.reconcile('a');
    expect(t.get('a')?.metadata.finalizers).toEqual([FINALIZER]);
  });

  it('records the handled reconcile-requested-at value', async () => {
    const t = setup();
    t.create('a', { name: 'alpha' }, { [ANNOTATION_RECONCILE_REQUESTED_AT]: 'now-1' });
    await t.reconcile('a');
    expect(t.get('a')?.status?.lastHandledReconcileAt).toBe('now-1');
    t.store.edit({ namespace: ns, name: 'a' }, (o) => {
      o.metadata.annotations = { ...o.metadata.annotations, [ANNOTATION_RECONCILE_REQUESTED_AT]: 'now-2' };
    });
    await t.reconcile('a');
    expect(t.get('a')?.status?.lastHandledReconcileAt).toBe('now-2');
    expect(t.service.calls.filter((c) => c.startsWith('observe'))).toHaveLength(2);
  });

  it('publishes outputs into an owned Secret and repairs it after a user deletes it', async () => {
    const t = setup();
    t.create('a', { name: 'alpha', outputSecretName: 'alpha-out' });
    await t.reconcile('a');
    expect(t.secrets.data(ns, 'alpha-out')).toEqual({ id: 'w-1', token: t.service.token });
    t.secrets.secrets.delete(`${ns}/alpha-out`);
    await t.reconcile('a');
    expect(t.secrets.data(ns, 'alpha-out')).toEqual({ id: 'w-1', token: t.service.token });
    expect(
      t.events
        .list()
        .filter((e) => e.reason === 'PublishedSecret')
        .map((e) => e.message),
    ).toEqual(['created Secret alpha-out']);
    expect(t.events.list().find((e) => e.reason === 'PublishedSecret')?.count).toBe(2);
    const visible = JSON.stringify([t.get('a'), t.events.list()]);
    expect(visible).not.toContain(t.service.token);
  });

  it('refuses to overwrite a Secret it does not own', async () => {
    const t = setup();
    await t.secrets.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'taken', namespace: ns }, data: {} },
    });
    t.create('a', { name: 'alpha', outputSecretName: 'taken' });
    const { error } = await t.reconcile('a');
    expect(error).toMatchObject({ errorClass: 'terminal', reason: 'SecretNotOwned' });
    expect(t.condition('a', 'Synced')?.message).toContain(`Secret ${ns}/taken`);
    expect(t.events.list().at(-1)?.reason).toBe('CannotPublishSecret');
  });

  it('does nothing for a resource that no longer exists', async () => {
    const t = setup();
    expect((await t.reconcile('missing')).result).toEqual({});
  });
});
