/**
 * `npm run generate`: writes every file that follows from the kind registry
 * (src/controllers/registry.ts) — one module per artifact under scripts/generate/, registered
 * below with one line each — and removes stale ones. `npm run generate -- --check` writes
 * nothing and exits 1 listing each file that differs (test/unit/generate.test.ts runs the same
 * check in `npm test`). Idempotent: a second run changes nothing.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseCommandLine } from './command-line.ts';
import { generators } from './generate/generators.ts';
import { applyChanges, planGeneration } from './generate/run.ts';

const usage = `usage: npm run generate [-- --check]

Writes the files generated from the kind registry (CRDs, chart and config/rbac RBAC, Argo CD
health checks, README and docs tables), removing stale ones.
  --check   write nothing; exit 1 listing every generated file that is out of date`;

const { values } = parseCommandLine(usage, () =>
  parseArgs({ options: { check: { type: 'boolean', default: false } }, strict: true }),
);

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const changes = await planGeneration(root, generators);
if (values.check) {
  for (const change of changes) console.error(`${change.why}: ${change.path}`);
  if (changes.length > 0) {
    console.error(`${changes.length} generated file(s) out of date: run npm run generate`);
    process.exit(1);
  }
  console.log('generated files are up to date');
} else {
  applyChanges(root, changes);
  for (const change of changes)
    console.log(`${change.content === undefined ? 'removed' : 'wrote'} ${change.path}`);
  console.log(changes.length === 0 ? 'nothing to change' : `${changes.length} file(s) changed`);
}
