/**
 * One definition per kind stays small: each `src/controllers/<kind>/adapter.ts` is the
 * observe/create/update/delete translation of its kind in at most 150 lines (as `wc -l` counts
 * them); lookups, status building, credential plumbing, reference resolution and drift
 * description live in sibling files of the kind's folder.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const maxAdapterLines = 150;

const controllers = join(import.meta.dirname, '..', '..', 'src', 'controllers');

/** Every kind folder's adapter, as a path relative to `src/controllers`. */
function adapters(): string[] {
  return readdirSync(controllers, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(entry.name, 'adapter.ts'))
    .filter((path) => existsSync(join(controllers, path)))
    .sort();
}

/** Lines as `wc -l` counts them: newline characters. */
function lineCount(path: string): number {
  return readFileSync(join(controllers, path), 'utf8').split('\n').length - 1;
}

describe('adapter size', () => {
  it('finds the adapters of the kinds', () => {
    expect(adapters()).toEqual(expect.arrayContaining(['project/adapter.ts', 'secret-batch/adapter.ts']));
  });

  it(`keeps every src/controllers/*/adapter.ts within ${maxAdapterLines} lines`, () => {
    const tooLong = adapters()
      .map((path) => ({ path, lines: lineCount(path) }))
      .filter(({ lines }) => lines > maxAdapterLines);
    expect(tooLong).toEqual([]);
  });
});
