import { describe, expect, it } from 'vitest';
import { newQueue, takeAll } from './work-queue-testing.ts';

describe('WorkQueue deadlines (addAfter with beforeMs)', () => {
  it('hands out a due key with a deadline ahead of changes and polls', async () => {
    const { queue, clock } = newQueue();
    queue.addAfter('poll', 100);
    queue.addAfter('renewal', 100, 1_000);
    clock.advance(100);
    queue.add('change');
    expect(await takeAll(queue)).toEqual(['renewal', 'change', 'poll']);
  });

  it('orders keys with deadlines earliest deadline first, whatever their due time', async () => {
    const { queue, clock } = newQueue();
    queue.addAfter('late-deadline', 10, 5_000);
    queue.addAfter('early-deadline', 90, 500);
    queue.addAfter('middle-deadline', 50, 2_000);
    clock.advance(100);
    expect(await takeAll(queue)).toEqual(['early-deadline', 'middle-deadline', 'late-deadline']);
  });

  it('does not hurry a key before its delay has passed', async () => {
    const { queue, clock } = newQueue();
    queue.addAfter('renewal', 100, 1_000);
    clock.advance(99);
    queue.add('change');
    expect(await takeAll(queue)).toEqual(['change']);
    expect(queue.delayedLen()).toBe(1);
  });

  it('hands out a key whose deadline passed while it waited with the changes, before polls', async () => {
    const { queue, clock } = newQueue();
    queue.addAfter('missed', 10, 50);
    queue.addAfter('kept', 10, 1_000);
    queue.addAfter('poll', 5);
    clock.advance(10);
    // Workers busy past the first deadline: the overdue key is no longer ahead of changes.
    clock.advance(100);
    queue.add('change');
    expect(await takeAll(queue)).toEqual(['kept', 'change', 'missed', 'poll']);
  });

  it('queues a key whose deadline passed before its delay did with the changes', async () => {
    const { queue, clock } = newQueue();
    queue.addAfter('poll', 5);
    queue.add('change');
    queue.addAfter('overdue', 100, 50);
    clock.advance(100);
    expect(await takeAll(queue)).toEqual(['change', 'overdue', 'poll']);
  });

  it('moves a waiting key up to its deadline and never down again; the key is held once', async () => {
    const { queue, clock } = newQueue();
    queue.addAfter('a', 10);
    queue.addAfter('b', 10);
    clock.advance(10);
    queue.add('x');
    queue.addAfter('b', 0, 1_000);
    queue.add('b');
    expect(queue.len()).toBe(3);
    expect(await takeAll(queue)).toEqual(['b', 'x', 'a']);
  });

  it('keeps the earlier of two deadlines, and forgets it once the key is handed out', async () => {
    const { queue, clock } = newQueue();
    queue.addAfter('a', 10, 100);
    queue.addAfter('a', 10, 5_000);
    queue.addAfter('b', 10, 1_000);
    clock.advance(10);
    expect(await takeAll(queue)).toEqual(['a', 'b']);
    queue.done('a');
    queue.done('b');
    // No deadline given this time: `a` waits with the polls.
    queue.addAfter('a', 10);
    queue.addAfter('c', 10, 1_000);
    clock.advance(10);
    queue.add('change');
    expect(await takeAll(queue)).toEqual(['c', 'change', 'a']);
  });

  it('requeues a key given a deadline while in flight ahead of others when done', async () => {
    const { queue, clock } = newQueue();
    queue.add('busy');
    expect(await queue.get()).toBe('busy');
    queue.addAfter('busy', 10, 1_000);
    clock.advance(10);
    queue.add('other');
    queue.done('busy');
    expect(await takeAll(queue)).toEqual(['busy', 'other']);
  });

  it('drops deadlines on shutDown', async () => {
    const { queue } = newQueue();
    queue.addAfter('a', 0, 1_000);
    queue.shutDown();
    expect(queue.len()).toBe(0);
    expect(await queue.get()).toBeUndefined();
  });
});
