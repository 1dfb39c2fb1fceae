/**
 * Generates the reason table of docs/gitops.md (between `<!-- generated:reasons -->` markers)
 * from the declared reasons: every reason the operator can set, its condition(s), its class,
 * the Argo CD health and kstatus reading that class gives, and the kinds that report it; and the
 * README's troubleshooting table (`<!-- generated:troubleshooting -->`): what each means and what
 * to do.
 */
import { allReasonTables } from '../../src/controllers/reasons.ts';
import { kindReasonTables } from '../../src/controllers/reasons.ts';
import type { ReasonClass, ReasonDeclaration } from '../../src/runtime/reasons.ts';
import type { GeneratedRegion, Generator } from './types.ts';

/** The Argo CD health a False condition with a reason of this class gives. */
export const argoHealthOfClass: Readonly<Record<ReasonClass, string>> = {
  healthy: 'Healthy',
  progressing: 'Progressing',
  waiting: 'Progressing',
  terminal: 'Degraded',
  suspended: 'Suspended',
};

function kindsOf(scope: string): string {
  if (scope === 'generic') return 'all';
  const kinds = Object.entries(kindReasonTables)
    .filter(([, table]) => table.scope === scope)
    .map(([kind]) => kind);
  return kinds.join(', ');
}

function row(name: string, declared: ReasonDeclaration, scope: string): string {
  const conditions = declared.conditions.join(', ');
  const health = argoHealthOfClass[declared.class];
  return `| \`${name}\` | ${conditions} | ${declared.class} | ${health} | ${kindsOf(scope)} | ${declared.description} |`;
}

/** The table: generic reasons first, then each kind's, each group in declaration order. */
export function reasonsTable(): string {
  const lines = ['| Reason | Condition | Class | Argo CD | Kinds | Meaning |', '|---|---|---|---|---|---|'];
  for (const table of allReasonTables()) {
    const declarations: Readonly<Record<string, ReasonDeclaration>> = table.declarations;
    for (const [name, declared] of Object.entries(declarations)) {
      if (declared.conditions.length > 0) lines.push(row(name, declared, table.scope));
    }
  }
  return `${lines.join('\n')}\n`;
}

function troubleshootingRow(name: string, declared: ReasonDeclaration, scope: string): string {
  const conditions = declared.conditions.join(', ');
  const kinds = scope === 'generic' ? '' : ` (${kindsOf(scope)})`;
  const text = declared.remedy ? `${declared.description} ${declared.remedy}` : declared.description;
  return `| \`${name}\` | ${conditions}${kinds} | ${text} |`;
}

/**
 * The README's troubleshooting table: every reason a condition can show that is not "all is
 * well", with what it means and what to do (description plus remedy).
 */
export function troubleshootingTable(): string {
  const lines = ['| Reason | Condition | What it means and what to do |', '|---|---|---|'];
  for (const table of allReasonTables()) {
    const declarations: Readonly<Record<string, ReasonDeclaration>> = table.declarations;
    for (const [name, declared] of Object.entries(declarations)) {
      if (declared.conditions.length > 0 && declared.class !== 'healthy')
        lines.push(troubleshootingRow(name, declared, table.scope));
    }
  }
  return `${lines.join('\n')}\n`;
}

export const reasonsDocsRegion = (): GeneratedRegion => ({
  path: 'docs/gitops.md',
  name: 'reasons',
  content: reasonsTable(),
});

export const reasonsDocsGenerator: Generator = {
  name: 'reasons-docs',
  generate: () => ({
    regions: [
      reasonsDocsRegion(),
      { path: 'README.md', name: 'troubleshooting', content: troubleshootingTable() },
    ],
  }),
};
