/** Helpers of the work queue's tests: a queue on a manual clock, and draining what is ready. */
import { ManualClock } from './clock.ts';
import { WorkQueue, type WorkQueueOptions } from './work-queue.ts';

/** A queue on a manual clock with no jitter and a bucket large enough to stay out of the way. */
export function newQueue(options: WorkQueueOptions = {}) {
  const clock = new ManualClock(1_000);
  const queue = new WorkQueue({
    clock,
    backoff: { jitter: 0 },
    rateLimit: { qps: 1_000, burst: 1_000 },
    ...options,
  });
  return { clock, queue };
}

/** Every key the queue hands out without waiting (a `get` that would block stops the loop). */
export async function takeAll(queue: WorkQueue): Promise<string[]> {
  const keys: string[] = [];
  while (queue.len() > 0) {
    const key = await queue.get();
    if (key === undefined) break;
    keys.push(key);
  }
  return keys;
}
