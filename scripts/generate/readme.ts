/**
 * The README's kinds table (between `<!-- generated:kinds -->` markers) from the kind registry:
 * each kind's doc page, scope, summary and the kinds it references.
 */
import { kindRegistry } from '../../src/controllers/registry.ts';
import type { KindRegistration } from '../../src/controllers/registration.ts';
import type { Generator } from './types.ts';

function references(kind: KindRegistration): string {
  const named = kind.references.map(
    (ref) => `${ref.kinds.join(' or ')} (\`${ref.path.replace(/^spec\./, '')}\`)`,
  );
  return named.length > 0 ? named.join('; ') : '—';
}

/** The Markdown table, one row per kind in registry order. */
export function kindsTable(): string {
  const rows = kindRegistry.map(
    (kind) =>
      `| [${kind.definition.kind}](${kind.docPage}) | ${kind.definition.scope} | ${kind.summary} | ${references(kind)} |`,
  );
  return ['| Kind | Scope | What it manages | Refers to (waits for Ready) |', '|---|---|---|---|', ...rows]
    .map((line) => `${line}\n`)
    .join('');
}

export const readmeGenerator: Generator = {
  name: 'readme',
  generate: () => ({ regions: [{ path: 'README.md', name: 'kinds', content: kindsTable() }] }),
};
