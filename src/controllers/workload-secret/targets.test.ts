import { describe, expect, it } from 'vitest';
import { dataHash } from '../../runtime/secret-writer.ts';
import {
  ANNOTATION_ADOPT_BY,
  ANNOTATION_ADOPTED,
  desiredTarget,
  isUpToDate,
  ownershipOf,
  releasedTarget,
  type TargetObject,
  type TargetSpec,
} from './target-objects.ts';
import { deliverTargets, releaseAdopted, type TargetCache } from './targets.ts';

const owner = {
  apiVersion: 'coffer.dev/v1alpha1',
  kind: 'WorkloadSecret',
  metadata: { name: 'ws', namespace: 'ns', uid: 'uid-1' },
};
const spec = (extra: Partial<TargetSpec> = {}): TargetSpec => ({
  kind: 'Secret',
  name: 'out',
  namespace: 'ns',
  data: { A: 'secret-a' },
  labels: { team: 'x' },
  annotations: {},
  type: 'Opaque',
  immutable: false,
  policy: 'Owner',
  adoptExisting: false,
  ...extra,
});
const consenting = (name = 'out'): TargetObject => ({
  metadata: { name, annotations: { [ANNOTATION_ADOPT_BY]: 'WorkloadSecret/ws' } },
  data: { mine: 'eA==' },
});

/** An in-memory target API per kind, counting its calls. */
function fakeApis(initial: Record<string, TargetObject> = {}) {
  const store = new Map<string, TargetObject>(Object.entries(initial));
  const calls: string[] = [];
  const api = (kind: string) => ({
    read: (_ns: string, name: string) => {
      calls.push(`read ${kind}`);
      return Promise.resolve(store.get(`${kind}/${name}`));
    },
    create: (_ns: string, body: TargetObject) => {
      calls.push(`create ${kind}`);
      store.set(`${kind}/${body.metadata?.name ?? ''}`, body);
      return Promise.resolve(body);
    },
    replace: (_ns: string, name: string, body: TargetObject) => {
      calls.push(`replace ${kind}`);
      store.set(`${kind}/${name}`, body);
      return Promise.resolve(body);
    },
    delete: (_ns: string, name: string) => {
      calls.push(`delete ${kind}`);
      store.delete(`${kind}/${name}`);
      return Promise.resolve({});
    },
  });
  return { apis: { Secret: api('Secret'), ConfigMap: api('ConfigMap') }, store, calls };
}

/** The error `promise` rejects with (fails when it resolves). */
async function failure(promise: Promise<unknown>): Promise<{ reason: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { reason: string; message: string };
  }
  throw new Error('expected a failure');
}

async function deliverOne(t: ReturnType<typeof fakeApis>, s: TargetSpec, cache?: TargetCache) {
  const [result] = await deliverTargets(t.apis, [s], owner, cache);
  return result?.result;
}

describe('target ownership', () => {
  it('knows its own targets and says what a take-over of a foreign one needs', () => {
    const ours = desiredTarget(spec(), owner);
    expect(ownershipOf(ours, owner, false)).toBe('ours');
    const orphanOurs = desiredTarget(spec({ policy: 'Orphan' }), owner);
    expect(orphanOurs.metadata?.ownerReferences).toEqual([]);
    expect(ownershipOf(orphanOurs, owner, false)).toBe('ours');
    const plain: TargetObject = { metadata: { name: 'out' } };
    const foreign = 'it was not created by this WorkloadSecret';
    expect(ownershipOf(plain, owner, false)).toEqual({ foreign, needs: ['consent', 'adoptExisting'] });
    expect(ownershipOf(plain, owner, true)).toEqual({ foreign, needs: ['consent'] });
    expect(ownershipOf(consenting(), owner, false)).toEqual({ foreign, needs: ['adoptExisting'] });
    expect(ownershipOf(consenting(), owner, true)).toBe('adoptable');
    const toAnother: TargetObject = {
      metadata: { annotations: { [ANNOTATION_ADOPT_BY]: 'WorkloadSecret/x' } },
    };
    expect(ownershipOf(toAnother, owner, true)).toEqual({ foreign, needs: ['consent'] });
  });

  it('never adopts an object another controls or another WorkloadSecret delivers into, consent or not', () => {
    const other = desiredTarget(spec(), {
      ...owner,
      metadata: { ...owner.metadata, name: 'other', uid: 'u2' },
    });
    other.metadata = { ...other.metadata, annotations: { [ANNOTATION_ADOPT_BY]: 'WorkloadSecret/ws' } };
    expect(ownershipOf(other, owner, true)).toEqual({ foreign: 'it is controlled by WorkloadSecret other' });
    const otherOrphan = desiredTarget(spec({ policy: 'Orphan' }), {
      ...owner,
      metadata: { ...owner.metadata, name: 'other' },
    });
    expect(ownershipOf(otherOrphan, owner, true)).toEqual({
      foreign: 'WorkloadSecret/other delivers into it',
    });
  });

  it('is up to date only with the same data, metadata and owner reference', () => {
    const written = desiredTarget(spec(), owner);
    const hash = dataHash({ A: 'secret-a' });
    expect(isUpToDate(written, hash, spec(), owner)).toBe(true);
    expect(isUpToDate(written, dataHash({ A: 'edited' }), spec(), owner)).toBe(false);
    expect(isUpToDate(written, hash, spec({ labels: { team: 'y' } }), owner)).toBe(false);
    expect(isUpToDate(written, hash, spec({ policy: 'Orphan' }), owner)).toBe(false);
  });

  it('gives an adopted target no owner reference even with Owner, and keeps it so', () => {
    const adopted = desiredTarget(spec(), owner, consenting(), true);
    expect(adopted.metadata?.ownerReferences).toEqual([]);
    expect(adopted.metadata?.annotations?.[ANNOTATION_ADOPTED]).toBe('true');
    expect(ownershipOf(adopted, owner, false)).toBe('ours');
    expect(isUpToDate(adopted, dataHash({ A: 'secret-a' }), spec(), owner)).toBe(true);
    const again = desiredTarget(spec({ data: { A: 'b' } }), owner, adopted);
    expect(again.metadata?.ownerReferences).toEqual([]);
    expect(again.metadata?.annotations?.[ANNOTATION_ADOPTED]).toBe('true');
  });

  it('never takes the adoption mark from the spec', () => {
    const created = desiredTarget(spec({ annotations: { [ANNOTATION_ADOPTED]: 'true' } }), owner);
    expect(created.metadata?.annotations?.[ANNOTATION_ADOPTED]).toBeUndefined();
    expect(created.metadata?.ownerReferences).toHaveLength(1);
  });

  it('releases an adopted target: Coffer’s label and annotations gone, content and consent kept', () => {
    const adopted = desiredTarget(spec(), owner, consenting(), true);
    const released = releasedTarget(adopted);
    expect(released.metadata?.labels).toEqual({ team: 'x' });
    expect(released.metadata?.annotations).toEqual({ [ANNOTATION_ADOPT_BY]: 'WorkloadSecret/ws' });
    expect(released.data).toEqual(adopted.data);
  });
});

describe('deliverTargets', () => {
  it('creates, then writes nothing while up to date, replaces on change, and refuses a foreign object', async () => {
    const t = fakeApis();
    expect(await deliverOne(t, spec())).toBe('created');
    expect(await deliverOne(t, spec())).toBe('unchanged');
    expect(await deliverOne(t, spec({ data: { A: 'new' } }))).toBe('updated');
    expect(t.calls).toEqual(['read Secret', 'create Secret', 'read Secret', 'read Secret', 'replace Secret']);
    const foreign = fakeApis({ 'Secret/out': { metadata: { name: 'out' }, data: { mine: 'eA==' } } });
    const refused = await failure(deliverOne(foreign, spec({ adoptExisting: true })));
    expect(refused.reason).toBe('TargetConflict');
    expect(refused.message).toContain(`${ANNOTATION_ADOPT_BY}: WorkloadSecret/ws`);
    expect(foreign.calls).toEqual(['read Secret']);
  });

  it('adopts with consent and the opt-in: no owner reference, marked adopted', async () => {
    const t = fakeApis({ 'Secret/out': consenting() });
    const refused = await failure(deliverOne(t, spec()));
    expect(refused.reason).toBe('TargetConflict');
    expect(refused.message).toContain('set spec.target.adoptExisting: true');
    expect(refused.message).not.toContain(ANNOTATION_ADOPT_BY);
    expect(await deliverOne(t, spec({ adoptExisting: true }))).toBe('updated');
    const stored = t.store.get('Secret/out');
    expect(stored?.metadata?.ownerReferences).toEqual([]);
    expect(stored?.metadata?.annotations?.[ANNOTATION_ADOPTED]).toBe('true');
    expect(await deliverOne(t, spec({ adoptExisting: true }))).toBe('unchanged');
  });

  it('writes no target when any is refused', async () => {
    const t = fakeApis({ 'ConfigMap/out': { metadata: { name: 'out' }, data: { mine: 'x' } } });
    const specs = [spec(), spec({ kind: 'ConfigMap', type: undefined, immutable: undefined })];
    await expect(deliverTargets(t.apis, specs, owner)).rejects.toMatchObject({ reason: 'TargetConflict' });
    expect(t.calls).toEqual(['read Secret', 'read ConfigMap']);
    expect(t.store.has('Secret/out')).toBe(false);
  });

  it('checks a Secret type’s required keys before reading anything', async () => {
    const t = fakeApis();
    const refused = await failure(
      deliverOne(t, spec({ type: 'kubernetes.io/tls', data: { 'tls.crt': 'c' } })),
    );
    expect(refused.reason).toBe('InvalidSpec');
    expect(refused.message).toContain('tls.key');
    expect(t.calls).toEqual([]);
  });

  it('replaces an immutable or retyped Secret by delete and create', async () => {
    const t = fakeApis();
    await deliverOne(t, spec({ immutable: true }));
    expect(await deliverOne(t, spec({ immutable: true, data: { A: 'b' } }))).toBe('updated');
    expect(t.calls.slice(-3)).toEqual(['read Secret', 'delete Secret', 'create Secret']);
    expect(t.store.get('Secret/out')?.metadata?.resourceVersion).toBeUndefined();
  });

  it('costs no request when the informer cache shows the target up to date', async () => {
    const t = fakeApis();
    await deliverOne(t, spec());
    const written = t.store.get('Secret/out') as TargetObject;
    const cache: TargetCache = () => ({ ...written, dataHash: dataHash({ A: 'secret-a' }) });
    const before = t.calls.length;
    expect(await deliverOne(t, spec(), cache)).toBe('unchanged');
    expect(t.calls.length).toBe(before);
    expect(await deliverOne(t, spec({ data: { A: 'new' } }), cache)).toBe('updated');
    expect(t.calls.length).toBeGreaterThan(before);
  });
});

describe('releaseAdopted', () => {
  it('releases only what it adopted, and leaves what it created to the garbage collector', async () => {
    const t = fakeApis({ 'Secret/out': consenting() });
    await deliverOne(t, spec({ adoptExisting: true }));
    await deliverOne(t, spec({ kind: 'ConfigMap', type: undefined, immutable: undefined }));
    const created = t.store.get('ConfigMap/out');
    const targets = [
      { kind: 'Secret' as const, name: 'out' },
      { kind: 'ConfigMap' as const, name: 'out' },
      { kind: 'Secret' as const, name: 'gone' },
    ];
    expect(await releaseAdopted(t.apis, owner, targets)).toBe(1);
    expect(t.store.get('Secret/out')?.metadata?.labels?.['app.kubernetes.io/managed-by']).toBeUndefined();
    expect(t.store.get('Secret/out')?.data).toEqual({ A: Buffer.from('secret-a').toString('base64') });
    expect(t.store.get('ConfigMap/out')).toBe(created);
  });
});
