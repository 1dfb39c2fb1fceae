// When a WorkloadSecret's source read stays good: events (epochs, dirty marks) and the resync.
import { describe, expect, it } from 'vitest';
import { ReadMemo } from './read-memo.ts';

const subject = { key: 'ns/w', uid: 'u1', generation: 1 };
const resyncMs = 60_000;

function remembered(epoch: number | undefined): ReadMemo<string> {
  const memo = new ReadMemo<string>();
  memo.remember(subject, 0, { scopeKey: 's', epoch, value: 'v', readAt: 0 });
  return memo;
}

describe('ReadMemo', () => {
  it('keeps a read while the same stream epoch covers it, however long (0 reads at rest)', () => {
    const memo = remembered(3);
    expect(memo.fresh(subject, 0, { scopeKey: 's', epoch: 3, at: 10 * resyncMs, resyncMs })).toEqual({
      value: 'v',
    });
    expect(memo.dueInMs('ns/w', [{ scopeKey: 's', epoch: 3 }], 10 * resyncMs, resyncMs)).toBe(resyncMs);
  });

  it('reads again after an event touched the source, until a read starts', () => {
    const memo = remembered(3);
    memo.markDirty('ns/w', 0);
    expect(memo.fresh(subject, 0, { scopeKey: 's', epoch: 3, at: 1, resyncMs })).toBeUndefined();
    memo.starting('ns/w', 0);
    expect(memo.fresh(subject, 0, { scopeKey: 's', epoch: 3, at: 1, resyncMs })).toBeDefined();
  });

  it('reads again when the stream reopened, the spec changed or the folder changed', () => {
    const memo = remembered(3);
    expect(memo.fresh(subject, 0, { scopeKey: 's', epoch: 4, at: 1, resyncMs })).toBeUndefined();
    expect(memo.fresh({ ...subject, generation: 2 }, 0, { scopeKey: 's', epoch: 3, at: 1, resyncMs })).toBe(
      undefined,
    );
    expect(memo.fresh(subject, 0, { scopeKey: 'other', epoch: 3, at: 1, resyncMs })).toBeUndefined();
  });

  it('without events, keeps a read for the resync interval and says when it is due', () => {
    const memo = remembered(undefined);
    const state = { scopeKey: 's', epoch: undefined };
    expect(memo.fresh(subject, 0, { ...state, at: resyncMs - 1, resyncMs })).toBeDefined();
    expect(memo.fresh(subject, 0, { ...state, at: resyncMs, resyncMs })).toBeUndefined();
    expect(memo.dueInMs('ns/w', [state], 20_000, resyncMs)).toBe(40_000);
    // A stream that went down after the read: due on the read's own schedule.
    expect(remembered(3).dueInMs('ns/w', [state], 50_000, resyncMs)).toBe(10_000);
  });

  it('knows which sources have a read to lose (a failed one has none)', () => {
    const memo = remembered(3);
    expect(memo.hasRead('ns/w', 0)).toBe(true);
    expect(memo.hasRead('ns/w', 1)).toBe(false);
    memo.drop('ns/w', 0);
    expect(memo.hasRead('ns/w', 0)).toBe(false);
  });
});
