/**
 * Semantic comparison of permission rules (AdditionalPrivilege, ProjectRole, ProjectTemplate
 * roles). The spec and the service spell the same rules differently; comparing them literally
 * would report drift on every poll and "correct" it forever. Two rule lists are the same when
 * their canonical forms are, where the canonical form of a rule:
 *
 * - has `action` as a sorted list without duplicates (`read` ≡ `[read]`, order irrelevant);
 * - has `inverted` as a boolean (absent ≡ `false`);
 * - has `subject` as a string (a one-element subject list ≡ its element);
 * - has `conditions` as a sorted list of `(field, operator, value)`: a plain string value means
 *   equality (`dev` ≡ `{$eq: dev}`), a `$glob` without wildcard characters is an equality too
 *   (`{$glob: /app}` ≡ `/app`), `$in` lists are sorted, and absent, `{}` and empty operator
 *   objects are all "no condition";
 * - drops `environment`/`secretPath` conditions on subjects that take none, as the service does
 *   (it strips unknown condition fields), so such a spec does not drift forever either.
 *
 * Lists are compared as multisets (order irrelevant), except when a rule is inverted: CASL lets a
 * later rule override an earlier one, so with inverted rules the order is part of the meaning.
 */

/** A rule in any spelling the spec or the service uses. */
export interface RuleLike {
  readonly subject: string | readonly string[];
  readonly action: string | readonly string[];
  readonly conditions?: unknown;
  readonly inverted?: boolean | null | undefined;
}

/** A rule reduced to one spelling per meaning (see the module comment). */
export interface CanonicalRule {
  readonly subject: string;
  readonly actions: readonly string[];
  readonly conditions: readonly (readonly [field: string, operator: string, value: string])[];
  readonly inverted: boolean;
}

/** Subjects whose rules the service narrows by `environment` and `secretPath`. */
export const PATH_CONDITION_SUBJECTS: ReadonlySet<string> = new Set([
  'secrets',
  'secret-folders',
  'secret-imports',
  'secret-events',
  'dynamic-secrets',
  'secret-rotation',
  'secret-syncs',
]);

const PATH_FIELDS = new Set(['environment', 'secretPath']);
const GLOB_SPECIAL = /[*?[\]{}()!+@]/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sortedUnique(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}

function subjectOf(subject: string | readonly string[]): string {
  return typeof subject === 'string' ? subject : sortedUnique(subject).join(',');
}

/** One operator of a condition as an `(operator, value)` pair. */
function operatorPair(operator: string, operand: unknown): readonly [string, string] {
  if (operator === '$glob' && typeof operand === 'string' && !GLOB_SPECIAL.test(operand))
    return ['$eq', operand];
  if (operator === '$in' && Array.isArray(operand))
    return ['$in', JSON.stringify(sortedUnique(operand.map(String)))];
  return [operator, typeof operand === 'string' ? operand : JSON.stringify(operand)];
}

/** One condition field's value as `(operator, value)` pairs. */
function operatorPairs(value: unknown): (readonly [string, string])[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [['$eq', value]];
  if (!isRecord(value)) return [['$eq', JSON.stringify(value)]];
  return Object.entries(value)
    .filter(([, operand]) => operand !== undefined && operand !== null)
    .map(([operator, operand]) => operatorPair(operator, operand));
}

function compareTriples(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i += 1) {
    // Code-unit order: the same on every machine, and no ICU collation data paged in.
    const [x, y] = [a[i] ?? '', b[i] ?? ''];
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function canonicalConditions(subject: string, conditions: unknown): CanonicalRule['conditions'] {
  if (!isRecord(conditions)) return [];
  const triples: [string, string, string][] = [];
  for (const [field, value] of Object.entries(conditions)) {
    if (PATH_FIELDS.has(field) && !PATH_CONDITION_SUBJECTS.has(subject)) continue;
    for (const [operator, operand] of operatorPairs(value)) triples.push([field, operator, operand]);
  }
  const unique = new Map(triples.map((t) => [JSON.stringify(t), t]));
  return [...unique.values()].sort(compareTriples);
}

/** The canonical form of one rule. */
export function canonicalRule(rule: RuleLike): CanonicalRule {
  const subject = subjectOf(rule.subject);
  return {
    subject,
    actions: sortedUnique(typeof rule.action === 'string' ? [rule.action] : rule.action),
    conditions: canonicalConditions(subject, rule.conditions),
    inverted: rule.inverted === true,
  };
}

/** A string that is equal for two rules exactly when they mean the same. */
export function ruleKey(rule: RuleLike): string {
  return JSON.stringify(canonicalRule(rule));
}

/** True when the two lists grant (and deny) the same (see the module comment). */
export function samePermissions(desired: readonly RuleLike[], actual: readonly RuleLike[]): boolean {
  if (desired.length !== actual.length) return false;
  const left = desired.map(ruleKey);
  const right = actual.map(ruleKey);
  const ordered = [...desired, ...actual].some((rule) => rule.inverted === true);
  if (!ordered) {
    left.sort();
    right.sort();
  }
  return left.every((key, index) => key === right[index]);
}
