/**
 * Who retains the heap (not a test): walks the dominator tree of a V8 heap snapshot from its root
 * and prints every holder that retains at least `--min-kib`, with the edge that names it
 * (`ObjectStore.objects`, `Map.#12`…), its retained size and, for the small nodes it holds, one line
 * per kind: count, total and average retained size (10,000 cached objects show up as one line).
 *
 *   node --max-old-space-size=8192 scripts/bench/heap-retainers.ts <file.heapsnapshot> \
 *     [--min-kib 512] [--depth 14]
 *
 * See `heap-dominators.ts` for how retained sizes are computed.
 */
import { parseArgs } from 'node:util';
import { parseCommandLine } from '../command-line.ts';
import {
  type Dominators,
  dominators,
  edgeLabel,
  type HeapGraph,
  hintOf,
  kindOf,
  loadHeapGraph,
} from './heap-dominators.ts';

const usage = 'usage: node scripts/bench/heap-retainers.ts <file.heapsnapshot> [--min-kib 512] [--depth 14]';

const { values, positionals } = parseCommandLine(usage, () =>
  parseArgs({
    options: { 'min-kib': { type: 'string', default: '512' }, depth: { type: 'string', default: '14' } },
    allowPositionals: true,
  }),
);
const minBytes = Number(values['min-kib']) * 1024;
const maxDepth = Number(values.depth);
const mib = (b: number) => `${(b / 1024 / 1024).toFixed(2)} MiB`;
const kib = (b: number) => `${(b / 1024).toFixed(2)} KiB`;

function childrenOf(d: Dominators): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const k of d.postOrder) {
    if (k === 0) continue;
    const p = d.idom[k] ?? 0;
    const list = children.get(p) ?? [];
    list.push(k);
    children.set(p, list);
  }
  return children;
}

/** Small children of one node grouped by kind, the largest groups first. */
function smallGroups(g: HeapGraph, d: Dominators, small: number[]): string[] {
  const groups = new Map<string, { count: number; bytes: number }>();
  for (const k of small) {
    const group = groups.get(kindOf(g, k)) ?? { count: 0, bytes: 0 };
    group.count += 1;
    group.bytes += d.retained[k] ?? 0;
    groups.set(kindOf(g, k), group);
  }
  return [...groups]
    .filter(([, v]) => v.bytes >= minBytes / 4)
    .sort((a, b) => b[1].bytes - a[1].bytes)
    .map(
      ([kind, v]) =>
        `${v.count.toLocaleString('en')} × ${kind}: ${mib(v.bytes)} (${kib(v.bytes / v.count)} each)`,
    );
}

interface Tree {
  readonly g: HeapGraph;
  readonly d: Dominators;
  readonly children: Map<number, number[]>;
}

function walk({ g, d, children }: Tree, k: number, depth: number): void {
  const indent = '  '.repeat(depth);
  const kids = (children.get(k) ?? []).sort((a, b) => (d.retained[b] ?? 0) - (d.retained[a] ?? 0));
  const large = kids.filter((c) => (d.retained[c] ?? 0) >= minBytes);
  const small = kids.filter((c) => (d.retained[c] ?? 0) < minBytes);
  for (const line of smallGroups(g, d, small)) console.log(`${indent}  · ${line}`);
  if (depth >= maxDepth) return;
  for (const c of large) {
    console.log(
      `${indent}${mib(d.retained[c] ?? 0).padStart(10)}  ${edgeLabel(g, k, c)} → ${kindOf(g, c)}${hintOf(g, c)}`,
    );
    walk({ g, d, children }, c, depth + 1);
  }
}

for (const path of positionals) {
  const g = loadHeapGraph(path);
  const d = dominators(g);
  console.log(
    `${path}: ${g.nodeCount.toLocaleString('en')} nodes, retained by the root ${mib(d.retained[0] ?? 0)}`,
  );
  walk({ g, d, children: childrenOf(d) }, 0, 0);
}
