/** Random text for generated usernames, passwords and the `random` template helper. */
import { randomInt } from 'node:crypto';

export const LOWER = 'abcdefghijklmnopqrstuvwxyz';
export const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const DIGITS = '0123456789';
export const ALPHANUMERIC = DIGITS + UPPER + LOWER;

/** `length` characters drawn uniformly from `alphabet`. */
export function randomString(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)] ?? '';
  return out;
}
