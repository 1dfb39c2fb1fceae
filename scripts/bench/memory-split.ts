/**
 * Where a process's resident memory lies, from `/proc/<pid>/smaps` and `/proc/<pid>/status`:
 * the node binary's pages, other files, the malloc heap (`[heap]`), anonymous mappings (V8's
 * heap pages, code space and large malloc blocks), stacks, and the thread count. Read by the
 * benchmarks (`bench:rest`), never by the operator.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Resident KiB by kind of mapping, plus the status figures. */
export interface MemorySplit {
  readonly rssKiB: number;
  readonly hwmKiB: number;
  readonly anonKiB: number;
  readonly fileKiB: number;
  readonly threads: number;
  /** Resident KiB per group: `node binary`, `other files`, `[heap] (malloc)`, `anonymous`, `stacks`. */
  readonly groups: Readonly<Record<string, number>>;
}

function groupOf(path: string, executable: string): string {
  if (path === executable) return 'node binary';
  if (path === '[heap]') return '[heap] (malloc)';
  if (path.startsWith('[stack')) return 'stacks';
  if (path === '' || path.startsWith('[anon')) return 'anonymous (V8 heap, code, large malloc)';
  if (path.startsWith('[')) return 'other kernel mappings';
  return 'other files (libc, ICU data…)';
}

/** The memory split of process `pid` (Linux only). */
export function memorySplit(pid: number): MemorySplit {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  const executable = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
  const groups: Record<string, number> = {};
  let group = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      group = groupOf(header[1] ?? '', executable);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) groups[group] = (groups[group] ?? 0) + Number(rss[1]);
  }
  return {
    rssKiB: kib('VmRSS'),
    hwmKiB: kib('VmHWM'),
    anonKiB: kib('RssAnon'),
    fileKiB: kib('RssFile'),
    threads: readdirSync(`/proc/${pid}/task`).length,
    groups,
  };
}

/** "91.2 MiB (anonymous 40.1, file 51.1); node binary 36.0, …; 11 threads". */
export function memorySplitText(split: MemorySplit): string {
  const m = (k: number) => (k / 1024).toFixed(1);
  const groups = Object.entries(split.groups)
    .sort((a, b) => b[1] - a[1])
    .map(([name, k]) => `${name} ${m(k)}`)
    .join(', ');
  return `${m(split.rssKiB)} MiB (anonymous ${m(split.anonKiB)}, file ${m(split.fileKiB)}); ${groups}; ${split.threads} threads`;
}
