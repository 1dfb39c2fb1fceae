/**
 * Heap snapshots of the operator process and what they hold, by object type.
 *
 * The benchmark starts the operator's node with `--heapsnapshot-signal=SIGUSR2` and
 * `--diagnostic-dir=<dir>` (`heapSnapshotNodeArgs`); `takeHeapSnapshot` sends the signal and waits
 * for the file. `summariseHeapSnapshot` groups the snapshot's nodes by constructor name (objects)
 * or by V8 node type (strings, arrays, code, closures…) and sums their self sizes: where the heap
 * goes, not who retains it (open the file in Chrome DevTools for retainers).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Node options that let `takeHeapSnapshot` ask the process for a snapshot written into `dir`. */
export function heapSnapshotNodeArgs(dir: string): string[] {
  return ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`];
}

function snapshotsIn(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith('.heapsnapshot'));
}

/** Signals `pid` to write a heap snapshot into `dir`; resolves with its path once written. */
export async function takeHeapSnapshot(pid: number, dir: string, timeoutMs = 300_000): Promise<string> {
  const before = new Set(snapshotsIn(dir));
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + timeoutMs;
  let lastSize = -1;
  while (Date.now() < deadline) {
    await sleep(1_000);
    const file = snapshotsIn(dir).find((f) => !before.has(f));
    if (!file) continue;
    const path = join(dir, file);
    // Written as a stream: complete once its size stops changing and the JSON closes.
    const size = statSync(path).size;
    if (size > 0 && size === lastSize && readFileSync(path, 'utf8').trimEnd().endsWith('}')) return path;
    lastSize = size;
  }
  throw new Error(`cannot take a heap snapshot of process ${pid}: no file in ${dir} after ${timeoutMs} ms`);
}

/** One line of a summary: a constructor name or `(type)`, how many nodes and their self size. */
export interface HeapGroup {
  readonly name: string;
  readonly count: number;
  readonly bytes: number;
}

interface SnapshotJson {
  readonly snapshot: { readonly meta: { readonly node_fields: string[]; readonly node_types: unknown[] } };
  readonly nodes: number[];
  readonly strings: string[];
}

/** Objects by constructor name; everything else by its V8 type (`(string)`, `(closure)`, …). */
function groupName(type: string, name: string): string {
  if (type === 'object') return name;
  if (type === 'closure') return '(closure)';
  if (type === 'concatenated string' || type === 'sliced string') return '(string)';
  return `(${type})`;
}

/** The groups of a snapshot file, largest self size first, plus the total. */
export function summariseHeapSnapshot(path: string): { total: number; groups: HeapGroup[] } {
  const json = JSON.parse(readFileSync(path, 'utf8')) as SnapshotJson;
  const fields = json.snapshot.meta.node_fields;
  const types = json.snapshot.meta.node_types[0] as string[];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const groups = new Map<string, { count: number; bytes: number }>();
  let total = 0;
  for (let i = 0; i < json.nodes.length; i += fields.length) {
    const type = types[json.nodes[i + typeAt] ?? 0] ?? 'unknown';
    const name = groupName(type, json.strings[json.nodes[i + nameAt] ?? 0] ?? '');
    const bytes = json.nodes[i + sizeAt] ?? 0;
    const group = groups.get(name) ?? { count: 0, bytes: 0 };
    group.count += 1;
    group.bytes += bytes;
    groups.set(name, group);
    total += bytes;
  }
  const sorted = [...groups].map(([name, g]) => ({ name, ...g })).sort((a, b) => b.bytes - a.bytes);
  return { total, groups: sorted };
}

/** The `top` groups as text lines: `  1.23 MiB  12,345  Name`. */
export function heapSummaryText(summary: { total: number; groups: HeapGroup[] }, top = 20): string {
  const mib = (b: number) => `${(b / 1024 / 1024).toFixed(2)} MiB`;
  const lines = summary.groups
    .slice(0, top)
    .map((g) => `  ${mib(g.bytes).padStart(11)}  ${g.count.toLocaleString('en').padStart(9)}  ${g.name}`);
  return [`  ${mib(summary.total).padStart(11)}  total self size`, ...lines].join('\n');
}
