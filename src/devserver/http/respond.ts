/**
 * Writing JSON answers: a strong ETag on every 200 (SHA-1 of the payload, honouring
 * `If-None-Match` with 304, like the service's global etag plugin), the error envelope, and
 * the router's default 404 body.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorEnvelope, type ApiError } from './errors.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

function write(
  res: ServerResponse,
  status: number,
  payload: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...headers,
    'content-type': JSON_TYPE,
    'content-length': String(Buffer.byteLength(payload)),
  });
  res.end(payload);
}

/** Answers 200 with `body` as JSON, or 304 when the client already holds this payload. */
export function sendJson(req: IncomingMessage, res: ServerResponse, body: unknown): void {
  const payload = JSON.stringify(body ?? null);
  const etag = `"${createHash('sha1').update(payload).digest('base64')}"`;
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, { etag });
    res.end();
    return;
  }
  write(res, 200, payload, { etag });
}

/** Answers with the error envelope of `err`. */
export function sendError(
  res: ServerResponse,
  reqId: string,
  err: ApiError,
  extraHeaders: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  write(res, err.statusCode, JSON.stringify(errorEnvelope(reqId, err)), { ...extraHeaders, ...err.headers });
}

/** The router's answer for an unknown method + path (no `reqId`, like the service's default). */
export function sendRouteNotFound(
  res: ServerResponse,
  method: string,
  url: string,
  headers: Record<string, string> = {},
): void {
  write(
    res,
    404,
    JSON.stringify({ message: `Route ${method}:${url} not found`, error: 'Not Found', statusCode: 404 }),
    headers,
  );
}
