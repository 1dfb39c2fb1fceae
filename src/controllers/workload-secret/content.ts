/**
 * Checks and fingerprint of the content to deliver: every key must be a valid Secret/ConfigMap
 * key (`InvalidKey`, naming it), the values together may not exceed the 1 MiB Kubernetes allows
 * a Secret or ConfigMap (`TooLarge`, with the size), and the content hash is an HMAC keyed with
 * the resource uid (a hash of a single short value must not make it guessable), truncated.
 */
import { createHmac } from 'node:crypto';
import { TerminalError } from '../../runtime/errors.ts';
import { commonReasons } from '../../runtime/common-reasons.ts';

/** Kubernetes' limit on the summed value bytes of a Secret's or ConfigMap's data. */
export const MAX_CONTENT_BYTES = 1024 * 1024;

const validKey = /^[-._a-zA-Z0-9]+$/;

/** Why `key` is not a valid Secret/ConfigMap key, or undefined. */
export function invalidKeyReason(key: string): string | undefined {
  if (key.length === 0) return 'it is empty';
  if (key.length > 253) return `it is ${key.length} characters long (at most 253)`;
  if (key === '.' || key === '..') return 'it may not be "." or ".."';
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

/** Throws `InvalidKey` or `TooLarge` for content that no Secret could hold. */
export function checkContent(data: Readonly<Record<string, string>>): void {
  for (const key of Object.keys(data)) {
    const why = invalidKeyReason(key);
    if (why)
      throw new TerminalError(
        commonReasons.names.InvalidKey,
        `key ${quoted(key)} is not a valid Secret/ConfigMap key: ${why}; exclude it or rename it with a template`,
      );
  }
  const bytes = contentBytes(data);
  if (bytes > MAX_CONTENT_BYTES)
    throw new TerminalError(
      commonReasons.names.TooLarge,
      `the content to deliver is ${bytes} bytes, over the ${MAX_CONTENT_BYTES} bytes (1 MiB) a Secret or ` +
        'ConfigMap may hold; narrow the sources with include/exclude or split them',
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
