/**
 * The per-request pipeline: route match, faults, rate limit, authentication, body parsing,
 * handler, and the mapping of every failure to the service's error envelope. Nothing thrown
 * by a handler escapes: unknown errors become 500 "Something went wrong".
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DevApp } from '../app.ts';
import { authenticate } from '../auth/authenticate.ts';
import type { FaultInjector } from './faults.ts';
import type { DevServerStats } from './stats.ts';
import { parseJsonBody, parseQuery, readBody } from './body.ts';
import { ApiError, internalError, toApiError } from './errors.ts';
import { sendError, sendJson, sendRouteNotFound } from './respond.ts';
import { MalformedPathError, type RouteMatch, type Router } from './router.ts';
import { HIJACKED, type HttpMethod, type RateBucket, type RequestContext } from './types.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

const ID_LENGTH = 14;
// Random bytes are drawn in blocks: one crypto call per 512 request ids, not one per request.
const POOL_IDS = 512;
let pool = Buffer.alloc(0);
let offset = 0;

/** A request id like the service's: `req-` and 14 alphanumerics. */
export function newRequestId(): string {
  if (offset + ID_LENGTH > pool.length) {
    pool = randomBytes(ID_LENGTH * POOL_IDS);
    offset = 0;
  }
  let id = 'req-';
  for (let i = 0; i < ID_LENGTH; i++) id += ALPHABET[(pool[offset + i] ?? 0) % ALPHABET.length];
  offset += ID_LENGTH;
  return id;
}

/** Outcome of a rate-limit check: headers to send, and whether the request may proceed. */
export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  retryAfterSeconds: number;
}

export interface PipelineDeps {
  app: DevApp;
  router: Router;
  stats: DevServerStats;
  faults: FaultInjector;
  /** Per-route rate limiting; absent when off. */
  rateLimit?: (ip: string, bucket: RateBucket) => RateDecision;
  maxBodyBytes: number;
  onError: (err: unknown) => void;
}

function clientIp(req: IncomingMessage): string {
  const address = req.socket.remoteAddress ?? '';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/** Applies injected faults; returns false when the connection was dropped. */
async function applyFaults(deps: PipelineDeps, req: IncomingMessage): Promise<boolean> {
  if (deps.faults.shouldDrop()) {
    deps.stats.recordFault('drops');
    req.socket.destroy();
    return false;
  }
  await deps.faults.delay();
  const injected = deps.faults.drawError();
  if (injected) {
    deps.stats.recordFault('errors');
    throw injected;
  }
  return true;
}

function checkRate(deps: PipelineDeps, match: RouteMatch, ip: string, headers: Record<string, string>): void {
  const bucket = match.def.bucket;
  if (!deps.rateLimit || !bucket) return;
  const decision = deps.rateLimit(ip, bucket);
  Object.assign(headers, decision.headers);
  if (!decision.allowed) {
    const s = decision.retryAfterSeconds;
    throw new ApiError(429, 'RateLimitExceeded', `Rate limit exceeded. Please try again in ${s} seconds`, {
      headers: { 'retry-after': String(s) },
    });
  }
}

async function run(
  deps: PipelineDeps,
  ctx: RequestContext,
  match: RouteMatch,
  headers: Record<string, string>,
): Promise<boolean> {
  const def = match.def;
  if (!def.exempt) {
    if (!(await applyFaults(deps, ctx.req))) return false;
    checkRate(deps, match, ctx.ip, headers);
  }
  if (def.auth !== false && !def.exempt) ctx.actor = authenticate(deps.app, ctx);
  // Like the service's framework, GET bodies are never parsed (a JSON content type on a GET is fine).
  if (ctx.method !== 'GET') {
    const raw = await readBody(ctx.req, deps.maxBodyBytes);
    ctx.body = parseJsonBody(raw, ctx.req.headers['content-type']);
  }
  const result: unknown = await def.handler(ctx);
  if (result === HIJACKED) return true;
  for (const [k, v] of Object.entries(headers)) ctx.res.setHeader(k, v);
  sendJson(ctx.req, ctx.res, result);
  return true;
}

/** Builds the `request` listener for a node:http server. */
export function createRequestHandler(
  deps: PipelineDeps,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void handle(deps, req, res);
  };
}

async function handle(deps: PipelineDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const reqId = newRequestId();
  const method = (req.method ?? 'GET').toUpperCase();
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  let route = 'unmatched';
  let isWrite = false;
  const headers: Record<string, string> = {};
  let counted = true;
  res.once('finish', () => {
    if (counted) deps.stats.recordRequest(method, route, res.statusCode, isWrite);
  });
  try {
    const match = deps.router.match(method, path);
    if (!match) {
      sendRouteNotFound(res, method, url);
      return;
    }
    route = `${method} ${match.def.path}`;
    counted = match.def.internal !== true;
    isWrite = match.def.write ?? method !== 'GET';
    const ctx: RequestContext = {
      reqId,
      method: method as HttpMethod,
      path,
      params: match.params,
      query: parseQuery(q === -1 ? '' : url.slice(q + 1)),
      body: undefined,
      headers: req.headers,
      ip: clientIp(req),
      req,
      res,
    };
    if (!(await run(deps, ctx, match, headers))) deps.stats.recordRequest(method, route, 0, false);
  } catch (err) {
    fail(deps, res, { reqId, err, headers });
  }
}

interface Failure {
  reqId: string;
  err: unknown;
  headers: Record<string, string>;
}

function fail(deps: PipelineDeps, res: ServerResponse, { reqId, err, headers }: Failure): void {
  let apiError = toApiError(err);
  if (!apiError && err instanceof MalformedPathError)
    apiError = new ApiError(400, 'BadRequest', 'Malformed URL path');
  if (!apiError) {
    deps.onError(err);
    apiError = internalError();
  }
  // A body over the limit is left unread: close the connection rather than drain it.
  if (apiError.statusCode === 413) headers.connection = 'close';
  sendError(res, reqId, apiError, headers);
}
