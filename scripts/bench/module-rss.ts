/**
 * Where the operator's resident memory at rest goes before it does anything: a fresh node
 * process per row imports one set of modules, collects garbage, and prints its RSS (split into
 * anonymous memory — heaps, code — and file-backed pages, mostly the node binary) with V8's heap
 * used and committed. Not a test (docs/benchmarks.md).
 *
 *   npm run bench:modules -- [--node-options="--max-semi-space-size=1"]
 *
 * Rows: node with nothing loaded; each big dependency alone (from node_modules, as unbundled
 * sources load them); `@kubernetes/client-node`'s index against its `KubeConfig` module alone;
 * and the operator's part of the bundle (`dist/chunks/operator-*.mjs` and the chunks it imports,
 * built by `npm run build` first), which is what the image runs.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parseCommandLine } from '../command-line.ts';

const usage = `usage: npm run bench:modules -- [--node-options="<node flags of each measured process>"]

Prints the resident memory of a node process after importing each set of modules (see
scripts/bench/module-rss.ts).`;

const { values } = parseCommandLine(usage, () =>
  parseArgs({ options: { 'node-options': { type: 'string', default: '' } } }),
);

const root = join(import.meta.dirname, '..', '..');

/** Imports `specifiers` (in order), collects garbage and prints one JSON line of figures. */
const probe = `
const { readFileSync } = await import('node:fs');
for (const specifier of JSON.parse(process.argv[1])) await import(specifier);
globalThis.gc();
await new Promise((resolve) => setTimeout(resolve, 200));
globalThis.gc();
const status = readFileSync('/proc/self/status', 'utf8');
const kib = (name) => Number(new RegExp(name + ':\\\\s+(\\\\d+)').exec(status)?.[1] ?? 0);
const heap = process.memoryUsage();
console.log(JSON.stringify({ rss: kib('VmRSS'), anon: kib('RssAnon'), file: kib('RssFile'),
  heapUsed: heap.heapUsed / 1024, heapTotal: heap.heapTotal / 1024 }));
`;

interface Figures {
  readonly rss: number;
  readonly anon: number;
  readonly file: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
}

function measure(specifiers: readonly string[]): Figures {
  const flags = values['node-options'].split(' ').filter(Boolean);
  const out = execFileSync(
    process.execPath,
    [...flags, '--expose-gc', '--input-type=module', '--eval', probe, JSON.stringify(specifiers)],
    { cwd: root, encoding: 'utf8' },
  );
  return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as Figures;
}

function operatorChunk(): string {
  execFileSync(process.execPath, [join(root, 'scripts', 'build.ts')], { cwd: root, stdio: 'ignore' });
  const dir = join(root, 'dist', 'chunks');
  const chunk = readdirSync(dir).find((f) => f.startsWith('operator-') && f.endsWith('.mjs'));
  if (!chunk) throw new Error('npm run build produced no dist/chunks/operator-*.mjs');
  return pathToFileURL(join(dir, chunk)).href;
}

const rows: [string, string[]][] = [
  ['node, nothing loaded', []],
  ['undici', ['undici']],
  ['pino', ['pino']],
  ['prom-client', ['prom-client']],
  ['zod', ['zod']],
  ['@kubernetes/client-node (package index)', ['@kubernetes/client-node']],
  [
    'client-node dist/config.js (unbundled it still loads the index)',
    ['@kubernetes/client-node/dist/config.js'],
  ],
  ['the operator bundle (npm run build; what the image runs)', [operatorChunk()]],
];

const mib = (kib: number) => `${(kib / 1024).toFixed(1)}`;
console.log(`node ${process.version} ${values['node-options']}`.trimEnd());
console.log('MiB: RSS (anonymous + file-backed) | heap used / committed | modules');
for (const [label, specifiers] of rows) {
  const f = measure(specifiers);
  console.log(
    `${mib(f.rss).padStart(6)} (${mib(f.anon)} + ${mib(f.file)}) | ${mib(f.heapUsed)} / ${mib(f.heapTotal)} | ${label}`,
  );
}
