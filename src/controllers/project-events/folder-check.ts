/**
 * Folder checks: the service publishes no project event when a folder is deleted — its secrets,
 * subfolders and imports go with it silently (docs/service-facts.md, "Folders: delete") — so a
 * source whose folder was deleted would go on looking fresh while its stream stays open.
 *
 * A hub built with `folderGone` follows each burst of change events one of its streams delivers
 * with one folder list per environment the stream's resources read (`GET /api/v2/folders` from
 * `/`, recursive: any member of the project may list folders) and reports the resources whose
 * folder that list no longer shows. The checks ride on events: a stream that delivers nothing
 * costs nothing (no service call at rest), and a stream's checks run one at a time, at most once
 * per `folderCheckIntervalMs`, `folderCheckDelayMs` after the burst that asked for one.
 */
import { isNotFound, type Folder, type ServiceClient } from '../../client/index.ts';

/** Timing of the folder checks (ms). */
export interface FolderCheckTiming {
  /** From the first event of a burst to the check it asks for. */
  readonly folderCheckDelayMs: number;
  /** Least time between the end of one check of a stream and the start of the next. */
  readonly folderCheckIntervalMs: number;
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

interface Schedule {
  timer: NodeJS.Timeout | undefined;
  running: boolean;
  /** Events arrived while a check ran: one more check after it. */
  pending: boolean;
  lastEnd: number;
}

/** When each stream's folder check runs (see the module comment). */
export class FolderCheckSchedule {
  private readonly schedules = new Map<string, Schedule>();
  private readonly run: (streamKey: string) => Promise<void>;
  private readonly timing: FolderCheckTiming;
  private readonly clock: () => number;

  constructor(run: (streamKey: string) => Promise<void>, timing: FolderCheckTiming, clock = Date.now) {
    this.run = run;
    this.timing = timing;
    this.clock = clock;
  }

  /** Events arrived on the stream: check its folders soon (once for the whole burst). */
  touch(streamKey: string): void {
    let schedule = this.schedules.get(streamKey);
    if (!schedule) {
      schedule = { timer: undefined, running: false, pending: false, lastEnd: -Infinity };
      this.schedules.set(streamKey, schedule);
    }
    if (schedule.running) schedule.pending = true;
    if (schedule.running || schedule.timer) return;
    const { folderCheckDelayMs, folderCheckIntervalMs } = this.timing;
    const wait = Math.max(folderCheckDelayMs, schedule.lastEnd + folderCheckIntervalMs - this.clock());
    const current = schedule;
    schedule.timer = setTimeout(() => void this.fire(streamKey, current), wait);
    schedule.timer.unref();
  }

  /** The stream is gone: no check for it. */
  forget(streamKey: string): void {
    clearTimeout(this.schedules.get(streamKey)?.timer);
    this.schedules.delete(streamKey);
  }

  /** Cancels every scheduled check (the background stopped). */
  stop(): void {
    for (const key of [...this.schedules.keys()]) this.forget(key);
  }

  private async fire(streamKey: string, schedule: Schedule): Promise<void> {
    schedule.timer = undefined;
    schedule.running = true;
    try {
      await this.run(streamKey);
    } finally {
      schedule.running = false;
      schedule.lastEnd = this.clock();
      if (schedule.pending && this.schedules.get(streamKey) === schedule) {
        schedule.pending = false;
        this.touch(streamKey);
      }
    }
  }
}
