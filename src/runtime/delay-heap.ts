/**
 * Keys waiting until a point in time, earliest first. A key waits at most once: scheduling it
 * again keeps the earlier time (as client-go's delaying queue does), so a far-future poll never
 * postpones an imminent retry.
 */

interface Entry {
  readonly at: number;
  readonly key: string;
}

export class DelayHeap {
  private readonly heap: Entry[] = [];
  private readonly due = new Map<string, number>();

  /** Number of distinct keys waiting. */
  get size(): number {
    return this.due.size;
  }

  /** Schedules `key` at `at` unless it already waits until an earlier or equal time. Returns true if changed. */
  schedule(key: string, at: number): boolean {
    const current = this.due.get(key);
    if (current !== undefined && current <= at) return false;
    this.due.set(key, at);
    // The superseded entry stays in the heap and is skipped when popped (lazy deletion).
    this.push({ at, key });
    return true;
  }

  /** The earliest due time, or undefined when empty. */
  peekTime(): number | undefined {
    this.dropStale();
    return this.heap[0]?.at;
  }

  /** Removes and returns every key due at or before `now`, earliest first. */
  popDue(now: number): string[] {
    const keys: string[] = [];
    for (let top = this.peekTime(); top !== undefined && top <= now; top = this.peekTime()) {
      const entry = this.pop();
      this.due.delete(entry.key);
      keys.push(entry.key);
    }
    return keys;
  }

  /** Removes and returns the key with the earliest time, or undefined when empty. */
  shift(): string | undefined {
    if (this.peekTime() === undefined) return undefined;
    const entry = this.pop();
    this.due.delete(entry.key);
    return entry.key;
  }

  /** Forgets every waiting key. */
  clear(): void {
    this.heap.length = 0;
    this.due.clear();
  }

  private dropStale(): void {
    for (let top = this.heap[0]; top && this.due.get(top.key) !== top.at; top = this.heap[0]) this.pop();
  }

  private push(entry: Entry): void {
    const h = this.heap;
    h.push(entry);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.at <= entry.at) break;
      h[i] = h[parent]!;
      i = parent;
    }
    h[i] = entry;
  }

  private pop(): Entry {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) this.siftDown(last);
    return top;
  }

  private siftDown(entry: Entry): void {
    const h = this.heap;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= h.length) break;
      const right = left + 1;
      const child = right < h.length && h[right]!.at < h[left]!.at ? right : left;
      if (h[child]!.at >= entry.at) break;
      h[i] = h[child]!;
      i = child;
    }
    h[i] = entry;
  }
}
