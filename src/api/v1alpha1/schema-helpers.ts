/**
 * Helpers that attach Kubernetes-specific schema extensions to zod schemas, so one zod schema is
 * both the runtime validator (controllers, samples) and the source of the CRD's OpenAPI schema.
 *
 * Extensions travel as zod metadata (`.meta()`), which `z.toJSONSchema` copies verbatim into the
 * generated JSON Schema; the CRD generator (src/api/crd) then only has to make it structural.
 */
import { z } from 'zod';

/** Reasons the API server accepts on an `x-kubernetes-validations` rule. */
export type CelReason =
  'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';

/**
 * One CEL validation rule, emitted into `x-kubernetes-validations`.
 *
 * `check` is the same condition in TypeScript: zod runs it when a spec is parsed (samples,
 * controllers), so an object the API server refuses is also refused locally. Transition rules
 * (those that read `oldSelf`) need the previous object and therefore have no `check`.
 */
export interface CelRule<T> {
  readonly rule: string;
  readonly message: string;
  /** JSONPath-like field the error is reported on, relative to the node, e.g. `.token`. */
  readonly fieldPath?: string;
  readonly reason?: CelReason;
  readonly check?: (value: T) => boolean;
}

type CelRuleJson = Omit<CelRule<unknown>, 'check'>;

const validationsKey = 'x-kubernetes-validations';

function existingRules(schema: z.ZodType): CelRuleJson[] {
  const meta = z.globalRegistry.get(schema);
  const rules = meta?.[validationsKey];
  return Array.isArray(rules) ? (rules as CelRuleJson[]) : [];
}

/** `.token` or `.a.b` → `['token']`, `['a', 'b']` (zod issue path). */
function zodPath(fieldPath: string | undefined): string[] {
  if (!fieldPath) return [];
  return fieldPath.split('.').filter((part) => part.length > 0);
}

/**
 * Adds CEL rules to a schema (appending to rules it already carries) and mirrors every rule that
 * has a `check` as a zod refinement with the same message.
 */
export function withRules<S extends z.ZodType>(schema: S, rules: readonly CelRule<z.output<S>>[]): S {
  let out = schema;
  for (const rule of rules) {
    const check = rule.check;
    if (!check) continue;
    out = out.refine((value) => check(value), { message: rule.message, path: zodPath(rule.fieldPath) });
  }
  const json = rules.map((rule): CelRuleJson => {
    const { check: _check, ...rest } = rule;
    return rest;
  });
  return out.meta({ [validationsKey]: [...existingRules(schema), ...json] });
}

/**
 * A list whose items are identified by the given key fields (`x-kubernetes-list-type: map`):
 * the API server rejects duplicate keys and server-side apply merges items by key. zod mirrors
 * the uniqueness check. Key fields must be required scalars of the item.
 */
export function listMap<T extends z.ZodObject>(
  item: T,
  keys: readonly (keyof z.output<T> & string)[],
  maxItems: number,
) {
  return z
    .array(item)
    .max(maxItems)
    .superRefine((items, ctx) => {
      const seen = new Set<string>();
      items.forEach((entry, index) => {
        const id = JSON.stringify(keys.map((key) => (entry as Record<string, unknown>)[key]));
        if (seen.has(id))
          ctx.addIssue({ code: 'custom', message: `duplicate entry for ${keys.join(', ')}`, path: [index] });
        seen.add(id);
      });
    })
    .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': [...keys] });
}

/** A list of unique scalars (`x-kubernetes-list-type: set`); zod mirrors the uniqueness check. */
export function listSet<T extends z.ZodString>(item: T, maxItems: number) {
  return z
    .array(item)
    .max(maxItems)
    .refine((items) => new Set(items).size === items.length, { message: 'entries must be unique' })
    .meta({ 'x-kubernetes-list-type': 'set' });
}

/** CEL expression: `has(self.<field>)` for each field, joined with `+` as 0/1 integers. */
export function celCountPresent(fields: readonly string[]): string {
  return fields.map((field) => `(has(self.${field}) ? 1 : 0)`).join(' + ');
}

/** Number of the given keys whose value is not undefined. */
export function countPresent(value: object, fields: readonly string[]): number {
  const record = value as Record<string, unknown>;
  return fields.filter((field) => record[field] !== undefined).length;
}

/**
 * Transition rule making the listed optional-or-required fields of an object immutable: each must
 * keep its value, and may be neither added nor removed, once the object exists.
 */
export function celImmutableFields(fields: readonly string[]): string {
  return fields
    .map((f) => `(has(self.${f}) ? (has(oldSelf.${f}) && self.${f} == oldSelf.${f}) : !has(oldSelf.${f}))`)
    .join(' && ');
}
