/**
 * Folder checks: the service publishes no project event when a folder is deleted — its secrets,
 * subfolders and imports go with it silently (docs/service-facts.md, "Folders: delete") — so a
 * source whose folder was deleted would go on looking fresh while its stream stays open.
 *
 * A hub built with `folderGone` checks the folders of each of its open streams: one folder list
 * per environment the stream's resources read (`GET /api/v2/folders` from `/`, recursive: any
 * member of the project may list folders), reporting the resources whose folder that list no
 * longer shows. `FolderCheckSchedule` alone decides when a stream's check runs:
 *
 * - after a burst of change events the stream delivered: `folderCheckDelayMs` after the burst's
 *   first event, and at most once per `folderCheckIntervalMs` (a deletion followed by any event
 *   is found within seconds);
 * - while the stream is open, at the latest one period after it opened or after its last check
 *   (whatever asked for that one): the shortest period its resources ask for
 *   (`Interest.resyncMs`; `folderCheckPeriodMs` otherwise), up to 10% earlier (jitter). A
 *   deletion no event follows is found within one period.
 *
 * A stream's checks run one at a time. The cost is one list per stream and environment per
 * period at rest, never one per resource; no timer runs for a stream that is not open.
 */
import { isNotFound, type Folder, type ServiceClient } from '../../client/index.ts';

/** Timing of the folder checks (ms). */
export interface FolderCheckTiming {
  /** From the first event of a burst to the check it asks for. */
  readonly folderCheckDelayMs: number;
  /**
   * Least time between the end of one check of a stream and the start of the next one a burst
   * asks for; also the shortest period of the checks of an open stream.
   */
  readonly folderCheckIntervalMs: number;
  /** The period of the checks of an open stream whose resources ask for none. */
  readonly folderCheckPeriodMs: number;
}

type FolderLink = Pick<Folder, 'id' | 'name' | 'parentId'>;

/** The path of folder `id`, computing (and remembering in `known`) its ancestors' on the way. */
function pathOf(id: string, byId: ReadonlyMap<string, FolderLink>, known: Map<string, string>): string {
  const chain: FolderLink[] = [];
  let base = '';
  for (let folder = byId.get(id); folder; folder = byId.get(folder.parentId ?? '')) {
    const done = known.get(folder.id);
    if (done !== undefined) {
      base = done;
      break;
    }
    // More links than folders: the answer is not a tree; stop rather than loop.
    if (chain.length > byId.size) break;
    chain.push(folder);
  }
  for (const folder of chain.reverse()) {
    base = `${base}/${folder.name}`;
    known.set(folder.id, base);
  }
  return base;
}

/**
 * The paths of the folders of a recursive list from `/` (which leaves `/` out), built from their
 * ids, parents and names: a folder whose parent is not listed is a child of `/`. The service
 * answers the path relative to the listed folder (`relativePath`) and the devserver `path`;
 * neither is needed.
 */
export function folderPaths(folders: readonly FolderLink[]): Set<string> {
  const byId = new Map(folders.map((folder) => [folder.id, folder]));
  const known = new Map<string, string>();
  return new Set(folders.map((folder) => pathOf(folder.id, byId, known)));
}

/**
 * Whether each folder of one environment exists now, from one folder list. A 404 (the
 * environment or the project is gone) means no folder does; another failure is thrown.
 */
export async function folderExists(
  client: ServiceClient,
  scope: { readonly projectId: string; readonly environment: string },
  signal?: AbortSignal,
): Promise<(secretPath: string) => boolean> {
  try {
    const query = { ...scope, path: '/', recursive: true };
    const paths = folderPaths(await client.folders.list(query, signal ? { signal } : {}));
    return (secretPath) => secretPath === '/' || paths.has(secretPath);
  } catch (error) {
    if (isNotFound(error)) return () => false;
    throw error;
  }
}

/** What a folder check looks at of a registered interest. */
export interface WatchedFolder {
  readonly environment: string;
  readonly secretPath: string;
}

/** The `watched` folders that no longer exist: one `exists` call per environment. */
export async function goneFolders<W extends WatchedFolder>(
  watched: readonly W[],
  exists: (environment: string) => Promise<(secretPath: string) => boolean>,
): Promise<W[]> {
  const gone: W[] = [];
  const environments = new Set(watched.map((w) => w.environment));
  for (const environment of environments) {
    const present = await exists(environment);
    for (const w of watched) if (w.environment === environment && !present(w.secretPath)) gone.push(w);
  }
  return gone;
}

/** What a `FolderCheckSchedule` asks of its hub. */
export interface FolderCheckHooks {
  /** Checks the folders of a stream; never rejects (failures are the hub's to log). */
  run(streamKey: string): Promise<void>;
  /** The period of a stream's checks while it is open: the shortest its resources ask for. */
  periodOf(streamKey: string): number;
}

interface Schedule {
  timer: NodeJS.Timeout | undefined;
  /** When `timer` fires (clock ms). */
  timerAt: number;
  running: boolean;
  /** When a burst of events asked for a check that has not started yet. */
  askedAt: number | undefined;
  /** When the next periodic check is due; Infinity while the stream is not open. */
  periodicAt: number;
  /** The later of the stream's last open and the end of its last check: periods count from it. */
  since: number;
  lastEnd: number;
}

/** Up to 10% earlier than the period (never later: a deletion is found within one period). */
const JITTER = 0.1;

/** When each stream's folder check runs (see the module comment). */
export class FolderCheckSchedule {
  private readonly schedules = new Map<string, Schedule>();
  private readonly hooks: FolderCheckHooks;
  private readonly timing: FolderCheckTiming;
  private readonly clock: () => number;
  private readonly random: () => number;

  constructor(
    hooks: FolderCheckHooks,
    timing: FolderCheckTiming,
    sources: { readonly clock?: () => number; readonly random?: () => number } = {},
  ) {
    this.hooks = hooks;
    this.timing = timing;
    this.clock = sources.clock ?? Date.now;
    this.random = sources.random ?? Math.random;
  }

  /** Events arrived on the stream: check its folders soon (once for the whole burst). */
  touch(streamKey: string): void {
    const schedule = this.scheduleOf(streamKey);
    schedule.askedAt ??= this.clock();
    this.plan(streamKey, schedule);
  }

  /**
   * The stream opened (first time, after a break, or with new registrations; its resources read
   * their sources again now): a periodic check one period from now.
   */
  opened(streamKey: string): void {
    const schedule = this.scheduleOf(streamKey);
    schedule.since = this.clock();
    schedule.periodicAt = schedule.since + this.periodMs(this.hooks.periodOf(streamKey));
    this.plan(streamKey, schedule);
  }

  /** The stream is not open (reconnecting, refused): no periodic check until it opens again. */
  closed(streamKey: string): void {
    const schedule = this.schedules.get(streamKey);
    if (!schedule) return;
    schedule.periodicAt = Infinity;
    this.plan(streamKey, schedule);
  }

  /**
   * A resource of the open stream asks for checks at least every `periodMs` (it registered, or
   * its period changed): the next periodic check comes no later than that from the last one.
   * A longer period takes effect after the next check (`periodOf` is asked again then).
   */
  periodAtMost(streamKey: string, periodMs: number): void {
    const schedule = this.schedules.get(streamKey);
    if (!schedule || schedule.periodicAt === Infinity) return;
    schedule.periodicAt = Math.min(schedule.periodicAt, schedule.since + this.periodMs(periodMs));
    this.plan(streamKey, schedule);
  }

  /** The stream is gone: no check for it. */
  forget(streamKey: string): void {
    clearTimeout(this.schedules.get(streamKey)?.timer);
    this.schedules.delete(streamKey);
  }

  /** When the next check starts (clock ms): now while one runs; undefined when none is planned. */
  nextDueAt(): number | undefined {
    let next = Infinity;
    for (const s of this.schedules.values())
      next = Math.min(next, s.running ? this.clock() : s.timer ? s.timerAt : Infinity);
    return next === Infinity ? undefined : next;
  }

  /** Cancels every scheduled check (the background stopped). */
  stop(): void {
    for (const key of [...this.schedules.keys()]) this.forget(key);
  }

  private scheduleOf(streamKey: string): Schedule {
    let schedule = this.schedules.get(streamKey);
    if (!schedule) {
      schedule = {
        timer: undefined,
        timerAt: Infinity,
        running: false,
        askedAt: undefined,
        periodicAt: Infinity,
        since: this.clock(),
        lastEnd: -Infinity,
      };
      this.schedules.set(streamKey, schedule);
    }
    return schedule;
  }

  /** A period with its jitter, at least `folderCheckIntervalMs`. */
  private periodMs(periodMs: number): number {
    const period = Math.max(periodMs, this.timing.folderCheckIntervalMs);
    return period - Math.round(this.random() * JITTER * period);
  }

  /** Sets the timer for the next check that is due (none when none is; after the run, if one runs). */
  private plan(streamKey: string, schedule: Schedule): void {
    if (schedule.running) return;
    const { askedAt } = schedule;
    const { folderCheckDelayMs, folderCheckIntervalMs } = this.timing;
    const burstAt =
      askedAt === undefined
        ? Infinity
        : Math.max(askedAt + folderCheckDelayMs, schedule.lastEnd + folderCheckIntervalMs);
    const due = Math.min(burstAt, schedule.periodicAt);
    if (schedule.timer && schedule.timerAt === due) return;
    clearTimeout(schedule.timer);
    schedule.timer = undefined;
    schedule.timerAt = due;
    if (due === Infinity) return;
    schedule.timer = setTimeout(() => void this.fire(streamKey, schedule), Math.max(0, due - this.clock()));
    schedule.timer.unref();
  }

  private async fire(streamKey: string, schedule: Schedule): Promise<void> {
    schedule.timer = undefined;
    schedule.running = true;
    schedule.askedAt = undefined;
    try {
      await this.hooks.run(streamKey);
    } finally {
      schedule.running = false;
      schedule.lastEnd = schedule.since = this.clock();
      if (this.schedules.get(streamKey) === schedule) {
        if (schedule.periodicAt !== Infinity) {
          schedule.periodicAt = schedule.lastEnd + this.periodMs(this.hooks.periodOf(streamKey));
        }
        this.plan(streamKey, schedule);
      }
    }
  }
}
