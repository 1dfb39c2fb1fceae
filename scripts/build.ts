/**
 * `npm run build`: bundles the `coffer` CLI into `dist/` with esbuild: `dist/cli/main.mjs`, the
 * WorkloadSecret template render worker `dist/workers/template-render.mjs`, and their chunks in
 * `dist/chunks/` (all two levels below the root, see src/runtime/package-root.ts).
 *
 * What the container image and the benchmark run is this bundle, not the ~1,000 files of
 * `node_modules` and the TypeScript sources: each command (`operator`, `devserver`, `sandbox`,
 * `crds`) is a chunk loaded on demand, dependencies are tree-shaken, and whitespace and syntax
 * are minified (identifiers are kept, so stack traces in logs stay readable). V8 keeps the source
 * text of every loaded module in the heap, so this is memory: the operator starts with a smaller
 * heap than the unbundled build (`npm run bench`, docs/benchmarks.md).
 *
 * `@kubernetes/client-node`: the operator imports its `KubeConfig` and HTTP request types from
 * their own modules (src/runtime/kube-config.ts, kube-request.ts), never the package index, which
 * loads every generated API and model class. `config.js` itself imports the two things it needs
 * (`createConfiguration`, `ServerConfiguration`, for `makeApiClient`) from the generated index;
 * `slimGeneratedIndex` hands it a module exporting just those, so the bundled operator loads none
 * of the generated classes (less resident memory: `npm run bench:modules`, docs/benchmarks.md). The
 * sandbox, which uses the typed clients, still loads the whole package through its index.
 *
 * Type checking is `npm run typecheck`; esbuild only strips types.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import {
  httpWithoutWebSocket,
  promClientWithoutOpenTelemetry,
  slimGeneratedIndex,
  slimUndici,
  undiciWithoutMilo,
  zodEnglishOnly,
} from './build/slim-modules.ts';
import { exitOnHelp } from './command-line.ts';

exitOnHelp(`usage: npm run build

Bundles the coffer CLI into dist/ (dist/cli/main.mjs and its chunks); takes no flags.`);

const root = join(import.meta.dirname, '..');

const outdir = join(root, 'dist');

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: {
    'cli/main': 'src/cli/main.ts',
    // The template render worker (src/controllers/workload-secret/template/workers.ts starts it).
    'workers/template-render': 'src/controllers/workload-secret/template/worker.ts',
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  minifyWhitespace: true,
  minifySyntax: true,
  // Some CommonJS dependencies call require() for Node built-ins; an ES module has no require.
  banner: {
    js: "import { createRequire as __cofferRequire } from 'node:module'; const require = __cofferRequire(import.meta.url);",
  },
  legalComments: 'linked',
  metafile: true,
  plugins: [
    slimGeneratedIndex,
    slimUndici,
    undiciWithoutMilo,
    zodEnglishOnly,
    httpWithoutWebSocket,
    promClientWithoutOpenTelemetry,
  ],
  logLevel: 'warning',
});

// For `npm run bench:rest` and `heap-summary.ts`, which label the chunks of a heap snapshot with
// their largest inputs; outside dist/, which is what ships.
const metaDir = join(root, 'node_modules', '.cache', 'coffer');
mkdirSync(metaDir, { recursive: true });
writeFileSync(join(metaDir, 'build-meta.json'), JSON.stringify(result.metafile));

const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
console.log(
  `dist/: ${Object.keys(result.metafile.outputs).length} files, ${(bytes / 1048576).toFixed(1)} MiB`,
);
