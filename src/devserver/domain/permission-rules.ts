/**
 * Project and organisation permission rules ("v2" rules) and their evaluation.
 *
 * A rule is `{subject, action[], conditions?, inverted?}`. Requests may send `action` as one
 * string; {@link normalizeRule} turns it into an array (the service always stores and returns
 * arrays). Storage uses the compact "packed" form (`[actions, subject, conditions|0, 1|0]`, the
 * CASL format) via {@link packRules} / {@link unpackRules}.
 *
 * Evaluation ({@link can}) is CASL-like with one deliberate simplification:
 *
 * - a rule applies when its subject equals the checked subject and its actions include the
 *   checked action;
 * - with a `context` (the object checked: `{environment, secretPath, secretName, secretTags,
 *   identityId, ...}`), a rule applies only when all its conditions hold for that context;
 * - without a context (a check "on the subject type", e.g. "may read some secrets"), conditions
 *   are ignored for allowing rules, and inverted rules only forbid when they have no conditions;
 * - **deny overrides**: any applicable inverted rule forbids, whatever the rule order (CASL
 *   would let a later allowing rule win; the devserver does not model rule order);
 * - for `secrets`, `describeSecret` and `readValue` are also granted by the legacy `read`
 *   action (the service checks "read OR the specific action").
 *
 * Condition values: a plain string means equality; an operator object supports `$eq`, `$ne`,
 * `$in` (any of a list) and `$glob` (picomatch-style, see `glob.ts`), all of which must hold.
 * A context field that is an array (secretTags) matches when any element matches. A missing
 * context field only satisfies `$ne`.
 */
import { permissionDenied } from './errors.ts';
import { globMatch } from './glob.ts';

/** An operator object in a condition. */
export interface ConditionOperators {
  $eq?: string;
  $ne?: string;
  $in?: string[];
  $glob?: string;
}
export type ConditionValue = string | ConditionOperators;
export type Conditions = Record<string, ConditionValue>;

/** A normalised rule: `action` is always a non-empty array. */
export interface PermissionRule {
  subject: string;
  action: string[];
  conditions?: Conditions;
  inverted?: boolean;
}

/** A rule as a request may send it (`action` may be a single string). */
export interface PermissionRuleInput {
  subject: string;
  action: string | string[];
  conditions?: Conditions | undefined;
  inverted?: boolean | undefined;
}

/** The object a permission is checked against. */
export type PermissionContext = Record<string, string | readonly string[] | undefined>;

/** Packed storage form: `[actions joined by ",", subject, conditions or 0, 1 if inverted]`. */
export type PackedRule =
  [string, string] | [string, string, Conditions | 0] | [string, string, Conditions | 0, 1];

/** Always-array `action`; empty conditions dropped; `inverted` only when true. */
export function normalizeRule(input: PermissionRuleInput): PermissionRule {
  const rule: PermissionRule = {
    subject: input.subject,
    action: Array.isArray(input.action) ? [...input.action] : [input.action],
  };
  if (input.conditions && Object.keys(input.conditions).length > 0) rule.conditions = input.conditions;
  if (input.inverted) rule.inverted = true;
  return rule;
}

/** {@link normalizeRule} over a list. */
export function normalizeRules(inputs: readonly PermissionRuleInput[]): PermissionRule[] {
  return inputs.map(normalizeRule);
}

/** Packs rules into the compact CASL storage form (trailing empty fields dropped). */
export function packRules(rules: readonly PermissionRule[]): PackedRule[] {
  return rules.map((rule) => {
    const actions = rule.action.join(',');
    if (rule.inverted) return [actions, rule.subject, rule.conditions ?? 0, 1];
    if (rule.conditions) return [actions, rule.subject, rule.conditions];
    return [actions, rule.subject];
  });
}

/** Unpacks the storage form; a comma-joined subject list yields one rule per subject. */
export function unpackRules(packed: readonly PackedRule[]): PermissionRule[] {
  return packed.flatMap(([actions, subjects, conditions, inverted]) =>
    subjects.split(',').map((subject) =>
      normalizeRule({
        subject,
        action: actions.split(','),
        conditions: conditions === 0 ? undefined : conditions,
        inverted: inverted === 1,
      }),
    ),
  );
}

function valueEquals(value: string | readonly string[] | undefined, expected: string): boolean {
  if (value === undefined) return false;
  return typeof value === 'string' ? value === expected : value.includes(expected);
}

function valueGlob(value: string | readonly string[] | undefined, pattern: string): boolean {
  if (value === undefined) return false;
  return typeof value === 'string' ? globMatch(pattern, value) : value.some((v) => globMatch(pattern, v));
}

function conditionHolds(condition: ConditionValue, value: string | readonly string[] | undefined): boolean {
  if (typeof condition === 'string') return valueEquals(value, condition);
  if (condition.$eq !== undefined && !valueEquals(value, condition.$eq)) return false;
  if (condition.$ne !== undefined && valueEquals(value, condition.$ne)) return false;
  if (condition.$in !== undefined && !condition.$in.some((x) => valueEquals(value, x))) return false;
  if (condition.$glob !== undefined && !valueGlob(value, condition.$glob)) return false;
  return true;
}

/** True when every condition of the rule holds for `context` (no conditions: true). */
export function conditionsMatch(conditions: Conditions | undefined, context: PermissionContext): boolean {
  if (!conditions) return true;
  return Object.entries(conditions).every(([field, condition]) => conditionHolds(condition, context[field]));
}

function applies(rule: PermissionRule, action: string, subject: string): boolean {
  return rule.subject === subject && rule.action.includes(action);
}

function evaluate(
  rules: readonly PermissionRule[],
  action: string,
  subject: string,
  context: PermissionContext | undefined,
): boolean {
  let allowed = false;
  for (const rule of rules) {
    if (!applies(rule, action, subject)) continue;
    if (context === undefined) {
      // Type-level check: conditional denials do not deny "some" access.
      if (rule.inverted && !rule.conditions) return false;
      if (!rule.inverted) allowed = true;
      continue;
    }
    if (!conditionsMatch(rule.conditions, context)) continue;
    if (rule.inverted) return false;
    allowed = true;
  }
  return allowed;
}

const LEGACY_SECRET_READ_ALIASES = new Set(['describeSecret', 'readValue']);

/** Whether `rules` allow `action` on `subject` (for the given context); see the module doc. */
export function can(
  rules: readonly PermissionRule[],
  action: string,
  subject: string,
  context?: PermissionContext,
): boolean {
  if (subject === 'secrets' && LEGACY_SECRET_READ_ALIASES.has(action)) {
    return evaluate(rules, 'read', subject, context) || evaluate(rules, action, subject, context);
  }
  return evaluate(rules, action, subject, context);
}

/** The rules that mention `action` on `subject`, in the shape of a 403's `details`. */
export function relevantRules(
  rules: readonly PermissionRule[],
  action: string,
  subject: string,
): Array<{ action: string[]; inverted: boolean; subject: string; conditions?: Conditions }> {
  return rules
    .filter((rule) => applies(rule, action, subject))
    .map((rule) => ({
      action: rule.action,
      inverted: rule.inverted === true,
      subject: rule.subject,
      ...(rule.conditions ? { conditions: rule.conditions } : {}),
    }));
}

/**
 * Throws 403 "PermissionDenied" ("You are not allowed to {action} on {subject}", details = the
 * relevant rules) unless {@link can} allows it.
 */
export function assertCan(
  rules: readonly PermissionRule[],
  action: string,
  subject: string,
  context?: PermissionContext,
): void {
  if (!can(rules, action, subject, context)) {
    throw permissionDenied(action, subject, relevantRules(rules, action, subject));
  }
}

// ---------------------------------------------------------------------------------------------
// Templates: condition strings may use `{{identity.<field>}}`, filled in per identity.

const TEMPLATE = /\{\{\s*([^}]*?)\s*\}\}/g;
const IDENTITY_EXPRESSION = /^identity\.[A-Za-z0-9_.]+$/;

function conditionStrings(value: ConditionValue): string[] {
  if (typeof value === 'string') return [value];
  return [value.$eq, value.$ne, value.$glob, ...(value.$in ?? [])].filter((v) => v !== undefined);
}

/** The template expressions (`{{ x }}` bodies) used in rule conditions that are not `identity.*`. */
export function invalidTemplateExpressions(rules: readonly PermissionRule[]): string[] {
  const texts = rules.flatMap((rule) => Object.values(rule.conditions ?? {}).flatMap(conditionStrings));
  const expressions = texts.flatMap((text) => [...text.matchAll(TEMPLATE)].map((match) => match[1] ?? ''));
  return expressions.filter((expression) => !IDENTITY_EXPRESSION.test(expression));
}

function lookup(data: Record<string, unknown>, path: string): string {
  let current: unknown = data;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, key)) return '';
    current = (current as Record<string, unknown>)[key];
  }
  return typeof current === 'string' || typeof current === 'number' ? String(current) : '';
}

function fill(text: string, data: Record<string, unknown>): string {
  return text.replace(TEMPLATE, (_all, expression: string) => lookup(data, expression));
}

function fillValue(value: ConditionValue, data: Record<string, unknown>): ConditionValue {
  if (typeof value === 'string') return fill(value, data);
  const out: ConditionOperators = {};
  if (value.$eq !== undefined) out.$eq = fill(value.$eq, data);
  if (value.$ne !== undefined) out.$ne = fill(value.$ne, data);
  if (value.$glob !== undefined) out.$glob = fill(value.$glob, data);
  if (value.$in !== undefined) out.$in = value.$in.map((v) => fill(v, data));
  return out;
}

/**
 * Replaces `{{identity.x}}` expressions in conditions with values from `data` (e.g.
 * `{identity: {id, name, metadata: {key: value}}}`); unknown paths become "".
 */
export function interpolateRules(
  rules: readonly PermissionRule[],
  data: Record<string, unknown>,
): PermissionRule[] {
  return rules.map((rule) => {
    if (!rule.conditions) return rule;
    // fromEntries defines own properties, so a hostile "__proto__" field stays inert data.
    const entries = Object.entries(rule.conditions).map(([field, value]) => [field, fillValue(value, data)]);
    return { ...rule, conditions: Object.fromEntries(entries) as Conditions };
  });
}
