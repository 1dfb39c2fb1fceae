// Connection sharing: per base URL and TLS setting, one undici Pool (keep-alive, bounded) for
// requests and one unbounded Pool for event streams, and one rate limiter per base URL, shared
// by every client created through the same registry. Streams get their own Pool because each
// holds a socket for as long as it is open: on the request Pool, as many streams as sockets would
// leave every other request of the connection waiting forever.
import { createHash } from 'node:crypto';
import { Pool, type Dispatcher } from 'undici';
import type { Clock } from '../runtime/clock.ts';
import { createRateLimiter, type RateLimitOptions, type RateLimiter } from './rate-limiter.ts';

/** TLS settings for `https` base URLs. */
export interface TlsOptions {
  /** PEM CA bundle to trust instead of the system roots. */
  ca?: string | string[];
  /** Set false only for tests against self-signed servers (default true). */
  rejectUnauthorized?: boolean;
}

/** What a client needs to reach one base URL. */
export interface TransportOptions {
  baseUrl: string;
  tls?: TlsOptions;
  /** Maximum sockets per base URL (default 16). */
  connections?: number;
  rateLimit?: RateLimitOptions;
  /** Send through this dispatcher (e.g. an undici `MockAgent`) instead of an owned Pool. */
  dispatcher?: Dispatcher;
  clock: Clock;
}

/** A shared connection to one base URL; `release` once per `acquire`. */
export interface Transport {
  /** `scheme://host:port` of the base URL. */
  readonly origin: string;
  /** The base URL's path without a trailing slash ('' for none), prefixed to every request path. */
  readonly pathPrefix: string;
  readonly dispatcher: Dispatcher;
  /** For long-lived responses (event streams): never shares its sockets with `dispatcher`'s. */
  readonly streamDispatcher: Dispatcher;
  readonly limiter: RateLimiter;
  release(): Promise<void>;
}

interface Counted<T> {
  value: T;
  refs: number;
}

/** Hands out shared Pools and limiters with reference counting; closes a Pool when unused. */
export class TransportRegistry {
  private readonly pools = new Map<string, Counted<Pools>>();
  private readonly limiters = new Map<string, Counted<RateLimiter>>();

  /** Number of open Pools (for tests and diagnostics). */
  get poolCount(): number {
    return this.pools.size;
  }

  acquire(options: TransportOptions): Transport {
    const url = parseBaseUrl(options.baseUrl);
    const limiter = this.take(this.limiters, url.origin, () =>
      createRateLimiter(options.rateLimit, options.clock),
    );
    const poolKey = `${url.origin}|${tlsKey(options.tls)}`;
    const pool = options.dispatcher
      ? undefined
      : this.take(this.pools, poolKey, () => newPools(url.origin, options));
    let released = false;
    return {
      origin: url.origin,
      pathPrefix: url.pathPrefix,
      dispatcher: options.dispatcher ?? (pool as Pools).requests,
      streamDispatcher: options.dispatcher ?? (pool as Pools).streams,
      limiter,
      release: async () => {
        if (released) return;
        released = true;
        this.drop(this.limiters, url.origin);
        const closing = pool ? this.drop(this.pools, poolKey) : undefined;
        if (closing) await Promise.all([closing.requests.close(), closing.streams.close()]);
      },
    };
  }

  private take<T>(map: Map<string, Counted<T>>, key: string, create: () => T): T {
    const entry = map.get(key) ?? { value: create(), refs: 0 };
    entry.refs += 1;
    map.set(key, entry);
    return entry.value;
  }

  /** Decrements; returns the value when its last reference went away. */
  private drop<T>(map: Map<string, Counted<T>>, key: string): T | undefined {
    const entry = map.get(key);
    if (!entry) return undefined;
    entry.refs -= 1;
    if (entry.refs > 0) return undefined;
    map.delete(key);
    return entry.value;
  }
}

/** The process-wide registry used when a client is created without one. */
export const defaultTransportRegistry = new TransportRegistry();

/** The two Pools of one base URL and TLS setting. */
interface Pools {
  requests: Pool;
  streams: Pool;
}

function newPools(origin: string, options: TransportOptions): Pools {
  const connect = {
    ca: options.tls?.ca,
    rejectUnauthorized: options.tls?.rejectUnauthorized ?? true,
  };
  return {
    requests: new Pool(origin, { connections: options.connections ?? 16, keepAliveTimeout: 30_000, connect }),
    // Unbounded: one socket per open stream (the service bounds streams per project and identity).
    streams: new Pool(origin, { connections: null, keepAliveTimeout: 30_000, connect }),
  };
}

function tlsKey(tls: TlsOptions | undefined): string {
  if (!tls) return 'default';
  const ca = tls.ca === undefined ? '' : [tls.ca].flat().join('\n');
  const digest = createHash('sha256').update(ca).digest('hex').slice(0, 16);
  return `${digest}|${String(tls.rejectUnauthorized ?? true)}`;
}

/** Splits a base URL into origin and path prefix; only http and https are accepted. */
export function parseBaseUrl(baseUrl: string): { origin: string; pathPrefix: string } {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (err) {
    throw new TypeError(`cannot use base URL: ${JSON.stringify(baseUrl)} is not a URL`, { cause: err });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`cannot use base URL: protocol ${url.protocol} is not http or https`);
  }
  if (url.username || url.password) {
    // Credentials in the URL would end up in logs; authentication goes through `auth`.
    throw new TypeError('cannot use base URL: it must not contain credentials');
  }
  return { origin: url.origin, pathPrefix: url.pathname.replace(/\/+$/, '') };
}
