/**
 * esbuild plugins that keep modules the bundle never runs out of `dist/` (see scripts/build.ts).
 * Each hands an importer a smaller module with the same exports it uses; none changes behaviour
 * of what remains. Measured with `npm run bench:rest` and `npm run bench:modules` (docs/benchmarks.md).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Plugin } from 'esbuild';

const root = join(import.meta.dirname, '..', '..');
const clientNodeDist = join(root, 'node_modules', '@kubernetes', 'client-node', 'dist');
const undiciDir = join(root, 'node_modules', 'undici');
const zodDir = join(root, 'node_modules', 'zod', 'v4');

/**
 * client-node's `config.js` → `./gen/index.js`: `config.js` imports the two things it needs from
 * the generated index (`createConfiguration`, `ServerConfiguration`, for `makeApiClient`), which
 * loads every generated API and model class; this hands it a module exporting just those. The
 * sandbox, which uses the typed clients, still loads the whole package through its index.
 */
export const slimGeneratedIndex: Plugin = {
  name: 'client-node-slim-generated-index',
  setup(on) {
    on.onResolve({ filter: /^\.\/gen\/index\.js$/ }, (args) =>
      args.importer === join(clientNodeDist, 'config.js')
        ? { path: 'client-node-config-generated', namespace: 'coffer-slim-gen' }
        : undefined,
    );
    on.onLoad({ filter: /.*/, namespace: 'coffer-slim-gen' }, () => ({
      contents:
        "export { createConfiguration } from './gen/configuration.js';\n" +
        "export { ServerConfiguration } from './gen/servers.js';\n",
      resolveDir: clientNodeDist,
      loader: 'js',
    }));
  },
};

/**
 * `undici`: its package index (CommonJS, so nothing of it is tree-shaken) loads every dispatcher,
 * the mock agents, the cache stores, WebSocket, EventSource, cookies and fetch with its web
 * classes — source kept in the heap and compiled at start. The bundle's `undici` is
 * this module instead: the dispatchers and the `request` API the operator uses, built from the
 * same files the index loads (the API methods assigned to `Dispatcher.prototype` and `request`
 * choosing the global dispatcher exactly as the index does), and `fetch`, which only the
 * devserver's outbound calls and the sandbox's typed clients use, loaded from its own chunk on
 * its first call. Importing a name this module does not export fails the build.
 */
export const slimUndici: Plugin = {
  name: 'undici-slim-index',
  setup(on) {
    on.onResolve({ filter: /^undici$/ }, (args) =>
      args.namespace === 'coffer-slim-undici'
        ? undefined
        : { path: 'undici', namespace: 'coffer-slim-undici' },
    );
    on.onLoad({ filter: /.*/, namespace: 'coffer-slim-undici' }, () => ({
      contents: slimUndiciSource,
      resolveDir: undiciDir,
      loader: 'js',
    }));
  },
};

const slimUndiciSource = `
import Dispatcher from './lib/dispatcher/dispatcher.js';
import Client from './lib/dispatcher/client.js';
import Pool from './lib/dispatcher/pool.js';
import Agent from './lib/dispatcher/agent.js';
import ProxyAgent from './lib/dispatcher/proxy-agent.js';
import errors from './lib/core/errors.js';
import util from './lib/core/util.js';
import api from './lib/api/index.js';
import { getGlobalDispatcher, setGlobalDispatcher } from './lib/global.js';

Object.assign(Dispatcher.prototype, api);

// As the index's makeDispatcher: (url, opts) with opts.dispatcher or the global one.
function makeDispatcher(fn) {
  return (url, opts, handler) => {
    if (typeof opts === 'function') {
      handler = opts;
      opts = null;
    }
    if (!url || (typeof url !== 'string' && typeof url !== 'object' && !(url instanceof URL))) {
      throw new errors.InvalidArgumentError('invalid url');
    }
    if (opts != null && typeof opts !== 'object') {
      throw new errors.InvalidArgumentError('invalid opts');
    }
    if (opts && opts.path != null) {
      if (typeof opts.path !== 'string') throw new errors.InvalidArgumentError('invalid opts.path');
      const path = opts.path.startsWith('/') ? opts.path : '/' + opts.path;
      url = new URL(util.parseOrigin(url).origin + path);
    } else {
      if (!opts) opts = typeof url === 'object' ? url : {};
      url = util.parseURL(url);
    }
    const { agent, dispatcher = getGlobalDispatcher(), ...restOpts } = opts;
    if (agent) throw new errors.InvalidArgumentError('unsupported opts.agent. Did you mean opts.client?');
    return fn.call(
      dispatcher,
      {
        ...restOpts,
        origin: url.origin,
        path: url.search ? url.pathname + url.search : url.pathname,
        method: opts.method || (opts.body ? 'PUT' : 'GET'),
      },
      handler,
    );
  };
}

export const request = makeDispatcher(api.request);
export const stream = makeDispatcher(api.stream);

/** undici's fetch, loaded from its own chunk on the first call. */
export async function fetch(input, init) {
  // A CommonJS module imported dynamically: its exports are the namespace's default.
  const loaded = await import('./lib/web/fetch/index.js');
  return (loaded.fetch ?? loaded.default.fetch)(input, init);
}

export { Dispatcher, Client, Pool, Agent, ProxyAgent, errors, getGlobalDispatcher, setGlobalDispatcher };
`;

/**
 * undici's HTTP/1 client picks its response parser from `parser-h1.js` (the experimental Milo
 * parser, WebAssembly as base64, used only with `UNDICI_USE_MILO=1`) unless the global
 * `esbuildDetection` exists — the switch Node.js core uses when it bundles undici. This answers
 * that check in `client-h1.js` only, so the bundle parses HTTP/1 with llhttp, as Node's own fetch
 * does, and ships neither Milo nor `parser-h1.js`.
 */
export const undiciWithoutMilo: Plugin = {
  name: 'undici-without-milo',
  setup(on) {
    const clientH1 = join(undiciDir, 'lib', 'dispatcher', 'client-h1.js');
    on.onLoad({ filter: /client-h1\.js$/ }, async (args) => {
      if (args.path !== clientH1) return undefined;
      const source = await readFile(args.path, 'utf8');
      const patched = source.replaceAll("typeof esbuildDetection === 'undefined'", 'false');
      if (patched === source)
        throw new Error(`${clientH1}: the esbuildDetection check is gone; update the plugin`);
      return { contents: patched, loader: 'js' };
    });
  },
};

/**
 * zod's `z.locales` (and `core.locales`) namespace re-exports its error messages in dozens of
 * languages, which a namespace import keeps whole. Coffer never switches zod's locale;
 * English, which zod registers by default from its own import of `locales/en.js`, is all it uses.
 * The namespace is handed a module exporting `en` only.
 */
export const zodEnglishOnly: Plugin = {
  name: 'zod-english-only',
  setup(on) {
    const importers = [join(zodDir, 'classic', 'external.js'), join(zodDir, 'core', 'index.js')];
    on.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      importers.includes(args.importer)
        ? { path: 'zod-locales-en', namespace: 'coffer-zod-locales' }
        : undefined,
    );
    on.onLoad({ filter: /.*/, namespace: 'coffer-zod-locales' }, () => ({
      contents: "export { default as en } from './en.js';\n",
      resolveDir: join(zodDir, 'locales'),
      loader: 'js',
    }));
  },
};

/**
 * `import … from 'node:http'` in an ES module makes Node build the module's named exports from
 * every property of `http`, which reads its lazy `WebSocket`, `CloseEvent` and `MessageEvent`
 * getters and so loads Node's own bundled undici (source compiled at start) that the
 * operator never uses. The bundle's ES imports of `http` get the same module through `require`
 * instead: the default export is the module itself, the named exports are its plain properties
 * (importing one of its accessors by name fails the build).
 */
export const httpWithoutWebSocket: Plugin = {
  name: 'http-without-websocket',
  setup(on) {
    on.onResolve({ filter: /^(node:)?http$/ }, (args) =>
      args.kind === 'import-statement' ? { path: 'node:http', namespace: 'coffer-http' } : undefined,
    );
    on.onLoad({ filter: /.*/, namespace: 'coffer-http' }, () => {
      const descriptors = Object.getOwnPropertyDescriptors(createRequire(import.meta.url)('node:http'));
      const plain = Object.keys(descriptors).filter((name) => !descriptors[name]?.get && name !== 'default');
      return {
        contents:
          "import { createRequire } from 'node:module';\n" +
          "const http = createRequire(import.meta.url)('node:http');\n" +
          'export default http;\n' +
          `export const { ${plain.join(', ')} } = http;\n`,
        loader: 'js',
      };
    });
  },
};

/**
 * prom-client's process CPU counter requires `@opentelemetry/api` to label exemplars
 * with the active span, which it reads only with exemplars enabled; Coffer enables none and
 * registers no OpenTelemetry SDK, under which the API answers "no span" anyway. That importer is
 * handed the same answer: `context.active()` and `trace.getSpan()` with no span.
 */
export const promClientWithoutOpenTelemetry: Plugin = {
  name: 'prom-client-without-opentelemetry',
  setup(on) {
    const importer = join(root, 'node_modules', 'prom-client', 'lib', 'metrics', 'processCpuTotal.js');
    on.onResolve({ filter: /^@opentelemetry\/api$/ }, (args) =>
      args.importer === importer ? { path: 'otel-api-no-span', namespace: 'coffer-otel' } : undefined,
    );
    on.onLoad({ filter: /.*/, namespace: 'coffer-otel' }, () => ({
      contents:
        'const ROOT_CONTEXT = Object.freeze({});\n' +
        'module.exports = { context: { active: () => ROOT_CONTEXT }, trace: { getSpan: () => undefined } };\n',
      loader: 'js',
    }));
  },
};
