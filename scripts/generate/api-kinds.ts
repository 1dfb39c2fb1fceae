/**
 * src/api/v1alpha1/kinds.generated.ts from the kind registry: `allKinds`, every kind's definition
 * in registry order, for the floors below the controllers (which may not import the registry)
 * and the sandbox's start-up path. Each definition is found by identity among the exports of the
 * api modules, so the generated imports name the module and export that define it. Also the
 * `exports` region of src/api/v1alpha1/index.ts: an `export *` of every module of the folder, so a
 * new kind's schema file is exported without an edit there.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { kindRegistry } from '../../src/controllers/registry.ts';
import { generatedFrom, type Generator } from './types.ts';

const apiDir = join(import.meta.dirname, '..', '..', 'src', 'api', 'v1alpha1');
const target = 'src/api/v1alpha1/kinds.generated.ts';
const skipped = new Set(['index.ts', 'kinds.generated.ts']);

interface Located {
  readonly module: string;
  readonly exportName: string;
}

/** The api modules (schemas and metadata), in file-name order. */
function apiModules(): string[] {
  return readdirSync(apiDir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !skipped.has(f))
    .sort();
}

/** The `exports` region of index.ts: every api module, re-exported. */
export function apiExports(): string {
  return apiModules()
    .map((module) => `export * from './${module}';\n`)
    .join('');
}

async function locateDefinitions(): Promise<Map<unknown, Located>> {
  const found = new Map<unknown, Located>();
  for (const module of apiModules()) {
    const exports = (await import(pathToFileURL(join(apiDir, module)).href)) as Record<string, unknown>;
    for (const [exportName, value] of Object.entries(exports)) {
      if (!found.has(value)) found.set(value, { module, exportName });
    }
  }
  return found;
}

/** The generated module's text. */
export async function apiKindsModule(): Promise<string> {
  const located = await locateDefinitions();
  const entries = kindRegistry.map((kind) => {
    const where = located.get(kind.definition);
    if (!where)
      throw new Error(
        `cannot generate ${target}: ${kind.definition.kind}'s definition is not exported by src/api/v1alpha1`,
      );
    return where;
  });
  const imports = [...entries]
    .sort((a, b) => a.module.localeCompare(b.module))
    .map((e) => `import { ${e.exportName} } from './${e.module}';`);
  return [
    `// ${generatedFrom('the kind registry (src/controllers/registry.ts)')}`,
    ...imports,
    "import type { KindDefinition } from './kind.ts';",
    '',
    "/** Every kind's definition, in the registry's order (src/controllers/registry.ts). */",
    'export const allKinds = [',
    ...entries.map((e) => `  ${e.exportName},`),
    '] as const satisfies readonly KindDefinition[];',
    '',
  ].join('\n');
}

export const apiKindsGenerator: Generator = {
  name: 'api-kinds',
  generate: async () => ({
    files: [{ path: target, content: await apiKindsModule() }],
    regions: [{ path: 'src/api/v1alpha1/index.ts', name: 'exports', content: apiExports() }],
  }),
};
