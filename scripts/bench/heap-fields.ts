/**
 * What one kind of cached object holds, field by field (not a test): finds every object of a V8
 * heap snapshot that has a `metadata` property (or `--has <property>`) and a path of properties
 * `--path` (e.g. `status.ownedKeys`: the SecretBatches; `dataHash`: the cached Secrets), and prints
 * the retained size of each field it dominates, averaged over those objects, largest first.
 *
 *   node --max-old-space-size=4000 scripts/bench/heap-fields.ts <file.heapsnapshot> \
 *     --path status.ownedKeys [--has metadata] [--depth 5] [--top 30]
 *
 * See `heap-dominators.ts` for how retained sizes are computed.
 */
import { parseArgs } from 'node:util';
import { parseCommandLine } from '../command-line.ts';
import { type Dominators, dominators, type HeapGraph, kindOf, loadHeapGraph } from './heap-dominators.ts';

const usage =
  'usage: node scripts/bench/heap-fields.ts <file.heapsnapshot> --path <a.b> [--has metadata] [--depth 5] [--top 30]';
const { values, positionals } = parseCommandLine(usage, () =>
  parseArgs({
    options: {
      path: { type: 'string' },
      has: { type: 'string', default: 'metadata' },
      depth: { type: 'string', default: '5' },
      top: { type: 'string', default: '30' },
    },
    allowPositionals: true,
  }),
);
const [file] = positionals;
if (!file || !values.path) {
  console.error(usage);
  process.exit(2);
}
const selector = values.path.split('.');

/** The label of edge `i`: a property name, `[]` for elements, `(internal:name)` otherwise. */
function labelOf(g: HeapGraph, i: number): string | undefined {
  const type = g.edgeTypes[g.edgeType[i] ?? 0];
  const name = g.strings[g.edgeName[i] ?? 0] ?? String(g.edgeName[i]);
  if (type === 'element') return '[]';
  if (type === 'property') return name;
  return type === 'internal' ? `(internal:${name})` : undefined;
}

/** Property `name` of node `k`, if it has one. */
function property(g: HeapGraph, k: number, name: string): number | undefined {
  for (let i = g.firstEdge[k] ?? 0; i < (g.firstEdge[k + 1] ?? 0); i++) {
    if (labelOf(g, i) === name) return g.to[i];
  }
  return undefined;
}

function selected(g: HeapGraph, k: number): boolean {
  if (g.nodeTypes[g.type[k] ?? 0] !== 'object' || property(g, k, values.has) === undefined) return false;
  let at: number | undefined = k;
  for (const name of selector) at = at === undefined ? undefined : property(g, at, name);
  return at !== undefined;
}

interface Walk {
  readonly g: HeapGraph;
  readonly d: Dominators;
  readonly sums: Map<string, number>;
  readonly maxDepth: number;
}

/** Adds the retained size of `k` under `path`, then of each node it dominates through a field. */
function walk(w: Walk, k: number, path: string, depth: number): void {
  w.sums.set(path, (w.sums.get(path) ?? 0) + (w.d.retained[k] ?? 0));
  if (depth >= w.maxDepth) return;
  for (let i = w.g.firstEdge[k] ?? 0; i < (w.g.firstEdge[k + 1] ?? 0); i++) {
    const child = w.g.to[i] ?? 0;
    const label = labelOf(w.g, i);
    if (label !== undefined && w.d.idom[child] === k) walk(w, child, `${path}.${label}`, depth + 1);
  }
}

const g = loadHeapGraph(file);
const d = dominators(g);
const found: number[] = [];
for (let k = 0; k < g.nodeCount; k++) if (selected(g, k)) found.push(k);
const w: Walk = { g, d, sums: new Map(), maxDepth: Number(values.depth) };
for (const k of found) walk(w, k, kindOf(g, k), 0);
console.log(`${file}: ${found.length.toLocaleString('en')} objects with ${values.has} and ${values.path}`);
const rows = [...w.sums].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
for (const [path, bytes] of rows) {
  console.log(`${(bytes / Math.max(1, found.length)).toFixed(0).padStart(8)} B per object  ${path}`);
}
