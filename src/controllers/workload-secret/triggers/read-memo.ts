/**
 * What each source of each WorkloadSecret read last, and whether that read is still good. A
 * source is read again when:
 *
 * - the resource's spec changed (generation) or the source now names another folder;
 * - a change event touched its folder, or a folder check found its folder deleted (`markDirty`);
 * - its project's event stream opened since the read (a new epoch: events are not replayed, so
 *   a change may have been missed while no stream was open);
 * - no stream covers it now (events unavailable) and `resyncMs` passed since the read.
 *
 * While a stream covers the source with the epoch of the read, nothing can have changed unseen
 * but a deleted folder (the service sends no event for it; the hub's folder checks find it and
 * `markDirty`): the periodic resync then reads nothing.
 */

/** One source read: its value as the kind made it, with when and under which epoch. */
interface SlotRead<T> {
  readonly scopeKey: string;
  readonly value: T;
  /** The covering stream's epoch when the read started; undefined when no stream covered it. */
  readonly epoch: number | undefined;
  readonly readAt: number;
}

interface Entry<T> {
  readonly uid: string | undefined;
  readonly generation: number | undefined;
  readonly slots: (SlotRead<T> | undefined)[];
}

/** Identity of a resource for the memo. */
export interface MemoSubject {
  readonly key: string;
  readonly uid: string | undefined;
  readonly generation: number | undefined;
}

/** The time of a look (ms) and the resource's resync interval. */
export interface Moment {
  readonly at: number;
  readonly resyncMs: number;
}

/** The state of one source now. */
export interface SlotNow {
  readonly scopeKey: string;
  /** The covering stream's epoch now; undefined when no stream covers the source. */
  readonly epoch: number | undefined;
}

export class ReadMemo<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly dirty = new Set<string>();

  /** A change event touched source `slot` of resource `key`. */
  markDirty(key: string, slot: number): void {
    this.dirty.add(`${key}#${slot}`);
  }

  /** The remembered value of source `slot` when it is still good (module comment), else undefined. */
  fresh(subject: MemoSubject, slot: number, now: SlotNow & Moment): { value: T } | undefined {
    const { at, resyncMs } = now;
    const entry = this.entries.get(subject.key);
    if (!entry || entry.uid !== subject.uid || entry.generation !== subject.generation) return undefined;
    const read = entry.slots[slot];
    if (!read || read.scopeKey !== now.scopeKey || this.dirty.has(`${subject.key}#${slot}`)) return undefined;
    if (now.epoch !== undefined) return now.epoch === read.epoch ? { value: read.value } : undefined;
    return at - read.readAt < resyncMs ? { value: read.value } : undefined;
  }

  /** A read of source `slot` starts: events from now on mark it dirty again. */
  starting(key: string, slot: number): void {
    this.dirty.delete(`${key}#${slot}`);
  }

  /** Records a finished read of `slot` (started under `epoch` at `readAt`). */
  remember(subject: MemoSubject, slot: number, read: SlotRead<T>): void {
    let entry = this.entries.get(subject.key);
    if (!entry || entry.uid !== subject.uid || entry.generation !== subject.generation) {
      entry = { uid: subject.uid, generation: subject.generation, slots: [] };
      this.entries.set(subject.key, entry);
    }
    entry.slots[slot] = read;
  }

  /** Whether a read of source `slot` of `key` is remembered (the last one succeeded). */
  hasRead(key: string, slot: number): boolean {
    return this.entries.get(key)?.slots[slot] !== undefined;
  }

  /** Drops what source `slot` read (its read failed: the next look reads it again). */
  drop(key: string, slot: number): void {
    const entry = this.entries.get(key);
    if (entry) entry.slots[slot] = undefined;
  }

  /**
   * Milliseconds until some source of `key` is due for a resync read: `resyncMs` for a source a
   * stream covers (a look that reads nothing), the rest of its interval otherwise.
   */
  dueInMs(key: string, states: readonly SlotNow[], at: number, resyncMs: number): number {
    const slots = this.entries.get(key)?.slots ?? [];
    let due = resyncMs;
    states.forEach((state, slot) => {
      const read = slots[slot];
      if (state.epoch === undefined && read) due = Math.min(due, read.readAt + resyncMs - at);
    });
    return Math.max(1_000, due);
  }

  /** Forgets a resource (deleted). */
  forget(key: string): void {
    this.entries.delete(key);
    for (const dirty of [...this.dirty]) if (dirty.startsWith(`${key}#`)) this.dirty.delete(dirty);
  }
}
