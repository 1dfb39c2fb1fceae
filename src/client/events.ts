// Project event subscription (`POST /api/v1/events/subscribe/project-events`): a streaming
// request whose body is Server-Sent Events, exposed as an async iterable of frames.
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { NetworkError, TimeoutError } from './errors.ts';
import type { CallOptions, HttpClient } from './http.ts';
import { SseParser, type SseFrame } from './sse.ts';
import { validateRequest } from './validate.ts';

export type { SseFrame } from './sse.ts';

const eventKinds = ['secret:create', 'secret:update', 'secret:delete', 'secret:import-mutation'] as const;

const subscribeRequest = z.object({
  projectId: z.string().min(1),
  register: z
    .array(
      z.object({
        event: z.enum(eventKinds),
        conditions: z
          .object({ environmentSlug: z.string().min(1), secretPath: z.string().min(1).optional() })
          .optional(),
      }),
    )
    .min(1)
    .max(10),
});
export type SubscribeInput = z.input<typeof subscribeRequest>;

/** Options of a subscription. */
export interface SubscribeOptions extends CallOptions {
  /**
   * End the stream with a `TimeoutError` when nothing (not even a ping, sent every 15 s)
   * arrived for this long (default 45 s; 0 disables).
   */
  idleTimeoutMs?: number;
}

/**
 * An open event stream. Iterate it with `for await`; iteration ends when the service closes
 * the stream, on `close()`, or when the caller's signal aborts; it throws `TimeoutError` when
 * the stream went idle and `NetworkError` when the connection broke.
 */
export interface EventSubscription extends AsyncIterable<SseFrame> {
  close(): void;
}

/** Project events. */
export interface EventsApi {
  /** Resolves once the service accepted the subscription (errors such as 403 or 429 reject). */
  subscribe(input: SubscribeInput, options?: SubscribeOptions): Promise<EventSubscription>;
}

/** `shutdown` aborts every open stream when the client closes (open streams would hold the Pool open). */
export function eventsApi(http: HttpClient, shutdown?: AbortSignal): EventsApi {
  return {
    subscribe: async (input, options = {}) => {
      const op = 'events.subscribe';
      const body = validateRequest(subscribeRequest, input, op);
      const stop = new AbortController();
      const signals = [options.signal, shutdown, stop.signal].filter(
        (x): x is AbortSignal => x !== undefined,
      );
      const signal = AbortSignal.any(signals);
      // Opening a stream has no side effect, so it may be retried like a read.
      const spec = {
        operation: op,
        method: 'POST',
        path: '/api/v1/events/subscribe/project-events',
        body,
        idempotent: true,
      } as const;
      const res = await http.open(spec, { ...options, signal });
      return new Subscription(res.body, { stop, signal }, options.idleTimeoutMs ?? 45_000, op);
    },
  };
}

class Subscription implements EventSubscription {
  private readonly body: Readable;
  private readonly stop: AbortController;
  /** The caller's signal combined with `stop`. */
  private readonly signal: AbortSignal;
  private readonly idleTimeoutMs: number;
  private readonly operation: string;
  private idle = false;

  constructor(
    body: Readable,
    cancel: { stop: AbortController; signal: AbortSignal },
    idleTimeoutMs: number,
    operation: string,
  ) {
    this.body = body;
    this.stop = cancel.stop;
    this.signal = cancel.signal;
    this.idleTimeoutMs = idleTimeoutMs;
    this.operation = operation;
  }

  close(): void {
    this.stop.abort();
    this.body.destroy();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SseFrame> {
    const parser = new SseParser();
    const decoder = new TextDecoder();
    let timer = this.armIdleTimer(undefined);
    try {
      for await (const chunk of this.body as AsyncIterable<Buffer>) {
        timer = this.armIdleTimer(timer);
        yield* parser.push(decoder.decode(chunk, { stream: true }));
      }
    } catch (err) {
      if (this.idle)
        throw new TimeoutError({ operation: this.operation, status: 0, message: 'event stream went idle' });
      if (this.signal.aborted) return;
      throw new NetworkError({
        operation: this.operation,
        status: 0,
        message: 'event stream broke',
        cause: err,
      });
    } finally {
      clearTimeout(timer);
      this.body.destroy();
    }
  }

  private armIdleTimer(previous: NodeJS.Timeout | undefined): NodeJS.Timeout | undefined {
    clearTimeout(previous);
    if (this.idleTimeoutMs <= 0) return undefined;
    const timer = setTimeout(() => {
      this.idle = true;
      this.body.destroy(new Error('idle'));
    }, this.idleTimeoutMs);
    timer.unref();
    return timer;
  }
}

const changeSchema = z
  .object({
    environment: z.string(),
    secretPath: z.string().optional(),
    secretKey: z.string().optional(),
    secretKeys: z.union([z.string(), z.array(z.string())]).optional(),
  })
  .transform((c) => ({
    environment: c.environment,
    secretPath: c.secretPath ?? '/',
    secretKeys: [c.secretKey ?? c.secretKeys ?? []].flat(),
  }));
const payloadSchema = z.union([changeSchema, z.array(changeSchema)]).transform((p) => [p].flat());
const envelopeSchema = z.object({
  data: z.object({
    eventType: z.string().optional(),
    event: z.string().optional(),
    payload: payloadSchema,
  }),
});

/** One change announced by a secret event. */
export interface SecretChange {
  environment: string;
  secretPath: string;
  secretKeys: string[];
}

/** A decoded `secret:*` event. */
export interface SecretEvent {
  eventType: string;
  changes: SecretChange[];
}

/**
 * Decodes the JSON data of a secret event. Service releases differ in the payload layout
 * (`{type, data:{eventType, payload:[{environment, secretPath, secretKeys}]}}`, or a bus
 * event with `data:{event, payload}`); both are accepted. Returns undefined for pings,
 * errors and anything unrecognised.
 */
export function parseSecretEvent(frame: SseFrame): SecretEvent | undefined {
  if (frame.data === undefined || frame.event === 'ping' || frame.event === 'error') return undefined;
  let json: unknown;
  try {
    json = JSON.parse(frame.data);
  } catch {
    return undefined;
  }
  const parsed = envelopeSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const eventType = parsed.data.data.eventType ?? parsed.data.data.event ?? frame.event;
  return { eventType, changes: parsed.data.data.payload };
}
