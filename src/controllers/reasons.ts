/**
 * The condition reasons of every kind: the generic tables (the reconcile machinery's and the
 * managed floor's) plus the kind's own, which its registration names (`reasons`, declared in
 * `<kind>/reasons.ts`). The Argo CD health checks and the docs' reason tables are generated from
 * these (`npm run generate`). Kinds that run the same sync (Connection, ClusterConnection) share
 * one table.
 */
import { managedReasons } from '../managed/reasons.ts';
import { commonReasons } from '../runtime/common-reasons.ts';
import type { ReasonClass, ReasonCondition, ReasonDeclaration, ReasonTable } from '../runtime/reasons.ts';
import { kindRegistry } from './registry.ts';

/** The reasons every kind can report, in the order the docs list them. */
export const genericReasonTables: readonly ReasonTable[] = [commonReasons, managedReasons];

/** Each kind's own reason table, by kind name, in registry order. */
export const kindReasonTables: Readonly<Record<string, ReasonTable>> = Object.fromEntries(
  kindRegistry.map((registration) => [registration.definition.kind, registration.reasons]),
);

/** One reason as a kind can report it. */
export interface KindReason {
  readonly name: string;
  readonly class: ReasonClass;
  readonly conditions: readonly ReasonCondition[];
  readonly description: string;
  /** `generic`, or the kind that declares it. */
  readonly scope: string;
}

function rowsOf(table: ReasonTable): KindReason[] {
  const declarations: Readonly<Record<string, ReasonDeclaration>> = table.declarations;
  return Object.entries(declarations).map(([name, declared]) => ({ name, scope: table.scope, ...declared }));
}

/** Every reason `kind` can report: the generic ones, then its own, in declaration order. */
export function reasonsOfKind(kind: string): readonly KindReason[] {
  const own = kindReasonTables[kind];
  if (!own) throw new Error(`cannot list the reasons of ${kind}: it is not a registered kind`);
  return [...genericReasonTables.flatMap(rowsOf), ...rowsOf(own)];
}

/** The generic tables, then each distinct kind table once (Connection's serves two kinds). */
export function allReasonTables(): readonly ReasonTable[] {
  return [...genericReasonTables, ...new Set<ReasonTable>(Object.values(kindReasonTables))];
}
