/**
 * `npm run new-kind <Name>`: scaffolds a kind of the coffer.dev group — its API file, its folder
 * under src/controllers/ (registration, reasons, an adapter to write), its sample and its doc
 * page — adds its line to the kind registry (src/controllers/registry.ts) and runs
 * `npm run generate`. The result compiles, generates and passes the shared checks as written
 * (test/unit/new-kind.test.ts holds this); nothing else needs to change.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import * as prettier from 'prettier';
import { parseCommandLine } from './command-line.ts';
import {
  adapterModule,
  apiModule,
  conformanceModule,
  docPage,
  indexModule,
  kindNames,
  reasonsModule,
  sample,
  type KindNames,
} from './new-kind/templates.ts';

const usage = `usage: npm run new-kind -- <Name> [--no-generate]

Scaffolds the kind <Name> (PascalCase, e.g. SecretRotation) on the generic managed reconciler:
  src/api/v1alpha1/<name>.ts            schema (every field described) and metadata
  src/controllers/<name>/index.ts       the registration: controller, references, RBAC, reasons, sample, page
  src/controllers/<name>/reasons.ts     the kind's condition reasons
  src/controllers/<name>/adapter.ts     observe / create / update / delete (to be written)
  config/samples/<name>.yaml            the sample (left out of config/samples until the adapter works)
  docs/kinds/<name>.md                  the kind's page
  test/support/conformance/kinds/<name>.ts  its data for the conformance suite (cases pending the adapter)
adds the kind's line to src/controllers/registry.ts, then runs npm run generate.
  --no-generate   leave the generated files alone`;

const { values, positionals } = parseCommandLine(usage, () =>
  parseArgs({
    options: { 'no-generate': { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  }),
);

const root = join(import.meta.dirname, '..');
const registryPath = join(root, 'src', 'controllers', 'registry.ts');

function fail(message: string): never {
  console.error(`cannot scaffold: ${message}\n\n${usage}`);
  process.exit(2);
}

/** The files to write, relative to the repository root. */
function scaffold(names: KindNames): ReadonlyMap<string, string> {
  return new Map([
    [`src/api/v1alpha1/${names.kebab}.ts`, apiModule(names)],
    [`src/controllers/${names.kebab}/index.ts`, indexModule(names)],
    [`src/controllers/${names.kebab}/reasons.ts`, reasonsModule(names)],
    [`src/controllers/${names.kebab}/adapter.ts`, adapterModule(names)],
    [`config/samples/${names.kebab}.yaml`, sample(names)],
    [`docs/kinds/${names.kebab}.md`, docPage(names)],
    [`test/support/conformance/kinds/${names.kebab}.ts`, conformanceModule(names)],
  ]);
}

/**
 * The registry with the kind's import (among the kind imports, in path order) and its line (last:
 * it references only its connection, so every kind it depends on is listed before it).
 */
function withRegistryLine(registry: string, { camel, kebab }: KindNames): string {
  const imports = registry.split('\n');
  const line = `import { ${camel}Registration } from './${kebab}/index.ts';`;
  const kindImport = /^import \{ \w+Registration \} from '\.\/([a-z0-9-]+)\/index\.ts';$/;
  const after = imports.findIndex((text) => (kindImport.exec(text)?.[1] ?? '') > kebab);
  const last = imports.findLastIndex((text) => kindImport.test(text));
  imports.splice(after >= 0 ? after : last + 1, 0, line);
  const text = imports.join('\n');
  const end = text.indexOf('\n];', text.indexOf('export const kindRegistry'));
  if (end < 0) throw new Error('cannot find the end of kindRegistry in src/controllers/registry.ts');
  return `${text.slice(0, end)}\n  ${camel}Registration,${text.slice(end)}`;
}

/** `text` as prettier formats it (Markdown is left as written, as `.prettierignore` says). */
async function formatted(path: string, text: string): Promise<string> {
  if (path.endsWith('.md')) return text;
  const options = await prettier.resolveConfig(join(root, path));
  return prettier.format(text, { ...options, filepath: path });
}

const name = positionals[0];
if (positionals.length !== 1 || name === undefined) fail('name exactly one kind');
if (!/^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)*$/.test(name)) fail(`${name} is not a PascalCase name`);
const names = kindNames(name);
const files = scaffold(names);
const registry = readFileSync(registryPath, 'utf8');
if (registry.includes(`${names.camel}Registration`)) fail(`${name} is registered already`);
for (const path of files.keys()) if (existsSync(join(root, path))) fail(`${path} exists`);

for (const [path, text] of files) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), await formatted(path, text));
  console.log(`wrote ${path}`);
}
writeFileSync(registryPath, withRegistryLine(registry, names));
console.log('added the kind to src/controllers/registry.ts');
if (!values['no-generate'])
  execFileSync(process.execPath, [join(root, 'scripts', 'generate.ts')], { cwd: root, stdio: 'inherit' });
console.log(
  'next: describe the schema, write the adapter, then remove sampleLeftOut and the AdapterNotWritten reason; ' +
    "drive the kind's states in test/integration/argocd-health.test.ts and run npm run capture:argocd",
);
