/**
 * The Handlebars templates of the dynamic-secret providers, as the service validates and renders
 * them (docs/service-facts.md, "Dynamic secrets"): SQL statements and username templates.
 *
 * One isolated Handlebars environment (`Handlebars.create()`, so nothing else in the process can
 * add helpers to it) with the service's helpers: `random`, `replace`, `truncate`, `uppercase`,
 * `lowercase`, `substr` and `stripPrefix`. `replace` compiles its pattern with RE2 (`re2js`, linear
 * time), so no pattern can stall the devserver. Handlebars' built-in `log` helper renders nothing
 * here and writes nothing: a template cannot copy a password into the devserver's output.
 *
 * A template is valid when every top-level part is text or a `{{…}}` expression whose name is one
 * of its variables or a helper; blocks, comments, partials, literals and parse errors are refused.
 * Statements render without HTML escaping; username templates with Handlebars' default escaping.
 */
import Handlebars from 'handlebars';
import { RE2JS } from 're2js';
import { badRequest } from '../domain/errors.ts';
import { ALPHANUMERIC, randomString } from './random-text.ts';

/** The helpers a template may call besides its variables. */
export const TEMPLATE_HELPERS: readonly string[] = [
  'replace',
  'truncate',
  'random',
  'uppercase',
  'lowercase',
  'substr',
  'stripPrefix',
];

/**
 * A helper's argument as text, as `String(value || "")`: falsy values (`undefined`, `0`, `""`)
 * become "", an object (a template can reach only plain ones) "[object Object]".
 */
function asText(value: unknown): string {
  if (!value) return '';
  if (typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : Object.prototype.toString.call(value);
}

/** A helper argument the helper calls string methods on; other values fail as in the service. */
function requireString(helper: string, value: unknown): string {
  if (typeof value !== 'string') throw new TypeError(`${helper}: the text is not a string`);
  return value;
}

/** Every match of the RE2 `pattern` in `value` replaced; an invalid pattern leaves the text. */
function replace(value: unknown, pattern: unknown, replacement: unknown): string {
  const text = asText(value);
  if (!text || typeof pattern !== 'string') return text;
  try {
    const re = RE2JS.compile(RE2JS.translateRegExp(pattern));
    return re.matcher(text).replaceAll(typeof replacement === 'string' ? replacement : String(replacement));
  } catch {
    return text;
  }
}

/** `length` (1 to 100) random letters and digits; "" for anything else. */
function random(length: unknown): string {
  if (typeof length !== 'number' || length <= 0 || length > 100) return '';
  return randomString(ALPHANUMERIC, Math.floor(length));
}

/** The first `length` characters; the whole text when `length` is not a positive number. */
function truncate(value: unknown, length: unknown): string {
  const text = asText(value);
  if (typeof length !== 'number' || length <= 0) return text;
  return text.substring(0, length);
}

/** `substring(start, end)`; `end` counts only when it is a non-zero number. */
function substr(value: unknown, start: unknown, end: unknown): string {
  const endIndex = typeof end === 'number' && end ? end : undefined;
  return requireString('substr', value).substring(Number(start), endIndex);
}

/** The text without `prefix` at its start, or unchanged. */
function stripPrefix(value: unknown, prefix: unknown): string {
  const text = requireString('stripPrefix', value);
  const start = String(prefix);
  return text.startsWith(start) ? text.substring(start.length) : text;
}

const engine = Handlebars.create();
engine.registerHelper({
  replace,
  random,
  truncate,
  uppercase: (value: unknown) => asText(value).toUpperCase(),
  lowercase: (value: unknown) => asText(value).toLowerCase(),
  substr,
  stripPrefix,
  log: () => undefined,
});

function isAllowed(statement: hbs.AST.Statement, variables: readonly string[]): boolean {
  if (statement.type === 'ContentStatement') return true;
  if (statement.type !== 'MustacheStatement') return false;
  const { path } = statement as hbs.AST.MustacheStatement;
  if (path.type !== 'PathExpression') return false;
  const name = (path as hbs.AST.PathExpression).original;
  return TEMPLATE_HELPERS.includes(name) || variables.includes(name);
}

/** Whether `template` parses and uses only `variables` and the helpers at its top level. */
export function isValidTemplate(template: string, variables: readonly string[]): boolean {
  let program: hbs.AST.Program;
  try {
    program = engine.parse(template);
  } catch {
    return false;
  }
  return program.body.every((statement) => isAllowed(statement, variables));
}

/** Throws 400 "Template sanitization failed: `label`" unless `isValidTemplate`. */
export function validateTemplate(label: string, template: string, variables: readonly string[]): void {
  if (!isValidTemplate(template, variables)) throw badRequest(`Template sanitization failed: ${label}`);
}

/** A statement rendered with `values`, without HTML escaping (unknown names render as ""). */
export function renderStatement(template: string, values: Record<string, string>): string {
  return engine.compile(template, { noEscape: true })(values);
}

/** A username template rendered with `context`, HTML-escaped as Handlebars does by default. */
export function renderUsernameTemplate(template: string, context: object): string {
  return engine.compile(template)(context);
}
