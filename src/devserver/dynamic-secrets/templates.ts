/**
 * The text the dynamic-secret providers generate: statements with `{{variable}}` placeholders
 * (the service renders Handlebars templates; the devserver substitutes plain variables and refuses
 * any other expression), usernames from the optional username template, and passwords by the
 * service's rules (48 characters with at least one lowercase letter, one uppercase letter and one
 * digit, unless the provider's `passwordRequirements` say otherwise).
 */
import { randomInt } from 'node:crypto';
import { badRequest } from '../domain/errors.ts';
import type { PasswordRequirements } from './schemas.ts';

const EXPRESSION = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The expressions of `template` that are not in `allowed`. */
function disallowedExpressions(template: string, allowed: readonly string[]): string[] {
  return [...template.matchAll(EXPRESSION)]
    .map((m) => m[1] ?? '')
    .filter((expression) => !allowed.includes(expression));
}

/** Whether `template` uses only the `allowed` variables. */
export function usesOnly(template: string, allowed: readonly string[]): boolean {
  return disallowedExpressions(template, allowed).length === 0;
}

/** Throws 400 when `template` uses an expression other than the `allowed` variables. */
export function validateTemplate(label: string, template: string, allowed: readonly string[]): void {
  const bad = disallowedExpressions(template, allowed);
  if (bad.length > 0) {
    throw badRequest(`${label} template has disallowed expressions: ${bad.join(', ')}`);
  }
}

/** `template` with every `{{name}}` replaced by `values[name]` (unknown names become ""). */
export function renderTemplate(template: string, values: Record<string, string>): string {
  return template.replace(EXPRESSION, (_match, name: string) => values[name] ?? '');
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';
const ALPHANUMERIC = DIGITS + LOWER + UPPER;

/** `length` characters drawn uniformly from `alphabet`. */
export function randomString(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)] ?? '';
  return out;
}

const DEFAULT_PASSWORD: PasswordRequirements = {
  length: 48,
  required: { lowercase: 1, uppercase: 1, digits: 1, symbols: 0 },
  allowedSymbols: '-_.~!*',
};

/** A password meeting `requirements` (default: the service's SQL defaults). */
export function generatePassword(requirements: PasswordRequirements = DEFAULT_PASSWORD): string {
  const { length, required } = requirements;
  const classes = [
    { count: required.lowercase, chars: LOWER },
    { count: required.uppercase, chars: UPPER },
    { count: required.digits, chars: DIGITS },
    { count: required.symbols, chars: requirements.allowedSymbols || '-_.~!*' },
  ].filter((c) => c.count > 0);
  const parts = classes.flatMap((c) => [...randomString(c.chars, c.count)]);
  const rest = Math.max(length - parts.length, 0);
  parts.push(...randomString(classes.map((c) => c.chars).join(''), rest));
  for (let i = parts.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [parts[i], parts[j]] = [parts[j] ?? '', parts[i] ?? ''];
  }
  return parts.join('');
}

/** Variables a username template may use. */
export const USERNAME_TEMPLATE_VARIABLES = [
  'randomUsername',
  'unixTimestamp',
  'identity.name',
  'dynamicSecret.name',
  'dynamicSecret.type',
] as const;

const SAFE_USERNAME = /^[A-Za-z0-9_-]{1,128}$/;

/** What a username is generated from. */
export interface UsernameInput {
  template: string | null;
  identityName: string;
  dynamicSecret: { name: string; type: string };
  nowMs: number;
  /** Random part: prefix, length (default 32) and whether it is lowercased. */
  random?: { prefix?: string; length?: number; lowercase?: boolean };
}

/**
 * A lease's username: 32 random letters and digits, or the username template rendered with
 * `randomUsername`, `unixTimestamp`, `identity.name` and `dynamicSecret.name`/`type`; 400 when the
 * result has characters other than letters, digits, `_` and `-`.
 */
export function generateUsername(input: UsernameInput): string {
  const random = input.random ?? {};
  let randomUsername = `${random.prefix ?? ''}${randomString(ALPHANUMERIC, random.length ?? 32)}`;
  if (random.lowercase) randomUsername = randomUsername.toLowerCase();
  if (!input.template) return randomUsername;
  const result = renderTemplate(input.template, {
    randomUsername,
    unixTimestamp: String(Math.floor(input.nowMs / 1000)),
    'identity.name': input.identityName,
    'dynamicSecret.name': input.dynamicSecret.name,
    'dynamicSecret.type': input.dynamicSecret.type,
  });
  if (result && !SAFE_USERNAME.test(result)) {
    throw badRequest(
      'Generated username contains unsupported characters; only letters, digits, underscore and hyphen are allowed',
    );
  }
  return result;
}

/** `message` with every non-empty `secret` replaced by "[REDACTED]". */
export function redact(message: string, secrets: readonly string[]): string {
  return secrets.filter((s) => s.length > 0).reduce((text, s) => text.split(s).join('[REDACTED]'), message);
}
