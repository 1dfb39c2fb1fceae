/**
 * Debounces wake-ups from change events: the resources a burst of events concerns are enqueued
 * once, `debounceMs` after the first event of the burst (an edit of ten keys is one reconcile).
 */
import { requestKey, type Request } from '../../../runtime/reconcile.ts';

export class WakeQueue {
  private readonly pending = new Map<string, Request>();
  private timer: NodeJS.Timeout | undefined;
  private readonly enqueue: (requests: readonly Request[]) => void;
  private readonly debounceMs: number;

  constructor(enqueue: (requests: readonly Request[]) => void, debounceMs: number) {
    this.enqueue = enqueue;
    this.debounceMs = debounceMs;
  }

  /** Wakes `request` at the end of the current burst. */
  add(request: Request): void {
    this.pending.set(requestKey(request), request);
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), this.debounceMs);
    this.timer.unref();
  }

  /** Enqueues everything pending now. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const requests = [...this.pending.values()];
    this.pending.clear();
    if (requests.length > 0) this.enqueue(requests);
  }
}
