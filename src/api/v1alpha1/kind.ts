/**
 * Kind metadata: everything besides the schemas that the CRD generator and the controllers need
 * to know about a kind (names, scope, printer columns, default deletion policy).
 */
import type { z } from 'zod';
import type { DeletionPolicy } from './common.ts';

/** A `kubectl get` column (CRD additionalPrinterColumns). */
export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  readonly jsonPath: string;
  readonly description: string;
  /** 0 (default): always shown; 1: only with `-o wide`. */
  readonly priority?: number;
}

/** Everything known about one kind of the coffer.dev group. */
export interface KindDefinition<Spec extends z.ZodType = z.ZodType, Status extends z.ZodType = z.ZodType> {
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly scope: 'Namespaced' | 'Cluster';
  readonly categories: readonly string[];
  /** Top-level description (what `kubectl explain <kind>` prints first). */
  readonly description: string;
  readonly spec: Spec;
  readonly status: Status;
  /** Columns in `kubectl get` order, including the common Ready/Synced/ID/Age ones. */
  readonly printerColumns: readonly PrinterColumn[];
  /** Deletion policy when the spec does not say; undefined for kinds without a service object to delete. */
  readonly defaultDeletionPolicy: DeletionPolicy | undefined;
}

/** Input of {@link defineKind}: the kind-specific parts. */
export interface KindInput<Spec extends z.ZodType, Status extends z.ZodType> {
  readonly kind: string;
  readonly plural: string;
  readonly shortNames: readonly string[];
  readonly scope: 'Namespaced' | 'Cluster';
  readonly description: string;
  readonly spec: Spec;
  readonly status: Status;
  /** Kind-specific columns, shown between Synced and ID. */
  readonly columns?: readonly PrinterColumn[];
  readonly defaultDeletionPolicy: DeletionPolicy | undefined;
}

function conditionColumn(type: string, description: string): PrinterColumn {
  return {
    name: type,
    type: 'string',
    jsonPath: `.status.conditions[?(@.type=="${type}")].status`,
    description,
  };
}

/**
 * The reason of the first True condition: the operator puts Stalled or Reconciling (which carry
 * the failing reason) first while something is wrong, so this shows why; Ready's `Available`
 * otherwise. (kubectl shows the first match of a column's JSONPath.)
 */
const reasonColumn: PrinterColumn = {
  name: 'Reason',
  type: 'string',
  jsonPath: '.status.conditions[?(@.status=="True")].reason',
  description: 'Why the resource is not Ready (the reason of Stalled or Reconciling), or Available.',
};

/** Completes a kind's metadata with the conventions every Coffer kind follows. */
export function defineKind<Spec extends z.ZodType, Status extends z.ZodType>(
  input: KindInput<Spec, Status>,
): KindDefinition<Spec, Status> {
  return {
    kind: input.kind,
    listKind: `${input.kind}List`,
    plural: input.plural,
    singular: input.kind.toLowerCase(),
    shortNames: input.shortNames,
    scope: input.scope,
    categories: ['coffer'],
    description: input.description,
    spec: input.spec,
    status: input.status,
    printerColumns: [
      conditionColumn('Ready', 'Whether the service object exists and matches the spec.'),
      conditionColumn('Synced', 'Whether the last reconcile succeeded.'),
      reasonColumn,
      ...(input.columns ?? []),
      { name: 'ID', type: 'string', jsonPath: '.status.id', description: 'Id of the object in the service.' },
      {
        name: 'Age',
        type: 'date',
        jsonPath: '.metadata.creationTimestamp',
        description: 'Time since creation.',
      },
    ],
    defaultDeletionPolicy: input.defaultDeletionPolicy,
  };
}
