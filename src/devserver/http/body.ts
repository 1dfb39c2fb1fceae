/**
 * Request body and query handling: size limit (413), JSON parsing (400 on malformed JSON,
 * 415 on a non-JSON content type) and query-string decoding.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from './errors.ts';

/** The 413 answered when a body exceeds the configured limit. */
export function payloadTooLarge(): ApiError {
  return new ApiError(413, 'Payload Too Large', 'Request body is too large');
}

function declaredLength(req: IncomingMessage): number | undefined {
  const raw = req.headers['content-length'];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

/** Reads the whole body into a buffer, failing with 413 beyond `maxBytes`. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = declaredLength(req);
  if (declared !== undefined && declared > maxBytes) return Promise.reject(payloadTooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > maxBytes) {
        failed = true;
        reject(payloadTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    });
    req.on('error', (err) => {
      if (!failed) reject(err);
    });
  });
}

function isJsonType(contentType: string): boolean {
  const media = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return media === 'application/json' || media.endsWith('+json');
}

/**
 * Parses a raw body as JSON. An empty body is `undefined` unless the content type claims
 * JSON (the real service rejects an empty JSON body with 400).
 */
export function parseJsonBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) {
    if (contentType && isJsonType(contentType)) {
      throw new ApiError(
        400,
        'Bad Request',
        "Body cannot be empty when content-type is set to 'application/json'",
      );
    }
    return undefined;
  }
  if (contentType && !isJsonType(contentType) && !contentType.startsWith('text/plain')) {
    throw new ApiError(415, 'Unsupported Media Type', `Unsupported Media Type: ${contentType}`);
  }
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw new ApiError(400, 'Bad Request', 'Body is not valid JSON');
  }
}

/** Decodes a query string; a repeated key becomes an array. */
export function parseQuery(search: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (!search) return out;
  for (const [key, value] of new URLSearchParams(search)) {
    const prev = out[key];
    if (prev === undefined) out[key] = value;
    else out[key] = Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return out;
}
