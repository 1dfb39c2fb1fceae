/**
 * `npm run gen:crds`: writes the CRDs generated from src/api/v1alpha1 into crds/ (plus the
 * crds/kustomization.yaml that config/crd builds on) and the Helm chart's templates/crds/,
 * removing stale generated files. Deterministic: running it twice changes nothing. The unit test
 * test/unit/crds.test.ts fails when these files drift.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedDirs, renderCrdFiles } from '../src/api/crd/render.ts';
import { exitOnHelp } from './command-line.ts';

exitOnHelp(`usage: npm run gen:crds

Writes the CRDs generated from src/api/v1alpha1 into crds/ and the Helm chart's templates/crds/,
removing stale generated files; takes no flags.`);

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function listFiles(dir: string): string[] {
  try {
    return readdirSync(join(root, dir)).map((name) => `${dir}/${name}`);
  } catch {
    return [];
  }
}

const files = renderCrdFiles();
for (const dir of generatedDirs) {
  for (const path of listFiles(dir)) {
    if (!files.has(path)) {
      rmSync(join(root, path));
      console.log(`removed ${path}`);
    }
  }
}
for (const [path, content] of files) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}
console.log(`wrote ${files.size} files for ${files.size > 0 ? (files.size - 1) / 2 : 0} CRDs`);
