import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.ts';
import { EventCorrelator, type Correlation } from './event-correlator.ts';
import { COMBINED_PREFIX, type EventInput } from './events.ts';
import type { KubeObject } from './object-meta.ts';

const widget = (uid: string): KubeObject => ({
  apiVersion: 'test/v1',
  kind: 'Widget',
  metadata: { name: uid, namespace: 'ns', uid },
});
const created: EventInput = {
  type: 'Normal',
  reason: 'CreatedExternal',
  message: 'created external object x',
};
const failed: EventInput = {
  type: 'Warning',
  reason: 'CannotCreateExternal',
  message: 'service answered 500',
};
const routine = (event: EventInput) => event.reason === 'CreatedExternal';

const written = (verdicts: Correlation[]) => verdicts.filter((v) => 'record' in v).length;

describe('EventCorrelator', () => {
  it('lets routine events of many objects through up to the shared budget, then skips them by reason', () => {
    const clock = new ManualClock();
    const correlator = new EventCorrelator({ clock, routine, routineBurst: 100, routineQps: 5 });
    const verdicts = Array.from({ length: 1000 }, (_, i) => correlator.correlate(widget(`w${i}`), created));
    expect(written(verdicts)).toBe(100);
    expect(verdicts.at(-1)).toEqual({ skip: 'routine-budget' });
    expect(correlator.skipped.get('CreatedExternal')).toBe(900);
    clock.advance(10_000); // 5 per second refill
    const later = Array.from({ length: 100 }, (_, i) => correlator.correlate(widget(`v${i}`), created));
    expect(written(later)).toBe(50);
  });

  it('never skips a Warning or a non-routine Normal event for the shared budget', () => {
    const correlator = new EventCorrelator({ clock: new ManualClock(), routine, routineBurst: 1 });
    const adopted: EventInput = { type: 'Normal', reason: 'AdoptedExternal', message: 'adopted' };
    const verdicts = Array.from({ length: 500 }, (_, i) => [
      correlator.correlate(widget(`w${i}`), failed),
      correlator.correlate(widget(`w${i}`), adopted),
    ]).flat();
    expect(written(verdicts)).toBe(1000);
  });

  it('limits repeats of one event per object (burst, then one per refill), never its first occurrence', () => {
    const clock = new ManualClock();
    const correlator = new EventCorrelator({ clock, objectBurst: 25, objectQps: 1 / 300 });
    const a = widget('a');
    const verdicts = Array.from({ length: 40 }, () => correlator.correlate(a, failed));
    // The first is not a repeat; 25 repeats pass, the rest are skipped.
    expect(written(verdicts)).toBe(26);
    expect(verdicts.at(-1)).toEqual({ skip: 'repeated-too-often' });
    expect(correlator.correlate(a, { ...failed, message: 'service answered 502' })).toHaveProperty('record');
    expect(correlator.correlate(widget('b'), failed)).toHaveProperty('record');
    clock.advance(300_000);
    expect(correlator.correlate(a, failed)).toHaveProperty('record');
    expect(correlator.correlate(a, failed)).toEqual({ skip: 'repeated-too-often' });
  });

  it('combines similar events (same reason, new messages) from the 10th within the window', () => {
    const clock = new ManualClock();
    const correlator = new EventCorrelator({ clock });
    const a = widget('a');
    const messages = Array.from({ length: 12 }, (_, i) => {
      const verdict = correlator.correlate(a, { ...failed, message: `attempt ${i}` });
      return 'record' in verdict ? verdict.record.message : 'skipped';
    });
    expect(messages.slice(0, 9)).toEqual(Array.from({ length: 9 }, (_, i) => `attempt ${i}`));
    expect(messages.slice(9)).toEqual([9, 10, 11].map((i) => `${COMBINED_PREFIX}attempt ${i}`));
    clock.advance(10 * 60_000);
    const fresh = correlator.correlate(a, { ...failed, message: 'attempt 12' });
    expect(fresh).toEqual({ record: { ...failed, message: 'attempt 12' } });
  });

  it('forgets the least recently used object beyond maxObjects', () => {
    const correlator = new EventCorrelator({ clock: new ManualClock(), objectBurst: 1, maxObjects: 2 });
    for (const uid of ['a', 'b', 'c']) correlator.correlate(widget(uid), failed);
    // `a` was forgotten: its next event is a first occurrence again, with a fresh burst.
    expect(correlator.correlate(widget('a'), failed)).toHaveProperty('record');
    expect(correlator.correlate(widget('a'), failed)).toHaveProperty('record');
    expect(correlator.correlate(widget('a'), failed)).toEqual({ skip: 'repeated-too-often' });
  });
});
