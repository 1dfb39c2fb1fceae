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

/** What the code of one script costs: its source text and the compiled functions it defines. */
export interface ScriptCost {
  /** The script's URL (a bundle chunk is labelled with its largest inputs, see `chunkLabels`). */
  readonly name: string;
  readonly sourceBytes: number;
  /** Functions (SharedFunctionInfo) of the script in the heap, compiled or not. */
  readonly functions: number;
  /** Their metadata, bytecode, constant pools, feedback and machine code. */
  readonly codeBytes: number;
}

interface Graph {
  readonly json: SnapshotJson & { readonly edges: number[] };
  readonly fields: number;
  readonly edgeFields: number;
  readonly firstEdge: Uint32Array;
  readonly nodeTypes: string[];
  readonly edgeTypes: string[];
}

function graphOf(path: string): Graph {
  const json = JSON.parse(readFileSync(path, 'utf8')) as Graph['json'];
  const meta = json.snapshot.meta as unknown as {
    node_fields: string[];
    edge_fields: string[];
    node_types: [string[]];
    edge_types: [string[]];
  };
  const fields = meta.node_fields.length;
  const edgeCountAt = meta.node_fields.indexOf('edge_count');
  const firstEdge = new Uint32Array(json.nodes.length / fields + 1);
  for (let k = 0, e = 0; k < json.nodes.length / fields; k++) {
    firstEdge[k] = e;
    e += (json.nodes[k * fields + edgeCountAt] ?? 0) * meta.edge_fields.length;
  }
  return {
    json,
    fields,
    edgeFields: meta.edge_fields.length,
    firstEdge,
    nodeTypes: meta.node_types[0],
    edgeTypes: meta.edge_types[0],
  };
}

/** The named (`internal`, `property`…) and indexed edges of node `k`: [edge name, target node]. */
function edgesOf(g: Graph, k: number): [string, number][] {
  const out: [string, number][] = [];
  const count = g.json.nodes[k * g.fields + 4] ?? 0;
  for (let i = 0; i < count; i++) {
    const at = (g.firstEdge[k] ?? 0) + i * g.edgeFields;
    const type = g.edgeTypes[g.json.edges[at] ?? 0] ?? '';
    const nameOrIndex = g.json.edges[at + 1] ?? 0;
    const name =
      type === 'element' || type === 'hidden' ? `#${nameOrIndex}` : (g.json.strings[nameOrIndex] ?? '');
    out.push([name, (g.json.edges[at + 2] ?? 0) / g.fields]);
  }
  return out;
}

/**
 * Code by script: every SharedFunctionInfo (a `code` node with a `script` edge) is charged to its
 * script with the code-type nodes only it leads to (scope info, bytecode and its constant pool,
 * feedback metadata, machine code); each script's source string is charged to it too. Closures,
 * contexts and the objects the code created are not code and stay out.
 */
export function summariseHeapByScript(path: string, labels = chunkLabels()): ScriptCost[] {
  const g = graphOf(path);
  const claimed = new Set<number>();
  const costs = new Map<number, { sourceBytes: number; functions: number; codeBytes: number }>();
  for (let k = 0; k < g.json.nodes.length / g.fields; k++) {
    if (nodeOf(g, k).type !== 'code') continue;
    const script = scriptOf(g, k);
    if (script === undefined) continue;
    const source = edgesOf(g, script).find(([name]) => name === 'source');
    const cost = costs.get(script) ?? {
      sourceBytes: source ? nodeOf(g, source[1]).size : 0,
      functions: 0,
      codeBytes: 0,
    };
    costs.set(script, cost);
    cost.functions += 1;
    cost.codeBytes += claimCode(g, k, claimed);
  }
  return [...costs]
    .map(([script, cost]) => ({ name: labelled(nodeOf(g, script).name, labels), ...cost }))
    .sort((a, b) => b.sourceBytes + b.codeBytes - (a.sourceBytes + a.codeBytes));
}

function nodeOf(g: Graph, k: number): { type: string; name: string; size: number } {
  return {
    type: g.nodeTypes[g.json.nodes[k * g.fields] ?? 0] ?? '',
    name: g.json.strings[g.json.nodes[k * g.fields + 1] ?? 0] ?? '',
    size: g.json.nodes[k * g.fields + 3] ?? 0,
  };
}

/** The script node of function `k`, if `k` is a function (SharedFunctionInfo). */
function scriptOf(g: Graph, k: number): number | undefined {
  return edgesOf(g, k).find(([name]) => name === 'script')?.[1];
}

/** Self sizes of function `start` and the code nodes it leads to that no one claimed yet. */
function claimCode(g: Graph, start: number, claimed: Set<number>): number {
  let bytes = 0;
  const stack = [start];
  while (stack.length > 0) {
    const at = stack.pop() as number;
    if (claimed.has(at)) continue;
    claimed.add(at);
    bytes += nodeOf(g, at).size;
    const next = edgesOf(g, at).filter(
      ([name, to]) =>
        name !== 'script' &&
        nodeOf(g, to).type === 'code' &&
        !claimed.has(to) &&
        scriptOf(g, to) === undefined,
    );
    for (const [, to] of next) stack.push(to);
  }
  return bytes;
}

/** The `top` scripts as text lines: `  1.23 MiB source  2.34 MiB code  1,234 functions  name`. */
export function heapByScriptText(costs: readonly ScriptCost[], top = 20): string {
  const mib = (b: number) => `${(b / 1024 / 1024).toFixed(2)} MiB`;
  const sum = (pick: (c: ScriptCost) => number) => costs.reduce((s, c) => s + pick(c), 0);
  const lines = costs
    .slice(0, top)
    .map(
      (c) =>
        `  ${mib(c.sourceBytes).padStart(10)} source ${mib(c.codeBytes).padStart(10)} code ` +
        `${c.functions.toLocaleString('en').padStart(7)} functions  ${c.name}`,
    );
  const total =
    `  ${mib(sum((c) => c.sourceBytes)).padStart(10)} source ${mib(sum((c) => c.codeBytes)).padStart(10)} code ` +
    `${sum((c) => c.functions)
      .toLocaleString('en')
      .padStart(7)} functions  all ${costs.length} scripts`;
  return [total, ...lines].join('\n');
}

/** Where `npm run build` leaves esbuild's metafile (scripts/build.ts). */
export const buildMetafilePath = join(
  import.meta.dirname,
  '..',
  '..',
  'node_modules',
  '.cache',
  'coffer',
  'build-meta.json',
);

/** Bundle chunk file name → its three largest inputs (packages or source folders). */
export function chunkLabels(metafile = buildMetafilePath): Map<string, string> {
  const labels = new Map<string, string>();
  let meta: { outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }> };
  try {
    meta = JSON.parse(readFileSync(metafile, 'utf8')) as typeof meta;
  } catch {
    return labels;
  }
  for (const [output, { inputs }] of Object.entries(meta.outputs)) {
    const byOrigin = new Map<string, number>();
    for (const [input, { bytesInOutput }] of Object.entries(inputs)) {
      const pkg =
        /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? input.split('/').slice(0, 3).join('/');
      byOrigin.set(pkg, (byOrigin.get(pkg) ?? 0) + bytesInOutput);
    }
    const top = [...byOrigin]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([origin, bytes]) => `${origin} ${(bytes / 1024).toFixed(0)}k`);
    labels.set(output.split('/').at(-1) ?? output, top.join(', '));
  }
  return labels;
}

function labelled(scriptName: string, labels: Map<string, string>): string {
  const file = scriptName.split('/').at(-1) ?? scriptName;
  const label = labels.get(file);
  return label ? `${file} (${label})` : scriptName || '(no name)';
}
