/**
 * What an informer cache's indexes cost per object (not a test): fills an `ObjectStore` with N
 * objects under two indexes shaped like a SecretBatch's at 10,000 mixed resources (one value of
 * its own, one value shared by ~1,000 objects) and prints the heap the indexes hold, after GC.
 *
 *   node --expose-gc scripts/bench/object-store-heap.ts [--n 8000] [--module <object-store.ts>]
 *
 * `--module` measures another version of the store (e.g. one saved with `git show`).
 */
import { parseArgs } from 'node:util';
import { parseCommandLine } from '../command-line.ts';

const usage =
  'usage: node --expose-gc scripts/bench/object-store-heap.ts [--n 8000] [--module <object-store.ts>]';
const { values } = parseCommandLine(usage, () =>
  parseArgs({
    options: {
      n: { type: 'string', default: '8000' },
      module: {
        type: 'string',
        default: new URL('../../src/runtime/object-store.ts', import.meta.url).pathname,
      },
    },
  }),
);

interface Obj {
  metadata: { namespace: string; name: string; resourceVersion: string };
  spec: { secret: string; connection: string };
}
interface Store {
  addIndex(name: string, fn: (o: Obj) => readonly string[]): void;
  upsert(o: Obj): unknown;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const { ObjectStore } = (await import(values.module)) as { ObjectStore: new () => Store };
const n = Number(values.n);
const objects: Obj[] = Array.from({ length: n }, (_, i) => ({
  metadata: { namespace: 'bench', name: `batch-${i}`, resourceVersion: '1' },
  spec: { secret: `secret-${i}`, connection: `connection-${i % 8}` },
}));
function filled(indexes: boolean): Store {
  const store = new ObjectStore();
  if (indexes) {
    store.addIndex('secret', (o) => [`${o.metadata.namespace}/${o.spec.secret}`]);
    store.addIndex('connection', (o) => [`${o.metadata.namespace}/${o.spec.connection}`, 'bench']);
  }
  for (const o of objects) store.upsert(o);
  return store;
}

/** Heap held by a filled store: used with it minus used once it is dropped (median of 5). */
function heldBy(indexes: boolean): number {
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const held = { store: filled(indexes) as Store | undefined };
    gc?.();
    const withStore = process.memoryUsage().heapUsed;
    held.store = undefined;
    gc?.();
    runs.push(withStore - process.memoryUsage().heapUsed);
  }
  return runs.sort((a, b) => a - b)[2] ?? 0;
}

const plain = heldBy(false);
const indexed = heldBy(true);
const perObject = (bytes: number) => `${(bytes / n).toFixed(0)} bytes per object`;
console.log(`${n} objects, ${values.module}`);
console.log(`  store without indexes: ${perObject(plain)}`);
console.log(`  store with two indexes: ${perObject(indexed)} (the indexes: ${perObject(indexed - plain)})`);
