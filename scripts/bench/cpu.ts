/**
 * CPU time of the benchmark's processes (Linux `/proc`): which of kube-apiserver, etcd, the
 * devserver, the operator (or the floor controller) and the benchmark itself used the machine's
 * cores in a phase.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds (user + system) per process role, for processes descending from this one. */
export type CpuSeconds = Record<string, number>;

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ; 100 on Linux). */
const ticksPerSecond = 100;

const roles: [string, RegExp][] = [
  ['kube-apiserver', /kube-apiserver/],
  ['etcd', /(^|\/)etcd(\s|$)/],
  ['devserver', /\bdevserver\b/],
  ['floor controller', /floor-controller/],
  ['operator', /\boperator\b/],
];

interface ProcStat {
  readonly ppid: number;
  readonly cpuTicks: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), cpuTicks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** The processes descending from this one, with the role their command line shows. */
function ownProcesses(): { pid: number; role: string; stat: ProcStat }[] {
  const stats = new Map<number, ProcStat>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = readStat(pid);
    if (stat) stats.set(pid, stat);
  }
  const descends = (pid: number): boolean => {
    for (let at = stats.get(pid)?.ppid, hops = 0; at !== undefined && at > 1 && hops < 32; hops++) {
      if (at === process.pid) return true;
      at = stats.get(at)?.ppid;
    }
    return false;
  };
  const found: { pid: number; role: string; stat: ProcStat }[] = [];
  for (const [pid, stat] of stats) {
    if (!descends(pid)) continue;
    const cmd = commandLine(pid);
    const role = roles.find(([, pattern]) => pattern.test(cmd))?.[0];
    if (role) found.push({ pid, role, stat });
  }
  return found;
}

/** CPU seconds used so far by each role's processes (and by the benchmark itself). */
export function cpuSnapshot(): CpuSeconds {
  const usage = process.cpuUsage();
  const seconds: CpuSeconds = { benchmark: (usage.user + usage.system) / 1e6 };
  for (const { role, stat } of ownProcesses())
    seconds[role] = (seconds[role] ?? 0) + stat.cpuTicks / ticksPerSecond;
  return seconds;
}

/**
 * The process ids of `role` (e.g. `operator`) among this process's descendants, leaves only: a
 * process is started under a guard shell whose command line names it too, and the guard is not
 * the process to signal or measure.
 */
export function pidsOf(role: string): number[] {
  const own = ownProcesses().filter((p) => p.role === role);
  return own.filter((p) => !own.some((child) => child.stat.ppid === p.pid)).map((p) => p.pid);
}

/**
 * Peak resident set size in bytes (`VmHWM` of /proc/<pid>/status) of the largest process of
 * `role`: the process's high-water mark since it started, so no peak between samples is missed.
 */
export function peakRssBytes(role: string): number {
  let peak = 0;
  for (const pid of pidsOf(role)) {
    try {
      const kib = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      peak = Math.max(peak, Number(kib ?? 0) * 1024);
    } catch {
      // The process ended meanwhile.
    }
  }
  return peak;
}

/** "kube-apiserver 80.1 s (45%), ..." for the CPU used between two snapshots over `wallMs`. */
export function cpuText(before: CpuSeconds, after: CpuSeconds, wallMs: number): string {
  const wall = wallMs / 1000;
  return Object.keys(after)
    .map((role) => [role, (after[role] ?? 0) - (before[role] ?? 0)] as const)
    .sort((a, b) => b[1] - a[1])
    .map(([role, used]) => `${role} ${used.toFixed(1)} s (${((used / wall) * 100).toFixed(0)}%)`)
    .join(', ');
}
