/**
 * The declared reasons hold: every kind has a table, only tests bypass the declarations, every
 * kind-specific reason is emitted somewhere (no stale declaration), no reason is declared twice,
 * and the generated health checks and docs table match the declarations.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allReasonTables, kindReasonTables, reasonsOfKind } from '../../src/controllers/reasons.ts';
import { kindRegistry } from '../../src/controllers/registry.ts';
import { argocdFiles } from '../../scripts/generate/argocd.ts';
import { reasonsDocsRegion } from '../../scripts/generate/reasons-docs.ts';

const root = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

const production = sourceFiles('src').filter(
  (path) => !path.endsWith('.test.ts') && !path.includes('/devserver/'),
);

describe('declared reasons', () => {
  it('every registered kind has a reason table', () => {
    const kinds = kindRegistry.map((registration) => registration.definition.kind).sort();
    expect(Object.keys(kindReasonTables).sort()).toEqual(kinds);
  });

  it('no reason is declared twice', () => {
    const names = allReasonTables().flatMap((table) => Object.keys(table.declarations));
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
  });

  it('production code never marks a string as declared by hand (testReason is for tests)', () => {
    const offenders = production.filter(
      (path) => !path.endsWith('runtime/reasons.ts') && readFileSync(path, 'utf8').includes('testReason('),
    );
    expect(offenders).toEqual([]);
  });

  it('every kind-specific reason is emitted by its kind (names.<Reason> used outside reasons.ts)', () => {
    const code = production
      .filter((path) => !path.endsWith('reasons.ts'))
      .map((path) => readFileSync(path, 'utf8'))
      .join('\n');
    const unused = allReasonTables()
      .filter((table) => table.scope !== 'generic')
      .flatMap((table) => Object.keys(table.declarations))
      .filter((name) => !code.includes(`names.${name}`));
    expect(unused).toEqual([]);
  });

  it('the generated Argo CD health checks match the declarations', () => {
    for (const file of argocdFiles()) {
      expect(readFileSync(join(root, file.path), 'utf8'), `${file.path}: run npm run generate`).toBe(
        file.content,
      );
    }
  });

  it('the reason table of docs/gitops.md matches the declarations', () => {
    const region = reasonsDocsRegion();
    const text = readFileSync(join(root, region.path), 'utf8');
    const body = text
      .split(`<!-- generated:${region.name} -->\n`)[1]
      ?.split(`<!-- /generated:${region.name} -->`)[0];
    expect(body, 'run npm run generate').toBe(region.content);
    expect(region.content).toContain('| `Expired` | Ready | terminal | Degraded | AdditionalPrivilege |');
  });

  /** Reasons named in a page's condition table rows: | `Ready=False` | `A` / `B` | ... |. */
  function documentedReasons(text: string): string[] {
    const rows = text.split('\n').filter((line) => /^\| `(Ready|Synced)[^|]*` \| `/.test(line));
    return rows.flatMap((row) =>
      [...(row.split('|')[2] ?? '').matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1] ?? ''),
    );
  }

  it.each(kindRegistry.map((r) => [r.definition.kind, r.docPage] as const))(
    "%s: its page's condition table names only reasons the kind can set; the page names every reason it adds",
    (kind, docPage) => {
      const page = readFileSync(join(root, docPage), 'utf8');
      const documented = documentedReasons(page);
      const declared = reasonsOfKind(kind).map((reason) => reason.name);
      expect(documented.filter((name) => !declared.includes(name))).toEqual([]);
      const own = Object.keys(kindReasonTables[kind]?.declarations ?? {});
      expect(own.filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
    },
  );

  it("the README's troubleshooting table names only declared reasons", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Troubleshooting'));
    const named = [...section.matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((m) => m[1] ?? '');
    const declared = new Set(allReasonTables().flatMap((table) => Object.keys(table.declarations)));
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((name) => !declared.has(name))).toEqual([]);
  });

  it("a kind's folder emits only its own reasons and the generic ones (imports no other kind's reasons.ts)", () => {
    const foreign = sourceFiles('src/controllers').flatMap((path) => {
      const [folder, file] = path.split('/src/controllers/')[1]?.split('/') ?? [];
      if (file === undefined) return [];
      const siblings = [...readFileSync(path, 'utf8').matchAll(/from '\.\.\/([a-z-]+)\/reasons\.ts'/g)];
      return siblings.filter((m) => m[1] !== folder).map((m) => `${path}: ${m[0]}`);
    });
    expect(foreign).toEqual([]);
  });
});
