import { describe, expect, it } from 'vitest';
import type { Secret } from '../../client/index.ts';
import { valueHash, type DesiredSecret, type OwnedKey } from './mapping.ts';
import { describeChanges, isEmptyPlan, ownedAfter, planBatch, type PlanInput } from './plan.ts';

const salt = 'uid-1';

function listed(entries: Record<string, [value: string, version: number]>): Map<string, Secret> {
  return new Map(
    Object.entries(entries).map(([key, [value, version]]) => [
      key,
      { id: `id-${key}`, secretKey: key, secretValue: value, version },
    ]),
  );
}

function owned(entries: Record<string, [value: string, version: number]>): OwnedKey[] {
  return Object.entries(entries).map(([key, [value, version]]) => ({
    key,
    version,
    hash: valueHash(salt, key, value),
  }));
}

function input(extra: Partial<PlanInput>): PlanInput {
  return { desired: [], current: new Map(), owned: [], mode: 'upsert', prune: true, salt, ...extra };
}

const d = (key: string, value: string, more: Partial<DesiredSecret> = {}): DesiredSecret => ({
  key,
  value,
  ...more,
});

describe('planBatch', () => {
  it('writes nothing when every value matches after normalisation', () => {
    const plan = planBatch(
      input({
        desired: [d('A', '  a  '), d('B', 'b\n\n')],
        current: listed({ A: ['a', 3], B: ['b\n', 1] }),
        owned: owned({ A: ['a', 3], B: ['b\n', 1] }),
      }),
    );
    expect(isEmptyPlan(plan)).toBe(true);
    expect(plan.changes).toEqual([]);
  });

  it('creates missing keys under upsert and updates differing ones, in key order', () => {
    const plan = planBatch(
      input({ desired: [d('C', 'c'), d('A', 'new')], current: listed({ A: ['old', 1], X: ['x', 1] }) }),
    );
    expect(plan.writes).toEqual([
      { secretKey: 'A', secretValue: 'new' },
      { secretKey: 'C', secretValue: 'c' },
    ]);
    expect(plan.changes).toEqual(['value of A', 'create C']);
    expect(plan.deletes).toEqual([]);
    expect(plan.drifted).toEqual([]);
  });

  it('never names a key it neither wants nor owns', () => {
    const plan = planBatch(
      input({ desired: [d('A', 'a')], current: listed({ A: ['a', 1], OTHER: ['o', 1] }), prune: true }),
    );
    expect(isEmptyPlan(plan)).toBe(true);
  });

  it('reports missing keys under failOnNotFound instead of creating them', () => {
    const plan = planBatch(
      input({
        desired: [d('A', 'a'), d('B', 'b')],
        current: listed({ A: ['x', 1] }),
        mode: 'failOnNotFound',
      }),
    );
    expect(plan.missing).toEqual(['B']);
    expect(plan.writes).toEqual([{ secretKey: 'A', secretValue: 'a' }]);
    expect(isEmptyPlan(plan)).toBe(false);
  });

  it('counts an owned key changed behind our back as drift, but not a change of the desired value', () => {
    const drift = planBatch(
      input({
        desired: [d('A', 'a')],
        current: listed({ A: ['tampered', 2] }),
        owned: owned({ A: ['a', 1] }),
      }),
    );
    expect(drift.drifted).toEqual(['A']);
    const rotated = planBatch(
      input({
        desired: [d('A', 'rotated')],
        current: listed({ A: ['a', 1] }),
        owned: owned({ A: ['a', 1] }),
      }),
    );
    expect(rotated.drifted).toEqual([]);
    expect(rotated.writes).toHaveLength(1);
  });

  it('counts an owned key deleted in the service as drift and recreates it', () => {
    const plan = planBatch(input({ desired: [d('A', 'a')], owned: owned({ A: ['a', 1] }) }));
    expect(plan.drifted).toEqual(['A']);
    expect(plan.changes).toEqual(['create A']);
  });

  it('deletes owned keys that left the spec with prune, releases them without', () => {
    const base = { desired: [d('A', 'a')], current: listed({ A: ['a', 1], OLD: ['o', 1] }) };
    const ownedKeys = owned({ A: ['a', 1], OLD: ['o', 1], GONE: ['g', 1] });
    expect(planBatch(input({ ...base, owned: ownedKeys, prune: true })).deletes).toEqual(['OLD']);
    expect(planBatch(input({ ...base, owned: ownedKeys, prune: false })).deletes).toEqual([]);
  });

  it('renames an owned previousKey with newSecretName instead of delete and create', () => {
    const plan = planBatch(
      input({
        desired: [d('NEW', 'v', { previousKey: 'OLD' })],
        current: listed({ OLD: ['v', 4] }),
        owned: owned({ OLD: ['v', 4] }),
      }),
    );
    expect(plan.writes).toEqual([{ secretKey: 'OLD', newSecretName: 'NEW', secretValue: 'v' }]);
    expect(plan.deletes).toEqual([]);
    expect(plan.changes).toEqual(['rename OLD to NEW']);
  });

  it('does not rename a previousKey it does not own', () => {
    const plan = planBatch(
      input({ desired: [d('NEW', 'v', { previousKey: 'OLD' })], current: listed({ OLD: ['v', 4] }) }),
    );
    expect(plan.writes).toEqual([{ secretKey: 'NEW', secretValue: 'v' }]);
  });

  it('trusts the recorded version and hash when the service hides the value', () => {
    const hidden = new Map<string, Secret>([
      ['A', { id: 'a', secretKey: 'A', secretValue: '<hidden>', version: 2, secretValueHidden: true }],
    ]);
    const same = planBatch(input({ desired: [d('A', 'a')], current: hidden, owned: owned({ A: ['a', 2] }) }));
    expect(isEmptyPlan(same)).toBe(true);
    const moved = planBatch(
      input({ desired: [d('A', 'a')], current: hidden, owned: owned({ A: ['a', 1] }) }),
    );
    expect(moved.writes).toHaveLength(1);
  });

  it('writes when only a field other than the value differs', () => {
    const plan = planBatch(
      input({ desired: [d('A', 'a', { comment: 'why' })], current: listed({ A: ['a', 1] }) }),
    );
    expect(plan.changes).toEqual(['comment of A']);
    expect(plan.writes).toEqual([{ secretKey: 'A', secretValue: 'a', secretComment: 'why' }]);
  });
});

describe('ownedAfter', () => {
  it('records versions from the write answer or the listing, and hashes, never values', () => {
    const plan = input({
      desired: [d('A', 'a'), d('B', 'b'), d('C', 'c')],
      current: listed({ A: ['a', 5] }),
    });
    const written: Secret[] = [{ id: 'b', secretKey: 'B', secretValue: 'b', version: 1 }];
    const result = ownedAfter(plan, written);
    expect(result).toEqual([
      { key: 'A', version: 5, hash: valueHash(salt, 'A', 'a') },
      { key: 'B', version: 1, hash: valueHash(salt, 'B', 'b') },
    ]);
    expect(JSON.stringify(result)).not.toMatch(/"(a|b)"/);
  });
});

describe('describeChanges', () => {
  it('lists the first changes and counts the rest', () => {
    expect(describeChanges([])).toBeUndefined();
    expect(describeChanges(['a', 'b', 'c'], 2)).toBe('a; b; and 1 more');
  });
});
