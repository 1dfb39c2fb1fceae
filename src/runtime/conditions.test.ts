import { describe, expect, it } from 'vitest';
import {
  getCondition,
  isConditionTrue,
  rfc3339,
  sameCondition,
  setCondition,
  truncateMessage,
} from './conditions.ts';

const t0 = new Date('2026-01-01T00:00:00.123Z');
const t1 = new Date('2026-01-01T00:05:00.000Z');

describe('setCondition', () => {
  it('appends a new condition with the transition time at second precision', () => {
    const list = setCondition(
      undefined,
      { type: 'Ready', status: 'True', reason: 'Available', message: 'ok', observedGeneration: 3 },
      t0,
    );
    expect(list).toEqual([
      {
        type: 'Ready',
        status: 'True',
        reason: 'Available',
        message: 'ok',
        lastTransitionTime: '2026-01-01T00:00:00Z',
        observedGeneration: 3,
      },
    ]);
  });

  it.each([
    {
      reason: 'same status keeps the transition time',
      next: 'True' as const,
      expected: '2026-01-01T00:00:00Z',
    },
    {
      reason: 'a status change moves the transition time',
      next: 'False' as const,
      expected: '2026-01-01T00:05:00Z',
    },
  ])('$reason', ({ next, expected }) => {
    const first = setCondition([], { type: 'Ready', status: 'True', reason: 'Available', message: 'ok' }, t0);
    const second = setCondition(
      first,
      { type: 'Ready', status: next, reason: 'Other', message: 'changed', observedGeneration: 2 },
      t1,
    );
    expect(second).toHaveLength(1);
    expect(second[0]).toMatchObject({
      status: next,
      reason: 'Other',
      message: 'changed',
      lastTransitionTime: expected,
      observedGeneration: 2,
    });
  });

  it('keeps the other conditions and their order', () => {
    let list = setCondition([], { type: 'Ready', status: 'False', reason: 'Creating', message: 'a' }, t0);
    list = setCondition(
      list,
      { type: 'Synced', status: 'True', reason: 'ReconcileSuccess', message: 'b' },
      t0,
    );
    list = setCondition(list, { type: 'Ready', status: 'True', reason: 'Available', message: 'c' }, t1);
    expect(list.map((c) => `${c.type}=${c.status}`)).toEqual(['Ready=True', 'Synced=True']);
    expect(getCondition(list, 'Synced')?.message).toBe('b');
    expect(isConditionTrue(list, 'Ready')).toBe(true);
    expect(isConditionTrue(list, 'Missing')).toBe(false);
  });

  it.each([{ reason: 'has spaces' }, { reason: 'lower-case-dash' }, { reason: '' }, { reason: '9Digits' }])(
    'rejects the non-CamelCase reason "$reason"',
    ({ reason }) => {
      expect(() => setCondition([], { type: 'Ready', status: 'True', reason, message: '' }, t0)).toThrow(
        /not CamelCase/,
      );
    },
  );

  it('truncates long messages deterministically', () => {
    const list = setCondition(
      [],
      { type: 'Ready', status: 'True', reason: 'Available', message: 'x'.repeat(5000) },
      t0,
    );
    expect(list[0]?.message).toHaveLength(1024);
    expect(list[0]?.message.endsWith('...')).toBe(true);
    expect(truncateMessage('short')).toBe('short');
  });
});

describe('helpers', () => {
  it('formats RFC 3339 without milliseconds', () => {
    expect(rfc3339(t0)).toBe('2026-01-01T00:00:00Z');
  });

  it('compares conditions without the transition time', () => {
    const a = { type: 'Ready', status: 'True' as const, reason: 'Available', message: 'm' };
    expect(sameCondition(a, { ...a })).toBe(true);
    expect(sameCondition(a, { ...a, message: 'other' })).toBe(false);
    expect(sameCondition(undefined, a)).toBe(false);
  });
});
