// The request pipeline every API area goes through: rate limiter → token → undici request
// with a per-attempt timeout → typed error or zod-parsed body → retry decision.
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import type { AuthProvider } from './auth.ts';
import { backoffDelay, type RetryPolicy } from './retry-policy.ts';
import { errorFromResponse, formatIssues, toIssues } from './classify.ts';
import { sleep, type Clock } from '../runtime/clock.ts';
import {
  ForbiddenError,
  NetworkError,
  PayloadTooLargeError,
  RateLimitedError,
  ResponseValidationError,
  ServerError,
  ServiceError,
  TimeoutError,
  UnauthorizedError,
} from './errors.ts';
import type { Transport } from './transport.ts';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Per-call options accepted by every client method. */
export interface CallOptions {
  /** Aborts the call (including waits for the rate limiter and retries); rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Overrides the client's per-attempt timeout. */
  timeoutMs?: number;
}

/** One request as described by an API module. */
export interface RequestSpec {
  /** Stable metric name such as `projects.get`; never contains ids. */
  operation: string;
  method: HttpMethod;
  /** Path starting with `/api/`, path parameters already encoded. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Send the bearer token (default true). */
  auth?: boolean;
  /** Safe to send again after a network error or timeout (default: GET only). */
  idempotent?: boolean;
  /** The response stays open (an event stream): sent on the transport's stream dispatcher. */
  longLived?: boolean;
}

/** Reported once per HTTP attempt, for metrics. `status` is 0 when no response arrived. */
export interface RequestInfo {
  operation: string;
  method: HttpMethod;
  status: number;
  durationMs: number;
  /** 0 for the first attempt. */
  attempt: number;
}

/** pino-compatible logger subset; the client never passes tokens or bodies to it. */
export interface ClientLogger {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export const silentLogger: ClientLogger = { debug: () => undefined, warn: () => undefined };

/** Everything the pipeline needs; assembled by `createServiceClient`. */
export interface HttpClientOptions {
  transport: Transport;
  auth?: AuthProvider;
  retry: RetryPolicy;
  timeoutMs: number;
  clock: Clock;
  random: () => number;
  logger: ClientLogger;
  onRequest?: (info: RequestInfo) => void;
  userAgent: string;
  /**
   * Largest JSON body sent (default `DEFAULT_MAX_BODY_BYTES`, the service's limit). A larger one
   * is refused before sending with `PayloadTooLargeError` (413): the service itself would answer
   * 500 for it (its framework's limit is not mapped to a client error), which looks like an outage.
   */
  maxBodyBytes?: number;
}

/** The service's request body limit (its HTTP framework's default, 1 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Hands the response to a consumer while the attempt's timeout still runs. */
interface Consumer<T> {
  (res: Dispatcher.ResponseData, attempt: AttemptControl): Promise<T>;
}

/** Lets a consumer that keeps the body open (a stream) stop the attempt's timeout. */
export interface AttemptControl {
  operation: string;
  stopTimeout(): void;
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: ServiceError; rejectedToken?: string };

/** Connection codes that prove the request never left this process, so a retry cannot duplicate it. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Statuses where the service did not process the request (any method may be retried). */
const NOT_PROCESSED_STATUSES = new Set([502, 503, 504]);

const TIMED_OUT = Symbol('timed out');

/** The resilient request pipeline shared by all API modules of one client. */
export class HttpClient {
  private readonly o: HttpClientOptions;

  constructor(options: HttpClientOptions) {
    this.o = options;
  }

  get logger(): ClientLogger {
    return this.o.logger;
  }

  /** Sends the request and returns the body parsed with `schema`. */
  call<S extends z.ZodType>(spec: RequestSpec, schema: S, options: CallOptions = {}): Promise<z.output<S>> {
    return this.run(spec, options, async (res, control) => {
      const text = await res.body.text();
      return parseBody(schema, text, res.statusCode, control.operation);
    });
  }

  /**
   * Sends the request and hands back the open response once a 2xx status arrived; the
   * timeout then stops and the body stays open until consumed or the signal aborts.
   */
  open(spec: RequestSpec, options: CallOptions = {}): Promise<Dispatcher.ResponseData> {
    return this.run({ ...spec, longLived: true }, options, (res, control) => {
      control.stopTimeout();
      return Promise.resolve(res);
    });
  }

  private async run<T>(spec: RequestSpec, options: CallOptions, consume: Consumer<T>): Promise<T> {
    const payload = this.serialize(spec);
    let tokenRetried = false;
    let attempt = 0;
    for (;;) {
      const outcome = await this.attempt({ spec, payload }, options, consume, attempt);
      if (outcome.ok) return outcome.value;
      const { error, rejectedToken } = outcome;
      if (
        rejectedToken !== undefined &&
        !tokenRetried &&
        this.o.auth?.tokenRejected(rejectedToken) === true
      ) {
        // The token was refused, not the request: fetch a fresh token and send once more.
        tokenRetried = true;
        this.o.logger.debug(
          { operation: spec.operation, status: error.status },
          'token rejected; retrying with a new token',
        );
        continue;
      }
      const delayMs = this.retryDelay(spec, error, attempt);
      if (delayMs === undefined) throw error;
      this.o.logger.debug(
        { operation: spec.operation, status: error.status, attempt: attempt + 1, delayMs },
        'retrying request',
      );
      await sleep(this.o.clock, delayMs, options.signal);
      attempt += 1;
    }
  }

  /** The JSON body, or `PayloadTooLargeError` when it is over the limit (nothing is sent). */
  private serialize(spec: RequestSpec): string | undefined {
    if (spec.body === undefined) return undefined;
    const payload = JSON.stringify(spec.body);
    const limit = this.o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    const size = Buffer.byteLength(payload);
    if (size <= limit) return payload;
    throw new PayloadTooLargeError({
      operation: spec.operation,
      status: 413,
      message: `the request body (${size} bytes) is over the service's limit of ${limit} bytes; nothing was sent`,
      local: true,
    });
  }

  private async attempt<T>(
    { spec, payload }: { spec: RequestSpec; payload: string | undefined },
    options: CallOptions,
    consume: Consumer<T>,
    attempt: number,
  ): Promise<Outcome<T>> {
    await this.o.transport.limiter.acquire(options.signal);
    const token = await this.tokenFor(spec, options.signal);
    const { controller, timer, signal } = this.startTimer(options);
    const started = this.o.clock.now();
    const report = (status: number): void => this.report({ spec, status, started, attempt });
    const control: AttemptControl = { operation: spec.operation, stopTimeout: () => clearTimeout(timer) };
    let status = 0;
    try {
      const dispatcher = spec.longLived ? this.o.transport.streamDispatcher : this.o.transport.dispatcher;
      const res = await dispatcher.request(this.requestOptions(spec, payload, token, signal));
      status = res.statusCode;
      if (status < 200 || status >= 300) {
        const error = await this.readError(spec, res);
        report(status);
        return { ok: false, error, rejectedToken: isTokenRejection(error) ? token : undefined };
      }
      const value = await consume(res, control);
      report(status);
      return { ok: true, value };
    } catch (err) {
      if (options.signal?.aborted) throw options.signal.reason;
      // A body that failed to parse still got an answer: report its status.
      report(err instanceof ServiceError ? status : 0);
      if (err instanceof ServiceError) return { ok: false, error: err };
      const timedOut = controller.signal.reason === TIMED_OUT;
      return { ok: false, error: transportError(spec.operation, err, timedOut) };
    } finally {
      clearTimeout(timer);
    }
  }

  private async tokenFor(spec: RequestSpec, signal: AbortSignal | undefined): Promise<string | undefined> {
    if (spec.auth === false || !this.o.auth) return undefined;
    return this.o.auth.getToken(signal);
  }

  /** Arms the attempt's timeout; the returned signal also follows the caller's signal. */
  private startTimer(options: CallOptions) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(TIMED_OUT), options.timeoutMs ?? this.o.timeoutMs);
    timer.unref();
    const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
    return { controller, timer, signal };
  }

  private requestOptions(
    spec: RequestSpec,
    body: string | undefined,
    token: string | undefined,
    signal: AbortSignal,
  ): Dispatcher.RequestOptions {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.o.userAgent };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    return {
      origin: this.o.transport.origin,
      path: this.o.transport.pathPrefix + spec.path + queryString(spec.query),
      method: spec.method,
      headers,
      body,
      signal,
      // Our own timer bounds each attempt; undici's body timeout would cut idle event streams.
      bodyTimeout: 0,
    };
  }

  private async readError(spec: RequestSpec, res: Dispatcher.ResponseData): Promise<ServiceError> {
    const bodyText = await res.body.text();
    return errorFromResponse({
      operation: spec.operation,
      status: res.statusCode,
      headers: res.headers,
      bodyText,
      now: this.o.clock.now(),
    });
  }

  /** The wait before the next attempt, or undefined when the error must go to the caller. */
  private retryDelay(spec: RequestSpec, error: ServiceError, attempt: number): number | undefined {
    const policy = this.o.retry;
    if (attempt >= policy.retries) return undefined;
    if (error instanceof RateLimitedError && error.retryAfterMs !== undefined) {
      if (error.retryAfterMs > policy.maxRetryAfterMs) return undefined;
      // A little jitter on top keeps callers released by the same Retry-After apart.
      return error.retryAfterMs + backoffDelay(policy, 0, this.o.random);
    }
    return isRetryable(spec, error) ? backoffDelay(policy, attempt, this.o.random) : undefined;
  }

  private report(r: { spec: RequestSpec; status: number; started: number; attempt: number }): void {
    if (!this.o.onRequest) return;
    try {
      this.o.onRequest({
        operation: r.spec.operation,
        method: r.spec.method,
        status: r.status,
        durationMs: Math.max(0, this.o.clock.now() - r.started),
        attempt: r.attempt,
      });
    } catch (err) {
      // A failing metrics hook must not fail the request.
      this.o.logger.warn({ operation: r.spec.operation, err: String(err) }, 'onRequest hook failed');
    }
  }
}

/**
 * GETs are retried on any transient failure. Other methods only when the request provably
 * was not processed: 429, 502/503/504, or a connection that failed before sending.
 */
function isRetryable(spec: RequestSpec, error: ServiceError): boolean {
  const idempotent = spec.idempotent ?? spec.method === 'GET';
  if (error instanceof RateLimitedError) return true;
  if (error instanceof ServerError) return idempotent || NOT_PROCESSED_STATUSES.has(error.status);
  if (error instanceof TimeoutError) return idempotent;
  if (error instanceof NetworkError) return idempotent || NOT_SENT_CODES.has(error.code ?? '');
  return false;
}

function isTokenRejection(error: ServiceError): boolean {
  return error instanceof UnauthorizedError || (error instanceof ForbiddenError && error.isTokenError);
}

function parseBody<S extends z.ZodType>(
  schema: S,
  text: string,
  status: number,
  operation: string,
): z.output<S> {
  let json: unknown;
  try {
    json = text.length === 0 ? {} : JSON.parse(text);
  } catch (err) {
    throw new ResponseValidationError({
      operation,
      status,
      message: 'response body is not JSON',
      cause: err,
    });
  }
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  const issues = toIssues(result.error.issues);
  throw new ResponseValidationError({
    operation,
    status,
    message: `unexpected response: ${formatIssues(issues)}`,
    issues,
  });
}

function transportError(operation: string, err: unknown, timedOut: boolean): ServiceError {
  if (timedOut) return new TimeoutError({ operation, status: 0, message: 'request timed out' });
  const code = errorCode(err);
  const reason = err instanceof Error ? err.message : String(err);
  return new NetworkError({ operation, status: 0, message: `network error: ${reason}`, code, cause: err });
}

/** The system or undici error code, looking through `cause` and aggregate errors. */
function errorCode(err: unknown): string | undefined {
  for (let cur: unknown = err, depth = 0; cur instanceof Error && depth < 4; depth += 1) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const inner = cur instanceof AggregateError ? (cur.errors[0] as unknown) : cur.cause;
    cur = inner;
  }
  return undefined;
}

function queryString(query: RequestSpec['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.append(key, String(value));
  }
  const text = params.toString();
  return text.length > 0 ? `?${text}` : '';
}
