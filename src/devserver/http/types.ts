/**
 * Types shared by the devserver's HTTP core and its route modules.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

/** Per-route rate-limit bucket, as in the real service (`readLimit`, `writeLimit`, `secretsLimit`). */
export type RateBucket = 'read' | 'write' | 'secrets';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** The authenticated caller: a machine identity using one of its access tokens. */
export interface Actor {
  type: 'identity';
  identityId: string;
  orgId: string;
  tokenId: string;
  authMethod: string;
}

/** What a route handler sees of one request. */
export interface RequestContext {
  reqId: string;
  method: HttpMethod;
  /** The path without the query string, as received. */
  path: string;
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  /** Parsed JSON body, or `undefined` when the request had none. */
  body: unknown;
  headers: IncomingHttpHeaders;
  /** Client IP address (IPv4-mapped IPv6 addresses are unwrapped). */
  ip: string;
  req: IncomingMessage;
  res: ServerResponse;
  /** Set for routes with `auth !== false` once the bearer token has been validated. */
  actor?: Actor;
}

/** Returned by a handler that wrote the response itself (the event stream). */
export const HIJACKED: unique symbol = Symbol('hijacked');

/** A handler answers 200 with the returned JSON value, or returns `HIJACKED`. */
export type Handler = (ctx: RequestContext) => unknown;

export interface RouteDef {
  method: HttpMethod;
  /** Path pattern with `:name` parameters, e.g. `/api/v1/identities/:identityId`. */
  path: string;
  /** Rate-limit bucket; routes without one are only subject to no per-route limit. */
  bucket?: RateBucket;
  /** Whether an identity access token is required (default true). */
  auth?: boolean;
  /** Whether a 2xx answer counts as a state write in the stats (default: method is not GET). */
  write?: boolean;
  /** Health and admin routes: no fault injection, no rate limit, not parsed for auth. */
  exempt?: boolean;
  /** Admin routes: not counted in the stats. */
  internal?: boolean;
  handler: Handler;
}
