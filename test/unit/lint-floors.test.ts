// The layering lint rules (scripts/lint/plugin.ts) run through ESLint's Node API on a small
// fixture tree: an upward import, a devserver import from the operator's floors, a file outside
// every floor and an import cycle fail; downward imports and type-only back edges pass. The
// repository's own config must switch both rules on for src/, so `npm run lint` enforces them.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cofferPlugin } from '../../scripts/lint/plugin.ts';

const repoRoot = resolve(import.meta.dirname, '../..');

const fixture: Record<string, string> = {
  'src/runtime/clock.ts': 'export const now = (): number => 0;\n',
  'src/runtime/upward.ts': "import { run } from '../managed/run.ts';\nexport const x = run;\n",
  'src/managed/run.ts': "import { now } from '../runtime/clock.ts';\nexport const run = now;\n",
  'src/managed/loop-a.ts': "import { b } from './loop-b.ts';\nexport const a = (): number => b();\n",
  'src/managed/loop-b.ts': "import { a } from './loop-a.ts';\nexport const b = (): number => a();\n",
  'src/managed/typed-a.ts': "import type { B } from './typed-b.ts';\nexport const a = (b: B): B => b;\n",
  'src/managed/typed-b.ts':
    "import { a } from './typed-a.ts';\nexport type B = number;\nexport const b = a;\n",
  'src/managed/uses-devserver.ts': "export { serve } from '../devserver/server.ts';\n",
  'src/managed/uses-devserver.test.ts':
    "import { serve } from '../devserver/server.ts';\nexport const s = serve;\n",
  'src/managed/unplaced.ts': "import { y } from '../newfloor/y.ts';\nexport const z = y;\n",
  'src/newfloor/y.ts': 'export const y = 1;\n',
  'src/devserver/server.ts': "import { pem } from '../x509.ts';\nexport const serve = pem;\n",
  'src/devserver/uses-runtime.ts': "import { now } from '../runtime/clock.ts';\nexport const later = now;\n",
  'src/x509.ts': 'export const pem = 1;\n',
  'src/cli/main.ts':
    "import { serve } from '../devserver/server.ts';\nimport { run } from '../managed/run.ts';\nexport const m = [serve, run];\n",
};

let root: string;
let lint: (file: string) => Promise<string[]>;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'coffer-floors-'));
  for (const [file, text] of Object.entries(fixture)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  }
  const options = [{ root }];
  const eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['src/**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        plugins: { coffer: cofferPlugin },
        rules: { 'coffer/floors': ['error', ...options], 'coffer/no-cycle': ['error', ...options] },
      },
    ],
  });
  lint = async (file) => {
    const [result] = await eslint.lintFiles([join(root, file)]);
    return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`);
  };
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('coffer/floors', () => {
  it('refuses an import of a higher floor', async () => {
    expect(await lint('src/runtime/upward.ts')).toEqual([
      'coffer/floors: floor runtime may not import floor managed above it (src/managed/run.ts)',
    ]);
  });

  it('accepts imports down the floors, and the cli using the devserver', async () => {
    expect(await lint('src/managed/run.ts')).toEqual([]);
    expect(await lint('src/cli/main.ts')).toEqual([]);
    expect(await lint('src/devserver/server.ts')).toEqual([]);
  });

  it('keeps the devserver out of the operator floors, except in tests', async () => {
    expect(await lint('src/managed/uses-devserver.ts')).toEqual([
      'coffer/floors: floor managed may not import the devserver (only cli, sandbox and tests may)',
    ]);
    expect(await lint('src/managed/uses-devserver.test.ts')).toEqual([]);
  });

  it('keeps the operator floors out of the devserver: only the shared helpers in src/*.ts', async () => {
    expect(await lint('src/devserver/uses-runtime.ts')).toEqual([
      'coffer/floors: the devserver may import only the shared helpers in src/*.ts, not floor runtime (src/runtime/clock.ts)',
    ]);
  });

  it('refuses a folder of src/ that has no floor yet', async () => {
    expect(await lint('src/managed/unplaced.ts')).toEqual([
      'coffer/floors: src/newfloor/y.ts belongs to no floor: add its folder to FLOORS in scripts/lint/floors.ts',
    ]);
  });
});

describe('coffer/no-cycle', () => {
  it('reports each import that closes a cycle, naming the cycle', async () => {
    expect(await lint('src/managed/loop-a.ts')).toEqual([
      'coffer/no-cycle: import cycle: src/managed/loop-a.ts → src/managed/loop-b.ts → src/managed/loop-a.ts',
    ]);
    expect(await lint('src/managed/loop-b.ts')).toEqual([
      'coffer/no-cycle: import cycle: src/managed/loop-b.ts → src/managed/loop-a.ts → src/managed/loop-b.ts',
    ]);
  });

  it('ignores a back edge that is a type-only import (erased at run time)', async () => {
    expect(await lint('src/managed/typed-a.ts')).toEqual([]);
    expect(await lint('src/managed/typed-b.ts')).toEqual([]);
  });
});

describe('the repository config', () => {
  it('turns both rules on for every source file', async () => {
    const eslint = new ESLint({ cwd: repoRoot });
    for (const file of ['src/runtime/clock.ts', 'src/controllers/index.ts', 'src/cli/main.ts']) {
      const config = (await eslint.calculateConfigForFile(join(repoRoot, file))) as {
        rules: Record<string, unknown>;
      };
      expect(config.rules['coffer/floors'], file).toEqual([2]);
      expect(config.rules['coffer/no-cycle'], file).toEqual([2]);
    }
  });
});
