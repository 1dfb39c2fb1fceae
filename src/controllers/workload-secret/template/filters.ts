/**
 * The template filters Coffer adds to Liquid's standard ones (`default` is Liquid's own). A filter
 * that fails throws a message about the input's shape, never the input: template errors reach
 * status and events, values must not. Text inputs are bounded (`FILTER_INPUT_LIMIT`), so the
 * Buffers of the base64 filters (memory outside the worker's V8 heap limit) stay small; Liquid's
 * own `base64_encode` / `base64_decode` are replaced by the same bounded implementations.
 *
 * | filter            | does                                                            |
 * |-------------------|-----------------------------------------------------------------|
 * | `b64enc`          | UTF-8 text → base64                                             |
 * | `b64dec`          | base64 → UTF-8 text (refuses non-base64 and non-UTF-8 bytes)    |
 * | `toJson`          | value → JSON text                                               |
 * | `fromJson`        | JSON text → value (objects, lists, numbers...)                  |
 * | `toYaml`          | value → YAML text                                               |
 * | `fromYaml`        | YAML text → value                                               |
 * | `pemCertificates` | every `CERTIFICATE` block of a PEM bundle, in order (a chain)    |
 * | `pemPrivateKey`   | the first `... PRIVATE KEY` block of a PEM bundle               |
 */
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { FILTER_INPUT_LIMIT } from './limits.ts';

/** A filter failure whose message is safe to show (no input in it). */
export class FilterError extends Error {}

const base64 = /^[A-Za-z0-9+/]*={0,2}$/;

function text(name: string, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') {
    if (value.length > FILTER_INPUT_LIMIT)
      throw new FilterError(`${name}: the input is longer than ${FILTER_INPUT_LIMIT} characters`);
    return value;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new FilterError(`${name}: expects text, got ${Array.isArray(value) ? 'a list' : typeof value}`);
}

function pemBlocks(value: string, label: RegExp): string[] {
  const blocks = value.match(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g) ?? [];
  return blocks.filter((block) => label.test(/-----BEGIN ([A-Z0-9 ]+)-----/.exec(block)?.[1] ?? ''));
}

/** Decodes UTF-8 exactly: invalid bytes are refused, never replaced; a BOM is kept. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function encodeBase64(name: string, value: unknown): string {
  return Buffer.from(text(name, value), 'utf8').toString('base64');
}

function decodeBase64(name: string, value: unknown): string {
  const input = text(name, value).replace(/\s+/g, '');
  if (input.length % 4 === 1 || !base64.test(input))
    throw new FilterError(`${name}: the input is not base64`);
  try {
    return utf8.decode(Buffer.from(input, 'base64'));
  } catch {
    throw new FilterError(`${name}: the decoded bytes are not UTF-8 text`);
  }
}

export const filters: Readonly<Record<string, (value: unknown) => unknown>> = {
  b64enc: (value) => encodeBase64('b64enc', value),
  b64dec: (value) => decodeBase64('b64dec', value),
  base64_encode: (value) => encodeBase64('base64_encode', value),
  base64_decode: (value) => decodeBase64('base64_decode', value),
  toJson: (value) => JSON.stringify(value ?? null),
  fromJson: (value) => {
    try {
      return JSON.parse(text('fromJson', value)) as unknown;
    } catch (error) {
      if (error instanceof FilterError) throw error;
      throw new FilterError('fromJson: the input is not valid JSON');
    }
  },
  toYaml: (value) => stringifyYaml(value ?? null),
  fromYaml: (value) => {
    try {
      return parseYaml(text('fromYaml', value)) as unknown;
    } catch (error) {
      if (error instanceof FilterError) throw error;
      throw new FilterError('fromYaml: the input is not valid YAML');
    }
  },
  pemCertificates: (value) => {
    const blocks = pemBlocks(text('pemCertificates', value), /^CERTIFICATE$/);
    if (blocks.length === 0) throw new FilterError('pemCertificates: the input holds no PEM certificate');
    return `${blocks.join('\n')}\n`;
  },
  pemPrivateKey: (value) => {
    const [key] = pemBlocks(text('pemPrivateKey', value), /PRIVATE KEY$/);
    if (!key) throw new FilterError('pemPrivateKey: the input holds no PEM private key');
    return `${key}\n`;
  },
};
