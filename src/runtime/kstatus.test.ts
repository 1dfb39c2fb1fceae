import { describe, expect, it } from 'vitest';
import { commonReasons } from './common-reasons.ts';
import type { Condition } from './conditions.ts';
import { withKstatusConditions } from './kstatus.ts';
import { declareReasons } from './reasons.ts';

/** The reconcile reasons, and reasons of each class the floors above declare (same names and classes). */
const R = {
  ...commonReasons.names,
  ...declareReasons('kstatus-test', {
    InvalidSpec: { class: 'terminal', conditions: ['Synced'], description: 'd' },
    AlreadyExists: { class: 'terminal', conditions: ['Synced'], description: 'd' },
    Rejected: { class: 'terminal', conditions: ['Synced'], description: 'd' },
    ReferenceNotReady: { class: 'waiting', conditions: ['Synced'], description: 'd' },
    RateLimited: { class: 'waiting', conditions: ['Synced'], description: 'd' },
    ServiceUnavailable: { class: 'waiting', conditions: ['Synced'], description: 'd' },
  }).names,
};
const now = new Date('2026-01-01T00:00:00Z');
const at = '2025-12-31T00:00:00Z';

function c(type: string, status: Condition['status'], reason: string): Condition {
  return { type, status, reason, message: `${type} ${reason}`, lastTransitionTime: at };
}

describe('withKstatusConditions', () => {
  it.each([
    {
      reason: 'Ready=True: nothing abnormal',
      list: [c('Ready', 'True', R.Available), c('Synced', 'True', R.ReconcileSuccess)],
      want: undefined,
    },
    {
      reason: 'terminal Synced: Stalled',
      list: [c('Ready', 'False', R.Unavailable), c('Synced', 'False', R.InvalidSpec)],
      want: ['Stalled', R.InvalidSpec],
    },
    {
      reason: 'terminal Synced while Ready=True: Stalled',
      list: [c('Ready', 'True', R.Available), c('Synced', 'False', R.AlreadyExists)],
      want: ['Stalled', R.AlreadyExists],
    },
    {
      reason: 'waiting Synced: Reconciling',
      list: [c('Ready', 'False', R.Unavailable), c('Synced', 'False', R.ReferenceNotReady)],
      want: ['Reconciling', R.ReferenceNotReady],
    },
    {
      reason: 'waiting Synced while Ready=True: Reconciling (the spec is not applied yet)',
      list: [c('Ready', 'True', R.Available), c('Synced', 'False', R.RateLimited)],
      want: ['Reconciling', R.RateLimited],
    },
    {
      reason: 'Ready=False progressing, Synced=True: Reconciling',
      list: [c('Ready', 'False', R.Deleting), c('Synced', 'True', R.ReconcileSuccess)],
      want: ['Reconciling', R.Deleting],
    },
    {
      reason: 'paused: neither',
      list: [c('Ready', 'False', R.Unavailable), c('Synced', 'False', R.Paused)],
      want: undefined,
    },
  ])('$reason', ({ list, want }) => {
    const next = withKstatusConditions(list, now, 3);
    const abnormal = next.filter((x) => x.type === 'Stalled' || x.type === 'Reconciling');
    if (!want) {
      expect(abnormal).toEqual([]);
      return;
    }
    expect(abnormal).toHaveLength(1);
    expect(next[0]).toMatchObject({ type: want[0], status: 'True', reason: want[1], observedGeneration: 3 });
    expect(next.slice(1)).toEqual(list);
  });

  it('replaces Reconciling by Stalled, and removes both once Ready', () => {
    const waiting = withKstatusConditions(
      [c('Ready', 'False', R.Unavailable), c('Synced', 'False', R.ReferenceNotReady)],
      now,
    );
    const failed = withKstatusConditions([...waiting.slice(1, 2), c('Synced', 'False', R.Rejected)], now);
    expect(failed.map((x) => x.type)).toEqual(['Stalled', 'Ready', 'Synced']);
    const ready = withKstatusConditions(
      [c('Ready', 'True', R.Available), c('Synced', 'True', R.ReconcileSuccess), ...failed.slice(0, 1)],
      now,
    );
    expect(ready.map((x) => x.type)).toEqual(['Ready', 'Synced']);
  });

  it('keeps the transition time while the same condition stays True', () => {
    const first = withKstatusConditions(
      [c('Ready', 'False', R.Unavailable), c('Synced', 'False', R.ReferenceNotReady)],
      new Date('2026-01-01T00:00:00Z'),
    );
    const again = withKstatusConditions(
      [...first.slice(1, 2), c('Synced', 'False', R.ServiceUnavailable), first[0] as Condition],
      new Date('2026-02-01T00:00:00Z'),
    );
    expect(again[0]).toMatchObject({
      type: 'Reconciling',
      reason: R.ServiceUnavailable,
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
  });
});
