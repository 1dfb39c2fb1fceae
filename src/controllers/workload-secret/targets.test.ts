import { describe, expect, it } from 'vitest';
import { dataHash } from '../../runtime/secret-writer.ts';
import {
  desiredTarget,
  isUpToDate,
  ownershipOf,
  type TargetObject,
  type TargetSpec,
} from './target-objects.ts';
import { deliverTarget, type TargetCache } from './targets.ts';

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

/** An in-memory target API counting its calls. */
function fakeApis(initial?: TargetObject) {
  const store = new Map<string, TargetObject>(initial ? [['out', initial]] : []);
  const calls: string[] = [];
  const api = {
    read: (_ns: string, name: string) => {
      calls.push('read');
      return Promise.resolve(store.get(name));
    },
    create: (_ns: string, body: TargetObject) => {
      calls.push('create');
      store.set(body.metadata?.name ?? '', body);
      return Promise.resolve(body);
    },
    replace: (_ns: string, name: string, body: TargetObject) => {
      calls.push('replace');
      store.set(name, body);
      return Promise.resolve(body);
    },
    delete: (_ns: string, name: string) => {
      calls.push('delete');
      store.delete(name);
      return Promise.resolve({});
    },
  };
  return { apis: { Secret: api, ConfigMap: api }, store, calls };
}

describe('target ownership', () => {
  it('knows its own targets, adopts only plain objects with adoptExisting, never a controlled one', () => {
    const ours = desiredTarget(spec(), owner);
    expect(ownershipOf(ours, owner, false)).toBe('ours');
    const orphanOurs = desiredTarget(spec({ policy: 'Orphan' }), owner);
    expect(orphanOurs.metadata?.ownerReferences).toEqual([]);
    expect(ownershipOf(orphanOurs, owner, false)).toBe('ours');
    const plain: TargetObject = { metadata: { name: 'out' } };
    expect(ownershipOf(plain, owner, false)).toEqual({
      foreign: 'it was not created by this WorkloadSecret',
    });
    expect(ownershipOf(plain, owner, true)).toBe('adoptable');
    const other = desiredTarget(spec(), {
      ...owner,
      metadata: { ...owner.metadata, name: 'other', uid: 'u2' },
    });
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
});

describe('deliverTarget', () => {
  it('creates, then writes nothing while up to date, replaces on change, and refuses a foreign object', async () => {
    const t = fakeApis();
    expect(await deliverTarget(t.apis, spec(), owner)).toBe('created');
    expect(await deliverTarget(t.apis, spec(), owner)).toBe('unchanged');
    expect(await deliverTarget(t.apis, spec({ data: { A: 'new' } }), owner)).toBe('updated');
    expect(t.calls).toEqual(['read', 'create', 'read', 'read', 'replace']);
    const foreign = fakeApis({ metadata: { name: 'out' }, data: { mine: 'eA==' } });
    await expect(deliverTarget(foreign.apis, spec(), owner)).rejects.toMatchObject({
      reason: 'TargetConflict',
    });
    expect(foreign.calls).toEqual(['read']);
    expect(await deliverTarget(foreign.apis, spec({ adoptExisting: true }), owner)).toBe('updated');
  });

  it('replaces an immutable or retyped Secret by delete and create', async () => {
    const t = fakeApis();
    await deliverTarget(t.apis, spec({ immutable: true }), owner);
    expect(await deliverTarget(t.apis, spec({ immutable: true, data: { A: 'b' } }), owner)).toBe('updated');
    expect(t.calls.slice(-3)).toEqual(['read', 'delete', 'create']);
    expect(t.store.get('out')?.metadata?.resourceVersion).toBeUndefined();
  });

  it('costs no request when the informer cache shows the target up to date', async () => {
    const t = fakeApis();
    await deliverTarget(t.apis, spec(), owner);
    const written = t.store.get('out') as TargetObject;
    const cache: TargetCache = () => ({ ...written, dataHash: dataHash({ A: 'secret-a' }) });
    const before = t.calls.length;
    expect(await deliverTarget(t.apis, spec(), owner, cache)).toBe('unchanged');
    expect(t.calls.length).toBe(before);
    expect(await deliverTarget(t.apis, spec({ data: { A: 'new' } }), owner, cache)).toBe('updated');
    expect(t.calls.length).toBeGreaterThan(before);
  });
});
