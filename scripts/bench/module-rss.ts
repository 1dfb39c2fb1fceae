/**
 * Where the operator's resident memory at rest goes before it does anything: a fresh node
 * process per row imports one set of modules, collects garbage, and prints its memory as the
 * kubelet would see it alone in a pod: the working set of a memory cgroup of its own, running a
 * private copy of the node binary (`working-set.ts`: usage minus inactive file pages), beside its
 * RSS split into anonymous memory — heaps, code — and file-backed pages, mostly the node binary,
 * and V8's heap used and committed. Not a test (docs/benchmarks.md).
 *
 *   npm run bench:modules -- [--node-options="--max-semi-space-size=1 GLIBC_TUNABLES=…"]
 *
 * The default options are the operator's memory tuning (src/runtime/process-tuning.ts);
 * `NAME=value` words are environment variables of the measured processes.
 *
 * Rows: node with nothing loaded; each big dependency alone (from node_modules, as unbundled
 * sources load them); `@kubernetes/client-node`'s index against its `KubeConfig` module alone;
 * and the operator's part of the bundle (`dist/chunks/operator-*.mjs` and the chunks it imports,
 * built by `npm run build` first), which is what the image runs.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parseCommandLine } from '../command-line.ts';
import { runtimeTuningOptions } from './operator-setup.ts';
import { createCgroup, launcher, memoryHelp, privateNodeBinary } from './working-set.ts';

const usage = `usage: npm run bench:modules -- [--node-options="<node flags of each measured process>"]

Prints the memory of a node process after importing each set of modules (see
scripts/bench/module-rss.ts); the default options are the operator's memory tuning.

${memoryHelp}`;

const { values } = parseCommandLine(usage, () =>
  parseArgs({ options: { 'node-options': { type: 'string', default: runtimeTuningOptions() } } }),
);

const root = join(import.meta.dirname, '..', '..');

/**
 * Imports `specifiers` (argv[1], in order), collects garbage and prints one JSON line of figures;
 * with a cgroup (argv[2]: its directory, argv[3]: 1 or 2) also the cgroup's working set, computed
 * as `working-set.ts` does, while the process still holds its memory.
 */
const probe = `
const { readFileSync } = await import('node:fs');
for (const specifier of JSON.parse(process.argv[1])) await import(specifier);
globalThis.gc();
await new Promise((resolve) => setTimeout(resolve, 200));
globalThis.gc();
const status = readFileSync('/proc/self/status', 'utf8');
const kib = (name) => Number(new RegExp(name + ':\\\\s+(\\\\d+)').exec(status)?.[1] ?? 0);
const heap = process.memoryUsage();
const [dir, version] = process.argv.slice(2);
let workingSet;
if (dir) {
  const v1 = version === '1';
  const usage = Number(readFileSync(dir + (v1 ? '/memory.usage_in_bytes' : '/memory.current'), 'utf8'));
  const stat = readFileSync(dir + '/memory.stat', 'utf8');
  const inactive = Number(new RegExp('^' + (v1 ? 'total_inactive_file' : 'inactive_file') + ' (\\\\d+)$', 'm').exec(stat)?.[1] ?? 0);
  workingSet = (usage - inactive) / 1024;
}
console.log(JSON.stringify({ rss: kib('VmRSS'), anon: kib('RssAnon'), file: kib('RssFile'),
  heapUsed: heap.heapUsed / 1024, heapTotal: heap.heapTotal / 1024, workingSet }));
`;

interface Figures {
  readonly rss: number;
  readonly anon: number;
  readonly file: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  /** The working set of the probe's own memory cgroup (absent without one). */
  readonly workingSet?: number;
}

const isEnv = (word: string) => /^[A-Z_][A-Z0-9_]*=/.test(word);
const words = values['node-options'].split(' ').filter(Boolean);
const env: NodeJS.ProcessEnv = { ...process.env };
for (const word of words.filter(isEnv)) {
  const at = word.indexOf('=');
  env[word.slice(0, at)] = word.slice(at + 1);
}
const scratch = mkdtempSync(join(tmpdir(), 'coffer-module-rss-'));
const node = privateNodeBinary(scratch);

/** Runs the probe in a memory cgroup of its own (`working-set.ts`). */
function measure(specifiers: readonly string[]): Figures {
  const cgroup = createCgroup('coffer-bench-modules', (line) => console.log(line));
  const [command = node, ...prefix] = launcher(cgroup, node);
  const flags = words.filter((word) => !isEnv(word));
  const where = cgroup ? [cgroup.dir, String(cgroup.version)] : [];
  try {
    const out = execFileSync(
      command,
      [
        ...prefix,
        ...flags,
        '--expose-gc',
        '--input-type=module',
        '--eval',
        probe,
        JSON.stringify(specifiers),
        ...where,
      ],
      { cwd: root, encoding: 'utf8', env },
    );
    return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as Figures;
  } finally {
    cgroup?.remove();
  }
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
console.log('MiB: working set | anonymous | RSS (anonymous + file-backed) | heap used / committed | modules');
try {
  for (const [label, specifiers] of rows) {
    const f = measure(specifiers);
    const ws = f.workingSet === undefined ? 'n/a' : mib(f.workingSet);
    console.log(
      `${ws.padStart(6)} | ${mib(f.anon).padStart(5)} | ${mib(f.rss).padStart(6)} (${mib(f.anon)} + ${mib(f.file)}) | ${mib(f.heapUsed)} / ${mib(f.heapTotal)} | ${label}`,
    );
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
