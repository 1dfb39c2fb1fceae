import { describe, expect, it } from 'vitest';
import { EventCorrelator } from './event-correlator.ts';
import { queueEvents } from './event-queue.ts';
import type { EventInput, EventRecorder } from './events.ts';
import type { KubeObject } from './object-meta.ts';

const widget = (uid: string): KubeObject => ({
  apiVersion: 'test/v1',
  kind: 'Widget',
  metadata: { name: uid, namespace: 'ns', uid },
});
const normal = (reason: string): EventInput => ({ type: 'Normal', reason, message: reason });

/** A recorder whose writes wait until released; it records what it wrote and how many at once. */
class GatedRecorder implements EventRecorder {
  readonly written: { uid: string | undefined; reason: string }[] = [];
  inFlight = 0;
  maxInFlight = 0;
  failReasons = new Set<string>();
  private gates: (() => void)[] = [];
  private open = false;

  async record(obj: KubeObject, event: EventInput): Promise<void> {
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (!this.open) await new Promise<void>((resolve) => this.gates.push(resolve));
      if (this.failReasons.has(event.reason)) throw new Error(`refused ${event.reason}`);
      this.written.push({ uid: obj.metadata?.uid, reason: event.reason });
    } finally {
      this.inFlight -= 1;
    }
  }

  release(): void {
    this.open = true;
    for (const resolve of this.gates.splice(0)) resolve();
  }
}

describe('queueEvents', () => {
  it('returns before the event is written, and flush waits for it', async () => {
    const inner = new GatedRecorder();
    const queue = queueEvents(inner);
    await queue.record(widget('a'), normal('CreatedExternal'));
    expect(queue.pending).toBe(1);
    expect(inner.written).toEqual([]);
    const flushed = queue.flush();
    inner.release();
    await flushed;
    expect(inner.written).toEqual([{ uid: 'a', reason: 'CreatedExternal' }]);
    expect(queue.pending).toBe(0);
  });

  it('writes the events of one object in order, one at a time', async () => {
    const inner = new GatedRecorder();
    const queue = queueEvents(inner, { lanes: 4 });
    for (const reason of ['A', 'B', 'C', 'D']) await queue.record(widget('a'), normal(reason));
    await Promise.resolve();
    expect(inner.inFlight).toBe(1);
    inner.release();
    await queue.flush();
    expect(inner.written.map((w) => w.reason)).toEqual(['A', 'B', 'C', 'D']);
  });

  it('writes at most `lanes` events at once, several when objects differ', async () => {
    const inner = new GatedRecorder();
    const queue = queueEvents(inner, { lanes: 3 });
    for (let i = 0; i < 40; i++) await queue.record(widget(`uid-${i}`), normal('CreatedExternal'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(inner.inFlight).toBeGreaterThan(1);
    expect(inner.inFlight).toBeLessThanOrEqual(3);
    inner.release();
    await queue.flush();
    expect(inner.written).toHaveLength(40);
    expect(inner.maxInFlight).toBeLessThanOrEqual(3);
  });

  it('drops events beyond maxQueued, counts them and warns once per burst', async () => {
    const inner = new GatedRecorder();
    const warnings: string[] = [];
    const log = { warn: (_fields: unknown, message: string) => warnings.push(message) };
    let dropped = 0;
    const queue = queueEvents(inner, {
      maxQueued: 3,
      onDropped: () => (dropped += 1),
      log: log as never,
    });
    for (let i = 0; i < 5; i++) await queue.record(widget(`uid-${i}`), normal(`E${i}`));
    expect(dropped).toBe(2);
    expect(queue.pending).toBe(3);
    inner.release();
    await queue.flush();
    expect(inner.written.map((w) => w.reason).sort()).toEqual(['E0', 'E1', 'E2']);
    expect(warnings).toEqual(['event queue full: dropping events until the API server catches up']);
    // Room again: the next event is written.
    await queue.record(widget('later'), normal('Later'));
    await queue.flush();
    expect(inner.written.at(-1)).toEqual({ uid: 'later', reason: 'Later' });
    expect(dropped).toBe(2);
  });

  it('hands the recorder only what an Event names of the object', async () => {
    const seen: KubeObject[] = [];
    const queue = queueEvents({ record: (obj) => Promise.resolve(void seen.push(obj)) });
    const big = { ...widget('a'), spec: { huge: 'x'.repeat(10_000) }, status: { id: 'i' } };
    big.metadata = { ...big.metadata, resourceVersion: '7', annotations: { a: 'b' } };
    await queue.record(big, normal('CreatedExternal'));
    await queue.flush();
    expect(seen).toEqual([
      {
        apiVersion: 'test/v1',
        kind: 'Widget',
        metadata: { name: 'a', namespace: 'ns', uid: 'a', resourceVersion: '7' },
      },
    ]);
  });

  it('keeps writing after the wrapped recorder throws', async () => {
    const inner = new GatedRecorder();
    inner.failReasons.add('Broken');
    inner.release();
    const queue = queueEvents(inner, { lanes: 1, log: { warn: () => undefined } as never });
    await queue.record(widget('a'), normal('Broken'));
    await queue.record(widget('a'), normal('Fine'));
    await queue.flush();
    expect(inner.written).toEqual([{ uid: 'a', reason: 'Fine' }]);
    expect(queue.pending).toBe(0);
  });
});

describe('queueEvents with a correlator', () => {
  it('skips what the correlator skips before it is queued, and counts it by reason', async () => {
    const inner = new GatedRecorder();
    inner.release();
    const skipped: string[] = [];
    const correlator = new EventCorrelator({
      routine: (event) => event.reason === 'CreatedExternal',
      routineBurst: 2,
      routineQps: 0.001,
    });
    const queue = queueEvents(inner, { correlator, onSkipped: (reason) => skipped.push(reason) });
    for (const uid of ['a', 'b', 'c', 'd']) await queue.record(widget(uid), normal('CreatedExternal'));
    await queue.record(widget('d'), { type: 'Warning', reason: 'CannotCreateExternal', message: 'x' });
    await queue.flush();
    expect(inner.written).toEqual([
      { uid: 'a', reason: 'CreatedExternal' },
      { uid: 'b', reason: 'CreatedExternal' },
      { uid: 'd', reason: 'CannotCreateExternal' },
    ]);
    expect(skipped).toEqual(['CreatedExternal', 'CreatedExternal']);
  });
});
