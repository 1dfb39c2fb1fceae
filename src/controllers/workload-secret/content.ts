/**
 * Checks and fingerprint of the content to deliver, with the API server's own rules so that a
 * write never fails on what could be known before it (and nothing is written at all when one
 * would):
 *
 * - every key is a valid Secret/ConfigMap key (`IsConfigMapKey`: `[-._a-zA-Z0-9]+`, at most 253
 *   characters, not `.` or `..`, not starting with `..`) — else `InvalidKey`, naming it;
 * - every value is well-formed Unicode (a lone UTF-16 surrogate cannot be written as UTF-8 and
 *   would arrive as U+FFFD) — else `InvalidValue`, naming the key only;
 * - the values together hold at most the 1 MiB Kubernetes allows a Secret or ConfigMap — else
 *   `TooLarge`, with the size;
 * - a Secret type's required keys are present (`ValidateSecret`) — else `InvalidSpec` naming them,
 *   or `InvalidValue` for a docker config that is not a JSON object.
 *
 * The rules follow kubernetes/kubernetes: `IsConfigMapKey` in
 * staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go (commit 008b365) and
 * `ValidateSecret` in pkg/apis/core/validation/validation.go (commit 000f260).
 *
 * The content hash is an HMAC keyed with the resource uid (a hash of a single short value must
 * not make it guessable), truncated.
 */
import { createHmac } from 'node:crypto';
import type { WorkloadSecretTargetType } from '../../api/v1alpha1/index.ts';
import { TerminalError } from '../../runtime/errors.ts';
import { managedReasons } from '../../managed/reasons.ts';
import { workloadSecretReasons } from './reasons.ts';

/** Kubernetes' limit on the summed value bytes of a Secret's or ConfigMap's data. */
export const MAX_CONTENT_BYTES = 1024 * 1024;

const validKey = /^[-._a-zA-Z0-9]+$/;

/** Why `key` is not a valid Secret/ConfigMap key, or undefined. */
export function invalidKeyReason(key: string): string | undefined {
  if (key.length === 0) return 'it is empty';
  if (key.length > 253) return `it is ${key.length} characters long (at most 253)`;
  if (key === '.' || key === '..') return 'it may not be "." or ".."';
  if (key.startsWith('..')) return 'it may not start with ".."';
  if (!validKey.test(key)) return 'only letters, digits, "-", "_" and "." are allowed';
  return undefined;
}

/** Printable form of a key for a message: invalid keys may hold anything, so it is shortened and quoted. */
function quoted(key: string): string {
  return JSON.stringify(key.length > 80 ? `${key.slice(0, 80)}…` : key);
}

/** Summed UTF-8 bytes of the values (what Kubernetes counts). */
export function contentBytes(data: Readonly<Record<string, string>>): number {
  let total = 0;
  for (const value of Object.values(data)) total += Buffer.byteLength(value, 'utf8');
  return total;
}

function checkKeys(data: Readonly<Record<string, string>>): void {
  for (const key of Object.keys(data)) {
    const why = invalidKeyReason(key);
    if (why)
      throw new TerminalError(
        managedReasons.names.InvalidKey,
        `key ${quoted(key)} is not a valid Secret/ConfigMap key: ${why}; exclude it or rename it with a template`,
      );
  }
}

function checkValues(data: Readonly<Record<string, string>>): void {
  for (const [key, value] of Object.entries(data)) {
    if (!value.isWellFormed())
      throw new TerminalError(
        workloadSecretReasons.names.InvalidValue,
        `the value of key ${quoted(key)} is not well-formed Unicode (it holds a lone UTF-16 surrogate, which ` +
          'cannot be written as UTF-8 without changing it); nothing is delivered: fix the value in the service ' +
          'or exclude the key',
      );
  }
}

/** Throws `InvalidKey`, `InvalidValue` or `TooLarge` for content that no Secret could hold exactly. */
export function checkContent(data: Readonly<Record<string, string>>): void {
  checkKeys(data);
  checkValues(data);
  const bytes = contentBytes(data);
  if (bytes > MAX_CONTENT_BYTES)
    throw new TerminalError(
      managedReasons.names.TooLarge,
      `the content to deliver is ${bytes} bytes, over the ${MAX_CONTENT_BYTES} bytes (1 MiB) a Secret or ` +
        'ConfigMap may hold; narrow the sources with include/exclude or split them',
    );
}

/** What a Secret type needs in its data (`ValidateSecret`). */
interface TypeRule {
  /** Every one of these keys must be present. */
  readonly allOf?: readonly string[];
  /** At least one of these keys must be present. */
  readonly anyOf?: readonly string[];
  /** This key must hold a value that is not empty. */
  readonly nonEmpty?: string;
  /** This key must hold a JSON object. */
  readonly jsonObject?: string;
}

const typeRules: Readonly<Record<WorkloadSecretTargetType, TypeRule>> = {
  Opaque: {},
  'kubernetes.io/tls': { allOf: ['tls.crt', 'tls.key'] },
  'kubernetes.io/dockerconfigjson': { allOf: ['.dockerconfigjson'], jsonObject: '.dockerconfigjson' },
  'kubernetes.io/dockercfg': { allOf: ['.dockercfg'], jsonObject: '.dockercfg' },
  'kubernetes.io/basic-auth': { anyOf: ['username', 'password'] },
  'kubernetes.io/ssh-auth': { nonEmpty: 'ssh-privatekey' },
};

function isJsonObject(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

/** What `data` lacks for `rule`, as a phrase naming the keys, or undefined. */
function missingFor(rule: TypeRule, data: Readonly<Record<string, string>>): string | undefined {
  const missing = (rule.allOf ?? []).filter((key) => !Object.hasOwn(data, key));
  if (missing.length > 0) return `the keys ${rule.allOf?.join(' and ')} (missing: ${missing.join(', ')})`;
  if (rule.anyOf && !rule.anyOf.some((key) => Object.hasOwn(data, key)))
    return `at least one of the keys ${rule.anyOf.join(' and ')}`;
  if (rule.nonEmpty !== undefined && !data[rule.nonEmpty])
    return `the key ${rule.nonEmpty} with a value that is not empty`;
  return undefined;
}

/**
 * Throws unless `data` is what a Secret of `type` must hold: `InvalidSpec` naming the missing
 * keys, `InvalidValue` naming a docker config key whose value is not a JSON object (never the
 * value, nor the parser's message, which would quote it). A type outside the allowed list (an
 * object stored before the CRD refused it) is `InvalidSpec` too.
 */
export function checkSecretType(type: string, data: Readonly<Record<string, string>>): void {
  const rule = typeRules[type as WorkloadSecretTargetType] as TypeRule | undefined;
  if (!rule)
    throw new TerminalError(
      managedReasons.names.InvalidSpec,
      `invalid spec: spec.target.secret.type: ${quoted(type)} is not a type a WorkloadSecret may write ` +
        `(${Object.keys(typeRules).join(', ')})`,
    );
  const missing = missingFor(rule, data);
  if (missing)
    throw new TerminalError(
      managedReasons.names.InvalidSpec,
      `invalid spec: a Secret of type ${type} needs ${missing}; deliver them (e.g. with a template) or ` +
        'change spec.target.secret.type',
    );
  if (rule.jsonObject !== undefined && !isJsonObject(data[rule.jsonObject] ?? ''))
    throw new TerminalError(
      workloadSecretReasons.names.InvalidValue,
      `the value of key ${quoted(rule.jsonObject)} is not a JSON object, which a Secret of type ${type} needs`,
    );
}

/** Key-sorted entries: the canonical form hashed. */
function sortedEntries(data: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(data).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** HMAC-SHA256 of the content keyed with `uid`, first 16 hex digits (the `status.contentHash`). */
export function contentHash(data: Readonly<Record<string, string>>, uid: string): string {
  return createHmac('sha256', uid)
    .update(JSON.stringify(sortedEntries(data)))
    .digest('hex')
    .slice(0, 16);
}
