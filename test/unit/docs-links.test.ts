/**
 * The docs hold together: every relative link in README.md, CONTRIBUTING.md and docs/**\/*.md
 * names a file or folder that exists and, with `#anchor`, a heading of that file (GitHub's
 * anchors); and the README stays a short reference.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './crds-cases.ts';
import { anchorsOf, githubSlug, relativeLinks } from './markdown-links.ts';

const maxReadmeLines = 260;

function docFiles(): string[] {
  const docs = readdirSync(join(repoRoot, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => join('docs', file));
  return ['README.md', 'CONTRIBUTING.md', ...docs].sort();
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOfFile(path: string): Set<string> {
  let anchors = anchorCache.get(path);
  if (anchors === undefined) {
    anchors = anchorsOf(readFileSync(path, 'utf8'));
    anchorCache.set(path, anchors);
  }
  return anchors;
}

/** What is wrong with each broken link of `file` (relative to the repository root). */
function brokenLinks(file: string): string[] {
  const source = join(repoRoot, file);
  const broken: string[] = [];
  for (const link of relativeLinks(readFileSync(source, 'utf8'))) {
    const target = link.path === '' ? source : join(dirname(source), decodeURIComponent(link.path));
    const where = `${file}:${link.line} → ${link.path}${link.anchor === undefined ? '' : `#${link.anchor}`}`;
    if (!existsSync(target)) {
      broken.push(`${where}: no such file ${relative(repoRoot, target)}`);
    } else if (
      link.anchor !== undefined &&
      target.endsWith('.md') &&
      !anchorsOfFile(target).has(link.anchor)
    ) {
      broken.push(`${where}: no such heading in ${relative(repoRoot, target)}`);
    }
  }
  return broken;
}

describe('the docs', () => {
  it('include README.md, CONTRIBUTING.md and the pages under docs/', () => {
    const files = docFiles();
    expect(files).toContain('docs/architecture.md');
    expect(files).toContain('docs/kinds/project.md');
    for (const file of files) expect(existsSync(join(repoRoot, file)), file).toBe(true);
  });

  it.each(docFiles())('%s: every relative link names an existing file and heading', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it(`README.md is at most ${maxReadmeLines} lines`, () => {
    const lines = readFileSync(join(repoRoot, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(maxReadmeLines);
  });
});

describe('the link reader', () => {
  it.each([
    ['Adoption, deletion policies and annotations', 'adoption-deletion-policies-and-annotations'],
    [
      'Example: a ServiceAccount token (no stored credential)',
      'example-a-serviceaccount-token-no-stored-credential',
    ],
    ['`coffer operator` flags', 'coffer-operator-flags'],
    ['The [Connection](connection.md) kind', 'the-connection-kind'],
    ['Floors — imports point down', 'floors--imports-point-down'],
    ['snake_case stays', 'snake_case-stays'],
  ])('slugs %j as GitHub does', (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug);
  });

  it('numbers repeated headings and ignores headings in code blocks', () => {
    const anchors = anchorsOf('# Usage\n## Usage\n```sh\n# not a heading\n```\n## Usage\n');
    expect([...anchors]).toEqual(['usage', 'usage-1', 'usage-2']);
  });

  it('finds relative links with anchors and skips URLs, code spans and code blocks', () => {
    const markdown = [
      'See [a](docs/a.md#part-one) and [b](https://example.com/b.md),',
      '`[not](a-link.md)` and [here](#local "title").',
      '```md',
      '[inside](code.md)',
      '```',
      '[split',
      'text](../c.md)',
    ].join('\n');
    expect(relativeLinks(markdown)).toEqual([
      { path: 'docs/a.md', anchor: 'part-one', line: 1 },
      { path: '', anchor: 'local', line: 2 },
      { path: '../c.md', line: 7 },
    ]);
  });
});
