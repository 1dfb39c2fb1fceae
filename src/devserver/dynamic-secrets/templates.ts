/**
 * The text the dynamic-secret providers generate: usernames (random, or the username template
 * rendered with Handlebars, see handlebars.ts) and passwords by the service's rules (48 characters
 * with at least one lowercase letter, one uppercase letter and one digit, unless the provider's
 * `passwordRequirements` say otherwise).
 */
import { randomInt } from 'node:crypto';
import { badRequest } from '../domain/errors.ts';
import { renderUsernameTemplate } from './handlebars.ts';
import { ALPHANUMERIC, DIGITS, LOWER, UPPER, randomString } from './random-text.ts';
import type { PasswordRequirements } from './schemas.ts';

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
 * `randomUsername`, `unixTimestamp` (seconds), `identity.name` and `dynamicSecret.name`/`type`
 * and the template helpers; 400 when the result has characters other than letters, digits, `_`
 * and `-` or more than 128 of them.
 */
export function generateUsername(input: UsernameInput): string {
  const random = input.random ?? {};
  let randomUsername = `${random.prefix ?? ''}${randomString(ALPHANUMERIC, random.length ?? 32)}`;
  if (random.lowercase) randomUsername = randomUsername.toLowerCase();
  if (!input.template) return randomUsername;
  const result = renderUsernameTemplate(input.template, {
    randomUsername,
    unixTimestamp: Math.floor(input.nowMs / 1000),
    identity: { name: input.identityName },
    dynamicSecret: { name: input.dynamicSecret.name, type: input.dynamicSecret.type },
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
