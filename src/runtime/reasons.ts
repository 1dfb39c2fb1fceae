/**
 * Condition reasons declared as data. Every reason the operator can set on `Ready` or `Synced` is
 * declared exactly once, in a {@link ReasonTable}: the generic ones in `common-reasons.ts` (and the
 * managed floor's, `src/managed/reasons.ts`), a kind's own in `src/controllers/<kind>/reasons.ts`. A declaration carries the reason's class,
 * which decides how GitOps tools read it (the Argo CD health checks are generated from it):
 *
 * | class         | meaning                                   | Argo CD      |
 * |---------------|-------------------------------------------|--------------|
 * | `healthy`     | the condition is True                     | Healthy      |
 * | `progressing` | work under way                            | Progressing  |
 * | `waiting`     | resolves by itself (a dependency, a retry)| Progressing  |
 * | `terminal`    | needs a person                            | Degraded     |
 * | `suspended`   | reconciliation is paused                  | Suspended    |
 *
 * The class of a reason is independent of how its error is retried: `DeletionBlocked` is retried
 * at the poll interval (the protection may be lifted in the service) but needs a person.
 *
 * A declared reason has the branded type {@link Reason}; errors and conditions the operator sets
 * accept only that type, so emitting a reason nobody declared does not compile.
 */

/** How a reason reads to a person (and to Argo CD / kstatus). */
export type ReasonClass = 'healthy' | 'progressing' | 'waiting' | 'terminal' | 'suspended';

/** The conditions a reason appears on; empty for reasons of errors never written to status. */
export type ReasonCondition = 'Ready' | 'Synced';

/** One reason's declaration. */
export interface ReasonDeclaration {
  readonly class: ReasonClass;
  readonly conditions: readonly ReasonCondition[];
  /** One sentence for the docs' reason tables: what it means and what to do. */
  readonly description: string;
  /** More on what to do, for the README's troubleshooting table, where the description is short. */
  readonly remedy?: string;
}

declare const declaredReason: unique symbol;

/** A reason string that comes from a {@link ReasonTable}. */
export type Reason<Name extends string = string> = Name & { readonly [declaredReason]: true };

/** The reasons of one scope (`generic` or a kind), by name. */
export interface ReasonTable<Names extends string = string> {
  /** `generic`, or the kind whose folder declares the table. */
  readonly scope: string;
  readonly declarations: Readonly<Record<Names, ReasonDeclaration>>;
  /** The declared reasons as values to emit: `table.names.InvalidSpec`. */
  readonly names: { readonly [N in Names]: Reason<N> };
}

/** Kubernetes' validation for `Condition.reason`. */
const reasonPattern = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

/** The class of every reason declared so far, across tables (a reason is declared once). */
const declaredClasses = new Map<string, ReasonClass>();

/** The class of a declared reason, or undefined for a reason no loaded table declares. */
export function classOfReason(reason: string): ReasonClass | undefined {
  return declaredClasses.get(reason);
}

/**
 * Declares the reasons of `scope`; throws on a name Kubernetes would not accept, or one declared
 * elsewhere with another class.
 */
export function declareReasons<const T extends Record<string, ReasonDeclaration>>(
  scope: string,
  declarations: T,
): ReasonTable<keyof T & string> {
  const names: Record<string, string> = {};
  for (const name of Object.keys(declarations)) {
    if (!reasonPattern.test(name)) throw new Error(`reason ${name} of ${scope} is not CamelCase`);
    const declared = declarations[name]?.class;
    const earlier = declaredClasses.get(name);
    if (declared === undefined || (earlier !== undefined && earlier !== declared))
      throw new Error(`reason ${name} of ${scope} is declared twice with different classes`);
    declaredClasses.set(name, declared);
    names[name] = name;
  }
  return {
    scope,
    declarations,
    names: Object.freeze(names) as ReasonTable<keyof T & string>['names'],
  };
}

/**
 * Marks a reason string as declared. Only for tests of generic machinery that need a reason of
 * their own; production code emits `table.names.X`.
 */
export function testReason<Name extends string>(name: Name): Reason<Name> {
  return name as Reason<Name>;
}
