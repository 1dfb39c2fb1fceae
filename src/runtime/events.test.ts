import { describe, expect, it } from 'vitest';
import { FakeEvents } from '../../test/support/fake-kube.ts';
import { COMBINED_PREFIX, createEventRecorder } from './events.ts';
import type { KubeObject } from './object-meta.ts';

const obj: KubeObject = {
  apiVersion: 'test/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns', uid: 'u1' },
};
const other: KubeObject = {
  apiVersion: 'test/v1',
  kind: 'Widget',
  metadata: { name: 'v', namespace: 'ns', uid: 'u2' },
};

function setup(windowMs = 60_000) {
  const api = new FakeEvents();
  let now = new Date('2026-01-01T00:00:00Z');
  const recorder = createEventRecorder({ api, component: 'coffer', windowMs, now: () => now });
  const advance = (ms: number) => {
    now = new Date(now.getTime() + ms);
  };
  return { api, recorder, advance };
}

describe('EventRecorder', () => {
  it('writes an Event naming the object', async () => {
    const { api, recorder } = setup();
    await recorder.record(obj, {
      type: 'Normal',
      reason: 'CreatedExternal',
      message: 'created external object w-1',
    });
    const [event] = [...api.events.values()];
    expect(event?.involvedObject).toMatchObject({ kind: 'Widget', name: 'w', namespace: 'ns', uid: 'u1' });
    expect(event).toMatchObject({
      type: 'Normal',
      reason: 'CreatedExternal',
      count: 1,
      source: { component: 'coffer' },
    });
  });

  it.each([
    { reason: 'an identical event within the window is counted', advanceMs: 1_000, events: 1, count: 2 },
    { reason: 'an identical event after the window is a new Event', advanceMs: 120_000, events: 2, count: 1 },
  ])('$reason', async ({ advanceMs, events, count }) => {
    const { api, recorder, advance } = setup();
    const event = {
      type: 'Warning' as const,
      reason: 'CannotCreateExternal',
      message: 'service answered 500',
    };
    await recorder.record(obj, event);
    advance(advanceMs);
    await recorder.record(obj, event);
    expect(api.list()).toHaveLength(events);
    expect(api.list().at(-1)?.count).toBe(count);
  });

  it('keeps different messages, reasons and objects apart', async () => {
    const { api, recorder } = setup();
    await recorder.record(obj, { type: 'Warning', reason: 'A', message: 'one' });
    await recorder.record(obj, { type: 'Warning', reason: 'A', message: 'two' });
    await recorder.record(obj, { type: 'Warning', reason: 'B', message: 'one' });
    await recorder.record(other, { type: 'Warning', reason: 'A', message: 'one' });
    expect(api.list().map((e) => e.count)).toEqual([1, 1, 1, 1]);
  });

  it('creates a new Event when the folded one has expired from the API server', async () => {
    const { api, recorder, advance } = setup();
    await recorder.record(obj, { type: 'Normal', reason: 'A', message: 'm' });
    api.events.clear();
    advance(1);
    await recorder.record(obj, { type: 'Normal', reason: 'A', message: 'm' });
    expect(api.list()).toEqual([{ type: 'Normal', reason: 'A', message: 'm', count: 1 }]);
  });

  it('folds every combined event of one (object, type, reason) into one Event with the latest message', async () => {
    const { api, recorder, advance } = setup();
    await recorder.record(obj, { type: 'Warning', reason: 'A', message: `${COMBINED_PREFIX}attempt 9` });
    advance(1_000);
    await recorder.record(obj, { type: 'Warning', reason: 'A', message: `${COMBINED_PREFIX}attempt 10` });
    expect(api.list()).toEqual([
      { type: 'Warning', reason: 'A', message: `${COMBINED_PREFIX}attempt 10`, count: 2 },
    ]);
  });

  it('never throws when the API server refuses the event', async () => {
    const api = new FakeEvents();
    api.create = () => Promise.reject(new Error('forbidden'));
    const recorder = createEventRecorder({ api, component: 'coffer' });
    await expect(
      recorder.record(obj, { type: 'Normal', reason: 'A', message: 'm' }),
    ).resolves.toBeUndefined();
  });

  it('caps long messages', async () => {
    const { api, recorder } = setup();
    await recorder.record(obj, { type: 'Normal', reason: 'A', message: 'y'.repeat(3000) });
    expect(api.list()[0]?.message).toHaveLength(1024);
  });
});
