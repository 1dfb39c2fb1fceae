/**
 * Who holds the heap: the dominator tree of a V8 heap snapshot and the retained size of each node
 * (what would be freed if that node went), for `heap-retainers.ts`.
 *
 * Weak edges do not retain. Dominators are computed with the iterative algorithm of Cooper, Harvey
 * and Kennedy over a reverse post-order from the snapshot's root (node 0), as Chrome DevTools does.
 * Each node is named by the edge that leads to it from its dominator's side: the retainer's
 * constructor name and the property, e.g. `ObjectStore.objects`, `Map.#12`, `(closure).context`.
 */
import { readFileSync } from 'node:fs';

/** A snapshot loaded into flat arrays. */
export interface HeapGraph {
  readonly nodeCount: number;
  readonly type: Uint8Array;
  readonly name: Uint32Array;
  readonly selfSize: Float64Array;
  /** Edges of node k: from firstEdge[k] to firstEdge[k + 1] in `to`, `edgeType`, `edgeName`. */
  readonly firstEdge: Uint32Array;
  readonly to: Uint32Array;
  readonly edgeType: Uint8Array;
  readonly edgeName: Uint32Array;
  readonly strings: readonly string[];
  readonly nodeTypes: readonly string[];
  readonly edgeTypes: readonly string[];
}

interface RawSnapshot {
  readonly snapshot: {
    readonly meta: {
      readonly node_fields: string[];
      readonly edge_fields: string[];
      readonly node_types: [string[]];
      readonly edge_types: [string[]];
    };
  };
  readonly nodes: number[];
  readonly edges: number[];
  readonly strings: string[];
}

/** Reads a `.heapsnapshot` file into flat arrays. */
export function loadHeapGraph(path: string): HeapGraph {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as RawSnapshot;
  const meta = raw.snapshot.meta;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const at = (f: string) => meta.node_fields.indexOf(f);
  const [typeAt, nameAt, sizeAt, countAt] = [at('type'), at('name'), at('self_size'), at('edge_count')];
  const nodeCount = raw.nodes.length / nf;
  const type = new Uint8Array(nodeCount);
  const name = new Uint32Array(nodeCount);
  const selfSize = new Float64Array(nodeCount);
  const firstEdge = new Uint32Array(nodeCount + 1);
  for (let k = 0, e = 0; k < nodeCount; k++) {
    type[k] = raw.nodes[k * nf + typeAt] ?? 0;
    name[k] = raw.nodes[k * nf + nameAt] ?? 0;
    selfSize[k] = raw.nodes[k * nf + sizeAt] ?? 0;
    firstEdge[k] = e;
    e += raw.nodes[k * nf + countAt] ?? 0;
    firstEdge[k + 1] = e;
  }
  const edgeCount = raw.edges.length / ef;
  const to = new Uint32Array(edgeCount);
  const edgeType = new Uint8Array(edgeCount);
  const edgeName = new Uint32Array(edgeCount);
  for (let i = 0; i < edgeCount; i++) {
    edgeType[i] = raw.edges[i * ef] ?? 0;
    edgeName[i] = raw.edges[i * ef + 1] ?? 0;
    to[i] = (raw.edges[i * ef + 2] ?? 0) / nf;
  }
  return {
    nodeCount,
    type,
    name,
    selfSize,
    firstEdge,
    to,
    edgeType,
    edgeName,
    strings: raw.strings,
    nodeTypes: meta.node_types[0],
    edgeTypes: meta.edge_types[0],
  };
}

/** An array slot known to exist (typed arrays are read inside their bounds). */
const v = (x: number | undefined): number => x ?? 0;

/** Nodes reachable from the root/** Nodes reachable from the root through non-weak edges, in post-order. */
function postOrder(g: HeapGraph, weak: number): Uint32Array {
  const order = new Uint32Array(g.nodeCount);
  const visited = new Uint8Array(g.nodeCount);
  const stack = new Uint32Array(g.nodeCount);
  const nextEdge = new Uint32Array(g.nodeCount);
  let top = 0;
  let count = 0;
  stack[0] = 0;
  visited[0] = 1;
  nextEdge[0] = v(g.firstEdge[0]);
  while (top >= 0) {
    const k = v(stack[top]);
    const e = v(nextEdge[k]);
    if (e >= v(g.firstEdge[k + 1])) {
      order[count++] = k;
      top--;
      continue;
    }
    nextEdge[k] = e + 1;
    const t = v(g.to[e]);
    if (g.edgeType[e] === weak || visited[t]) continue;
    visited[t] = 1;
    nextEdge[t] = v(g.firstEdge[t]);
    stack[++top] = t;
  }
  return order.subarray(0, count);
}

/** Where each node's retainers start in `retainersOf`'s `from` (prefix sums of their counts). */
function retainerOffsets(g: HeapGraph, weak: number): Uint32Array {
  const first = new Uint32Array(g.nodeCount + 1);
  for (let e = 0; e < g.to.length; e++)
    if (g.edgeType[e] !== weak) first[v(g.to[e]) + 1] = v(first[v(g.to[e]) + 1]) + 1;
  for (let k = 0; k < g.nodeCount; k++) first[k + 1] = v(first[k + 1]) + v(first[k]);
  return first;
}

/** Retainers (non-weak) of each node as a CSR: from firstRetainer[k] to firstRetainer[k + 1]. */
function retainersOf(g: HeapGraph, weak: number): { first: Uint32Array; from: Uint32Array } {
  const first = retainerOffsets(g, weak);
  const fill = first.slice();
  const from = new Uint32Array(v(first[g.nodeCount]));
  for (let k = 0; k < g.nodeCount; k++)
    for (let e = v(g.firstEdge[k]); e < v(g.firstEdge[k + 1]); e++)
      if (g.edgeType[e] !== weak) {
        const t = v(g.to[e]);
        from[v(fill[t])] = k;
        fill[t] = v(fill[t]) + 1;
      }
  return { first, from };
}

/** The immediate dominator of each reachable node (the root dominates itself; unreachable: -1). */
export interface Dominators {
  readonly idom: Int32Array;
  readonly retained: Float64Array;
  readonly postOrder: Uint32Array;
}

/** Dominators and retained sizes of every node reachable from the root. */
export function dominators(g: HeapGraph): Dominators {
  const weak = g.edgeTypes.indexOf('weak');
  const order = postOrder(g, weak);
  const rank = new Int32Array(g.nodeCount).fill(-1);
  order.forEach((k, i) => (rank[k] = i));
  const retainers = retainersOf(g, weak);
  const idom = new Int32Array(g.nodeCount).fill(-1);
  idom[0] = 0;
  while (dominatorPass(order, rank, retainers, idom)) {
    // Repeat until no immediate dominator changes.
  }
  const retained = new Float64Array(g.nodeCount);
  for (const k of order) retained[k] = v(retained[k]) + v(g.selfSize[k]);
  for (const k of order) if (k !== 0) retained[v(idom[k])] = v(retained[v(idom[k])]) + v(retained[k]);
  return { idom, retained, postOrder: order };
}

/** One pass of Cooper–Harvey–Kennedy in reverse post-order; true when some `idom` changed. */
function dominatorPass(
  order: Uint32Array,
  rank: Int32Array,
  retainers: { first: Uint32Array; from: Uint32Array },
  idom: Int32Array,
): boolean {
  const intersect = (a: number, b: number): number => {
    while (a !== b) {
      while (v(rank[a]) < v(rank[b])) a = v(idom[a]);
      while (v(rank[b]) < v(rank[a])) b = v(idom[b]);
    }
    return a;
  };
  let changed = false;
  for (let i = order.length - 2; i >= 0; i--) {
    const k = v(order[i]);
    let best = -1;
    for (let r = v(retainers.first[k]); r < v(retainers.first[k + 1]); r++) {
      const p = v(retainers.from[r]);
      if (idom[p] !== -1) best = best === -1 ? p : intersect(p, best);
    }
    if (best === -1 || idom[k] === best) continue;
    idom[k] = best;
    changed = true;
  }
  return changed;
}

/** The node's type or constructor name: `Map`, `(closure)`, `(string)`, `(array)`, … */
export function kindOf(g: HeapGraph, k: number): string {
  const t = g.nodeTypes[v(g.type[k])] ?? '';
  if (t === 'object' || t === 'native') return g.strings[v(g.name[k])] ?? '';
  if (t === 'closure') return `(closure ${g.strings[v(g.name[k])] ?? ''})`;
  return `(${t})`;
}

/** `Retainer.edge` for the first non-weak edge from `parent` to `k`, else from any retainer. */
export function edgeLabel(g: HeapGraph, parent: number, k: number): string {
  for (let e = v(g.firstEdge[parent]); e < v(g.firstEdge[parent + 1]); e++) {
    if (g.to[e] !== k) continue;
    const et = g.edgeTypes[v(g.edgeType[e])] ?? '';
    const n = et === 'element' || et === 'hidden' ? `#${g.edgeName[e]}` : (g.strings[v(g.edgeName[e])] ?? '');
    return `${kindOf(g, parent)}.${n}`;
  }
  return `${kindOf(g, parent)} ⇢`;
}

/** A short string property of node `k` that tells instances apart (`plural`, `kind`, `name`…). */
export function hintOf(g: HeapGraph, k: number): string {
  for (const wanted of ['plural', 'resource', 'kind', 'name', 'label']) {
    const t = propertyTarget(g, k, wanted);
    if (t !== undefined && (g.nodeTypes[v(g.type[t])] ?? '').includes('string'))
      return ` [${wanted}=${textOf(g, t).slice(0, 40)}]`;
  }
  return '';
}

/** The node that property `name` of node `k` points to, if any. */
function propertyTarget(g: HeapGraph, k: number, name: string): number | undefined {
  for (let e = v(g.firstEdge[k]); e < v(g.firstEdge[k + 1]); e++)
    if (g.edgeTypes[v(g.edgeType[e])] === 'property' && g.strings[v(g.edgeName[e])] === name)
      return v(g.to[e]);
  return undefined;
}

/** The text of a string node; a concatenated string's parts are joined. */
function textOf(g: HeapGraph, k: number): string {
  if (g.nodeTypes[v(g.type[k])] !== 'concatenated string') return g.strings[v(g.name[k])] ?? '';
  const parts: string[] = [];
  for (let e = v(g.firstEdge[k]); e < v(g.firstEdge[k + 1]); e++) {
    const edge = g.strings[v(g.edgeName[e])];
    if (edge === 'first' || edge === 'second') parts.push(textOf(g, v(g.to[e])));
  }
  return parts.join('');
}
