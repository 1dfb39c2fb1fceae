/**
 * What a private PostgreSQL (`postgres.ts`) leaves when its owner process is killed with SIGKILL:
 * the server itself stops (its guard shuts it down), but no exit handler removes its directory.
 * Each directory records its owner's pid in {@link OWNER_FILE}; the next start under the same
 * parent removes every `coffer-postgres-` directory whose owner is gone, first stopping a server
 * still running there (possible only when its guard was killed too). A directory without the
 * file, or whose owner is alive, is left alone: it may be another process's, being set up or in use.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The prefix of every private PostgreSQL's directory. */
export const DIR_PREFIX = 'coffer-postgres-';
/** The file in that directory holding the pid of the process that made it. */
export const OWNER_FILE = 'owner.pid';

/** Records this process as the owner of `dir`. */
export function markOwner(dir: string): void {
  writeFileSync(join(dir, OWNER_FILE), `${process.pid}\n`);
}

/** The pid on the first line of `file`, or undefined. */
function pidIn(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** True while process `pid` exists (a process of another user counts). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Stops the server of data directory `data` (synchronously). */
export type StopLeftover = (data: string) => void;

/** True when `dir` is a leftover: its owner is recorded and gone. */
function isLeftover(dir: string): boolean {
  const owner = pidIn(join(dir, OWNER_FILE));
  return owner !== undefined && owner !== process.pid && !alive(owner);
}

/**
 * Removes the directories under `parent` that dead owners left (see the module comment); returns
 * their paths. `stopServer` is called for one whose postmaster still runs.
 */
export function removeLeftovers(parent: string, stopServer: StopLeftover): string[] {
  let names: string[];
  try {
    names = readdirSync(parent).filter((name) => name.startsWith(DIR_PREFIX));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const dir of names.map((name) => join(parent, name)).filter(isLeftover)) {
    const data = join(dir, 'data');
    const postmaster = pidIn(join(data, 'postmaster.pid'));
    if (postmaster !== undefined && alive(postmaster)) stopServer(data);
    rmSync(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}
