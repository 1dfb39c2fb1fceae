import { describe, expect, it } from 'vitest';
import { kubeError } from '../../test/support/fake-kube.ts';
import { ns, setupManaged as setup } from '../../test/support/managed-harness.ts';
import { ANNOTATION_CREATE_PENDING, ANNOTATION_EXTERNAL_ID, FINALIZER } from '../runtime/object-meta.ts';

describe('managed reconciler: the Kubernetes writes of a create', () => {
  it('writes the mark (finalizer with annotation, then status), the id, and the final status: no more', async () => {
    const t = setup();
    t.create('a', { name: 'alpha', size: 3 });
    expect((await t.reconcile('a')).error).toBeUndefined();
    expect(t.store.writes).toEqual(['jsonPatch', 'status', 'mergePatch', 'status']);
    const obj = t.get('a')!;
    const id = obj.status?.id ?? '';
    expect(id).not.toBe('');
    expect(obj.metadata.annotations?.[ANNOTATION_EXTERNAL_ID]).toBe(id);
    expect(obj.metadata.annotations?.[ANNOTATION_CREATE_PENDING]).toBeUndefined();
    expect(obj.metadata.finalizers).toContain(FINALIZER);
    // The kind can protect its objects: the final status says this resource created it.
    expect(obj.status?.createdId).toBe(id);
    expect(obj.status?.createPending).toBeUndefined();
  });

  it('records createdId at once when output Secrets are written before the end, and keeps it when that fails', async () => {
    const t = setup();
    const taken = { metadata: { name: 'out', namespace: ns }, data: {} };
    await t.secrets.createNamespacedSecret({ namespace: ns, body: taken });
    t.create('a', { name: 'alpha', size: 3, outputSecretName: 'out' });
    expect((await t.reconcile('a')).error).toMatchObject({ errorClass: 'terminal' });
    const obj = t.get('a')!;
    const id = obj.metadata.annotations?.[ANNOTATION_EXTERNAL_ID] ?? '';
    // The mark, the id, createdId beside it, then the failure status.
    expect(t.store.writes).toEqual(['jsonPatch', 'status', 'mergePatch', 'status', 'status']);
    expect(obj.status?.createdId).toBe(id);
    expect(obj.status?.id).toBe(id);
  });

  it('records the id and createdId with the failure status when the final status write fails', async () => {
    const t = setup();
    t.create('a', { name: 'alpha', size: 3 });
    const writeStatus = t.store.mergePatchStatus.bind(t.store);
    let statusWrites = 0;
    t.store.mergePatchStatus = (ref, patch) =>
      ++statusWrites === 2 ? Promise.reject(kubeError(500, 'etcd timeout')) : writeStatus(ref, patch);
    expect((await t.reconcile('a')).error).toBeDefined();
    const obj = t.get('a')!;
    const id = obj.metadata.annotations?.[ANNOTATION_EXTERNAL_ID] ?? '';
    expect(id).not.toBe('');
    expect(obj.status).toMatchObject({ id, createdId: id });
    expect(obj.status?.createPending).toBeUndefined();
  });
});
