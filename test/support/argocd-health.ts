/**
 * Runs the generated Argo CD health checks (resource_customizations/coffer.dev/<Kind>/health.lua) the way
 * Argo CD does — a global `obj`, the chunk returns `{ status, message }` — in two interpreters:
 * gopher-lua (Lua 5.1, the VM Argo CD embeds; a small Go program under test/clients/gopher-lua,
 * built and cached like the client conformance programs) and Debian's lua5.4. The scripts must
 * give the same verdict in both.
 */
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildClient, type ClientProgram } from './client-conformance.ts';

const execFileAsync = promisify(execFile);
/**
 * The folder of `<Kind>/health.lua` (Argo CD's resource_customizations/<group> layout);
 * `COFFER_ARGOCD_DIR` evaluates other health checks (e.g. an earlier release's) in the same tests.
 */
export const argocdDir =
  process.env.COFFER_ARGOCD_DIR ??
  fileURLToPath(new URL('../../resource_customizations/coffer.dev/', import.meta.url));
const lua54 = 'lua5.4';

/** The Go program that evaluates a health check in gopher-lua. */
export const gopherLua: ClientProgram = {
  name: 'gopher-lua-health',
  sourceDir: fileURLToPath(new URL('../clients/gopher-lua/', import.meta.url)),
  toolchain: 'go',
  versionArgs: ['version'],
  buildArgs: (out) => ['build', '-o', out, '.'],
  buildEnv: { GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod -buildvcs=false' },
};

/** An Argo CD health verdict. */
export interface Health {
  readonly status: string;
  readonly message: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The health check of `kind`. */
export function healthScript(kind: string): string {
  return join(argocdDir, kind, 'health.lua');
}

/** Evaluates `kind`'s health check on each object in gopher-lua (`binary` from buildClient). */
export async function healthInGopherLua(
  binary: string,
  kind: string,
  objects: readonly unknown[],
): Promise<Health[]> {
  const child = execFileAsync(binary, [healthScript(kind)], { timeout: 30_000 });
  child.child.stdin?.end(JSON.stringify(objects));
  const { stdout } = await child;
  const verdicts = JSON.parse(stdout) as (Health & { error?: string })[];
  for (const verdict of verdicts) {
    if (verdict.error) throw new Error(`gopher-lua cannot evaluate ${healthScript(kind)}: ${verdict.error}`);
  }
  return verdicts.map(({ status, message }) => ({ status, message }));
}

/** Builds (or finds in the cache) the gopher-lua program. */
export function buildGopherLua(): Promise<string> {
  return buildClient(gopherLua);
}

/** A JSON value as a Lua table constructor; strings use decimal byte escapes, so any text is safe. */
function toLua(value: Json): string {
  if (value === null) return 'nil';
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (typeof value === 'string') {
    const bytes = [...Buffer.from(value, 'utf8')];
    return `"${bytes.map((b) => (/[\w .:/=-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `\\${String(b).padStart(3, '0')}`)).join('')}"`;
  }
  if (Array.isArray(value)) return `{ ${value.map(toLua).join(', ')} }`;
  const fields = Object.entries(value).map(([k, v]) => `[${toLua(k)}] = ${toLua(v)}`);
  return `{ ${fields.join(', ')} }`;
}

/** Evaluates `kind`'s health check on each object in lua5.4. */
export function healthInLua54(kind: string, objects: readonly unknown[]): Health[] {
  const list = objects.map((o) => toLua(o as Json)).join(',\n');
  const code = [
    `local objects = { ${list} }`,
    'for _, o in ipairs(objects) do',
    '  obj = o',
    `  local hs = dofile(${toLua(healthScript(kind))})`,
    '  io.write(tostring(hs.status), "\\0", tostring(hs.message), "\\0")',
    'end',
  ].join('\n');
  const run = spawnSync(lua54, ['-e', code], { encoding: 'utf8' });
  if (run.error) throw new Error(`cannot run ${lua54} (apt-get install -y lua5.4): ${run.error.message}`);
  if (run.status !== 0) throw new Error(`lua5.4 cannot evaluate ${healthScript(kind)}: ${run.stderr}`);
  const parts = run.stdout.split('\0');
  return objects.map((_, i) => ({ status: parts[2 * i] ?? '', message: parts[2 * i + 1] ?? '' }));
}
