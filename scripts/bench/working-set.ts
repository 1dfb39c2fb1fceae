/**
 * A process's memory as the kubelet sees it, for the benchmarks.
 *
 * Working set: what the kubelet (cAdvisor) reports and evicts by, and what a memory limit is
 * compared with — the cgroup's usage minus its inactive file pages:
 *   cgroup v1: `memory.usage_in_bytes` − `total_inactive_file` of `memory.stat`
 *   cgroup v2: `memory.current` − `inactive_file` of `memory.stat`
 * Anonymous memory: `RssAnon` of /proc/<pid>/status (heap, stacks, V8's pages; what no
 * reclaim can take back without swap).
 *
 * `createCgroup` and `launcher` start the process in a memory cgroup of its own (a child of the
 * benchmark's own cgroup), so the working set is the real figure. For the node binary's pages to
 * be charged there as in a pod (where the container is the first to read its image's files), the
 * benchmark runs a private copy of the node binary whose page cache was dropped before it started
 * (`privateNodeBinary`).
 * Without a writable memory cgroup the working set is approximated from the process alone:
 * `RssAnon + RssShmem + RssFile`, an upper bound (it counts every resident file page as active).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';

/** One sample, in KiB. */
export interface MemoryFigures {
  /** As the kubelet computes it (`cgroup`), or the process-only upper bound (`process`). */
  readonly workingSetKiB: number;
  readonly anonKiB: number;
  readonly rssKiB: number;
  readonly source: 'cgroup' | 'process';
}

/** A memory cgroup holding one process. */
export interface IsolatedCgroup {
  readonly dir: string;
  readonly version: 1 | 2;
  /** Removes the cgroup once its process has exited (best effort: it may still be draining). */
  remove(): void;
}

function statusKiB(pid: number): { anon: number; shmem: number; file: number; rss: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { anon: kib('RssAnon'), shmem: kib('RssShmem'), file: kib('RssFile'), rss: kib('VmRSS') };
}

function statValue(stat: string, name: string): number {
  return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(stat)?.[1] ?? 0);
}

/** The working set of a cgroup in KiB, computed as cAdvisor does. */
export function cgroupWorkingSetKiB(cgroup: IsolatedCgroup): number {
  const stat = readFileSync(join(cgroup.dir, 'memory.stat'), 'utf8');
  const v1 = cgroup.version === 1;
  const usage = Number(
    readFileSync(join(cgroup.dir, v1 ? 'memory.usage_in_bytes' : 'memory.current'), 'utf8'),
  );
  const inactive = statValue(stat, v1 ? 'total_inactive_file' : 'inactive_file');
  return Math.max(0, usage - inactive) / 1024;
}

/** The memory figures of `pid`, from its cgroup when it has one of its own. */
export function memoryFigures(pid: number, cgroup?: IsolatedCgroup): MemoryFigures {
  const own = statusKiB(pid);
  const workingSetKiB = cgroup ? cgroupWorkingSetKiB(cgroup) : own.anon + own.shmem + own.file;
  return { workingSetKiB, anonKiB: own.anon, rssKiB: own.rss, source: cgroup ? 'cgroup' : 'process' };
}

/** "working set 52.3 MiB (cgroup), anonymous 40.1, RSS 91.2". */
export function memoryFiguresText(figures: MemoryFigures): string {
  const m = (k: number) => (k / 1024).toFixed(1);
  const ws =
    figures.source === 'cgroup' ? 'working set' : 'working set (no cgroup: upper bound anon+shmem+file)';
  return `${ws} ${m(figures.workingSetKiB)} MiB, anonymous ${m(figures.anonKiB)}, RSS ${m(figures.rssKiB)}`;
}

/** The memory cgroup directory this process is in, and the hierarchy's version. */
function ownMemoryCgroup(): { dir: string; version: 1 | 2 } | undefined {
  const lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  const v1 = lines.find((line) => /^\d+:([^:]*,)?memory(,[^:]*)?:/.test(line));
  if (v1 && existsSync('/sys/fs/cgroup/memory')) {
    return { dir: join('/sys/fs/cgroup/memory', v1.split(':')[2] ?? '/'), version: 1 };
  }
  const v2 = lines.find((line) => line.startsWith('0::'));
  if (v2 && existsSync('/sys/fs/cgroup/cgroup.controllers')) {
    return { dir: join('/sys/fs/cgroup', v2.slice(3)), version: 2 };
  }
  return undefined;
}

/**
 * A new memory cgroup below the benchmark's own, or undefined (with the reason logged) when none
 * can be created here (not root, read-only cgroupfs, a v2 parent that does not delegate memory).
 * A process is charged for the pages it touches while in the cgroup (`launcher` starts it there).
 */
export function createCgroup(name: string, log: (line: string) => void): IsolatedCgroup | undefined {
  const parent = ownMemoryCgroup();
  if (!parent) {
    log('no memory cgroup: the working set is approximated from the process alone');
    return undefined;
  }
  const dir = join(parent.dir, `${name}-${process.pid}-${Date.now()}`);
  try {
    mkdirSync(dir);
  } catch (error) {
    log(`cannot create a memory cgroup (${String(error)}): approximating the working set from the process`);
    return undefined;
  }
  if (!existsSync(join(dir, 'memory.stat'))) {
    // cgroup v2 without the memory controller delegated to the new child.
    rmdirSync(dir);
    log('the new cgroup has no memory controller: approximating the working set from the process');
    return undefined;
  }
  return {
    dir,
    version: parent.version,
    remove() {
      try {
        rmdirSync(dir);
      } catch {
        // Still holds a process or charges being drained; the kernel frees it with its parent.
      }
    },
  };
}

/**
 * The command that runs `node` inside `cgroup` from its first instruction: a shell that enters
 * the cgroup, then replaces itself with node (pages are charged where they are first touched).
 */
export function launcher(cgroup: IsolatedCgroup | undefined, node: string): readonly string[] {
  if (!cgroup) return [node];
  return ['sh', '-c', 'echo $$ > "$0" && exec "$@"', join(cgroup.dir, 'cgroup.procs'), node];
}

/**
 * A copy of the node binary in `dir` with none of its pages cached, so the process that runs it
 * is the one whose cgroup its file pages are charged to, as in a pod of its own.
 */
export function privateNodeBinary(dir: string): string {
  const copy = join(dir, 'node');
  copyFileSync(process.execPath, copy);
  // Write the copy out, then drop its page cache (posix_fadvise DONTNEED over the whole file).
  execFileSync('dd', [
    `if=${copy}`,
    `of=${copy}`,
    'oflag=nocache',
    'conv=notrunc,fdatasync',
    'count=0',
    'status=none',
  ]);
  execFileSync('dd', [`if=${copy}`, 'iflag=nocache', 'count=0', 'status=none']);
  return copy;
}

/** The paragraph the benchmarks' `--help` prints about their memory figures. */
export const memoryHelp = `Memory is printed as the kubelet sees it: the working set of the operator's own memory
cgroup (usage minus inactive file pages: v1 memory.usage_in_bytes - total_inactive_file, v2
memory.current - inactive_file), its anonymous memory (RssAnon) and RSS. Without a memory cgroup
the working set is RssAnon + RssShmem + RssFile of the process, an upper bound, and says so.`;
