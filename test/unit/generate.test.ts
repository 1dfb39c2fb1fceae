/**
 * `npm run generate`: every committed generated file matches what the generators write (this is
 * the drift check `npm test` runs in CI), and the engine reports each kind of drift and is
 * idempotent.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generators } from '../../scripts/generate/generators.ts';
import { applyChanges, planGeneration, replaceRegion } from '../../scripts/generate/run.ts';
import type { Generator } from '../../scripts/generate/types.ts';
import { repoRoot } from './crds-cases.ts';

describe('generated files', () => {
  it('are up to date (run npm run generate)', async () => {
    const changes = await planGeneration(repoRoot, generators);
    expect(
      changes.map((c) => `${c.why}: ${c.path}`),
      'out of date: run npm run generate',
    ).toEqual([]);
  });

  it('say in their first line that npm run generate writes them', async () => {
    for (const generator of generators) {
      for (const file of (await generator.generate()).files ?? []) {
        expect(file.content.split('\n')[0], file.path).toContain('npm run generate');
      }
    }
  });
});

describe('the generate engine', () => {
  const roots: string[] = [];
  afterEach(() => roots.splice(0).forEach((root) => rmSync(root, { recursive: true, force: true })));

  function tempRoot(files: Record<string, string>): string {
    const root = mkdtempSync(join(tmpdir(), 'coffer-generate-'));
    roots.push(root);
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), content);
    }
    return root;
  }

  const fake: Generator = {
    name: 'fake',
    generate: () => ({
      files: [
        { path: 'out/a.yaml', content: '# generated\na: 1\n' },
        { path: 'out/b.yaml', content: '# generated\nb: 2\n' },
      ],
      regions: [{ path: 'DOC.md', name: 'table', content: '| x |\n' }],
      ownedDirs: ['out'],
    }),
  };
  const doc = 'intro\n<!-- generated:table -->\nold\n<!-- /generated:table -->\nend\n';

  it('reports differing, missing and stale files, and a region that drifted', async () => {
    const root = tempRoot({ 'out/a.yaml': 'a: 0\n', 'out/old.yaml': 'x\n', 'DOC.md': doc });
    const changes = await planGeneration(root, [fake]);
    expect(changes.map((c) => `${c.why}: ${c.path}`).sort()).toEqual([
      'differs: DOC.md',
      'differs: out/a.yaml',
      'missing: out/b.yaml',
      'stale: out/old.yaml',
    ]);
  });

  it('writes, replaces only the marked region, removes stale files, and is idempotent', async () => {
    const root = tempRoot({ 'out/old.yaml': 'x\n', 'DOC.md': doc });
    applyChanges(root, await planGeneration(root, [fake]));
    expect(readFileSync(join(root, 'DOC.md'), 'utf8')).toBe(
      'intro\n<!-- generated:table -->\n| x |\n<!-- /generated:table -->\nend\n',
    );
    expect(readFileSync(join(root, 'out/b.yaml'), 'utf8')).toBe('# generated\nb: 2\n');
    expect(await planGeneration(root, [fake])).toEqual([]);
  });

  it('replaces a region between `#` comment markers (YAML, Dockerfile), keeping their indentation', () => {
    const yaml = 'env:\n  # generated:tuning\n  - old\n  # /generated:tuning\nports: []\n';
    expect(replaceRegion(yaml, { path: 'x.yaml', name: 'tuning', content: '  - new\n' })).toBe(
      'env:\n  # generated:tuning\n  - new\n  # /generated:tuning\nports: []\n',
    );
  });

  it('refuses a region whose markers are missing, and two generators writing one file', async () => {
    const root = tempRoot({ 'DOC.md': 'no markers\n' });
    await expect(planGeneration(root, [fake])).rejects.toThrow(/markers are missing/);
    const twice: Generator = {
      name: 'twice',
      generate: () => ({ files: [{ path: 'out/a.yaml', content: '' }] }),
    };
    await expect(planGeneration(tempRoot({ 'DOC.md': doc }), [fake, twice])).rejects.toThrow(
      /two generators/,
    );
  });
});
