/**
 * Project event subscriptions delivered as Server-Sent Events, in the newest service variant's
 * shape (facts §A22 "Payload (C)"):
 *
 *     id: <Date.now()>
 *     event: secret:update
 *     data: {"type":"secret-manager","data":{"eventType":"secret:update","payload":[{"environment":"dev","secretPath":"/","secretKeys":"KEY"}]}}
 *
 * one payload element per key (the field is `secretKeys` although it holds one key). A `ping`
 * frame (`event: ping`, no data) goes out every 15 s. A registration matches a change when its
 * event kind equals the change's, and, if it has conditions, the environment slug is equal and
 * the change's path starts with the registered `secretPath` (the newest variant's prefix match;
 * so "/" matches everything) or, when the registered path contains glob syntax, matches it as a
 * glob (`/app/**`). At most 5 streams may be open per (project, actor): the 6th is a 429.
 *
 * The hub knows nothing about HTTP: a stream writes to an {@link SseTarget} the server supplies
 * (after it has sent the 200 and the `text/event-stream` headers). Timers are injectable.
 */
import { z } from 'zod';
import { DomainError } from './errors.ts';
import { globMatch, hasGlobSyntax } from './glob.ts';
import type { SecretChange } from './secret-model.ts';

export const EVENT_KINDS = [
  'secret:create',
  'secret:update',
  'secret:delete',
  'secret:import-mutation',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** Body of `POST /api/v1/events/subscribe/project-events`. */
export const SubscribeBodySchema = z.object({
  projectId: z.string().trim().min(1),
  register: z
    .array(
      z.object({
        event: z.enum(EVENT_KINDS),
        conditions: z
          .object({ environmentSlug: z.string().trim().min(1), secretPath: z.string().trim().default('/') })
          .optional(),
      }),
    )
    .min(1)
    .max(10),
});
export type Registration = z.infer<typeof SubscribeBodySchema>['register'][number];

/** Where a stream's frames go: the HTTP response, once the SSE headers are sent. */
export interface SseTarget {
  write(chunk: string): void;
  end(): void;
}

/** `setInterval`/`clearInterval`-like timers (inject fakes in tests). */
export interface Timers {
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export interface EventHubOptions {
  /** Concurrent streams allowed per (project, actor); default 5. */
  maxStreamsPerActor?: number;
  /** Keep-alive interval; default 15 000 ms. */
  pingIntervalMs?: number;
  /** Permission re-check interval for streams with a `refresh`; default 60 000 ms. */
  refreshIntervalMs?: number;
  timers?: Timers;
  /** Clock for frame ids; default `Date.now`. */
  now?: () => number;
}

export interface SubscribeInput {
  projectId: string;
  /** Identifies the caller (e.g. `identity:<id>`) for the per-actor stream cap. */
  actorKey: string;
  register: readonly Registration[];
  target: SseTarget;
  /** Per-change check (e.g. the permission for that environment/path); default: allow. */
  canReceive?: (change: SecretChange) => boolean;
  /**
   * Called every refresh interval; resolving to false (or failing) sends an `error` frame
   * `{"message":"Permission denied or refresh failed"}` and closes the stream.
   */
  refresh?: () => boolean | Promise<boolean>;
}

export interface Subscription {
  readonly projectId: string;
  readonly actorKey: string;
  readonly closed: boolean;
  /** Stops timers, forgets the stream and ends the target (idempotent). */
  close(): void;
}

/** One SSE frame: optional `id:`, `event:`, optional `data:` (JSON), then a blank line. */
export function formatSseFrame(frame: { id?: string; event: string; data?: unknown }): string {
  let out = frame.id === undefined ? '' : `id: ${frame.id}\n`;
  out += `event: ${frame.event}\n`;
  if (frame.data !== undefined) out += `data: ${JSON.stringify(frame.data)}\n`;
  return `${out}\n`;
}

/** The keep-alive frame. */
export const PING_FRAME = formatSseFrame({ event: 'ping' });
/** The frame sent before closing a stream whose permission refresh failed. */
export const REFRESH_FAILED_FRAME = formatSseFrame({
  event: 'error',
  data: { message: 'Permission denied or refresh failed' },
});

/** Whether one registration selects a change (see the module doc). */
export function registrationMatches(registration: Registration, change: SecretChange): boolean {
  if (registration.event !== change.type) return false;
  const conditions = registration.conditions;
  if (!conditions) return true;
  if (conditions.environmentSlug !== change.environment) return false;
  const path = conditions.secretPath || '/';
  return hasGlobSyntax(path) ? globMatch(path, change.secretPath) : change.secretPath.startsWith(path);
}

const realTimers: Timers = {
  setInterval: (callback, ms) => setInterval(callback, ms),
  clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>),
};

interface Stream extends Subscription {
  readonly input: SubscribeInput;
  send(chunk: string): void;
}

export class EventHub {
  private readonly streams = new Set<Stream>();
  private readonly max: number;
  private readonly pingMs: number;
  private readonly refreshMs: number;
  private readonly timers: Timers;
  private readonly now: () => number;

  constructor(options: EventHubOptions = {}) {
    this.max = options.maxStreamsPerActor ?? 5;
    this.pingMs = options.pingIntervalMs ?? 15_000;
    this.refreshMs = options.refreshIntervalMs ?? 60_000;
    this.timers = options.timers ?? realTimers;
    this.now = options.now ?? Date.now;
  }

  /**
   * Opens a stream. Throws 429 "Too many active connections for project …" when the actor
   * already has the maximum number of streams open on the project.
   */
  subscribe(input: SubscribeInput): Subscription {
    if (this.count(input.projectId, input.actorKey) >= this.max) {
      throw new DomainError({
        status: 429,
        name: 'RateLimitExceeded',
        message: `Too many active connections for project ${input.projectId}`,
      });
    }
    const stream = this.open(input);
    this.streams.add(stream);
    return stream;
  }

  /**
   * Delivers changes to every matching stream of the project: one frame per (kind,
   * environment, path) group, listing the keys that stream may receive. Returns frames sent.
   */
  publish(projectId: string, changes: readonly SecretChange[]): number {
    const groups = groupChanges(changes);
    let sent = 0;
    for (const stream of [...this.streams]) {
      if (stream.input.projectId !== projectId) continue;
      for (const group of groups) {
        const selected = group.filter((change) => this.selects(stream.input, change));
        if (selected.length === 0) continue;
        stream.send(this.frameFor(selected));
        sent += 1;
      }
    }
    return sent;
  }

  /** Number of open streams, optionally for one project and actor. */
  count(projectId?: string, actorKey?: string): number {
    let n = 0;
    for (const s of this.streams) {
      if (
        (projectId === undefined || s.projectId === projectId) &&
        (actorKey === undefined || s.actorKey === actorKey)
      ) {
        n += 1;
      }
    }
    return n;
  }

  /** Closes every stream (server shutdown). */
  closeAll(): void {
    for (const stream of [...this.streams]) stream.close();
  }

  private selects(input: SubscribeInput, change: SecretChange): boolean {
    if (!input.register.some((registration) => registrationMatches(registration, change))) return false;
    return input.canReceive ? input.canReceive(change) : true;
  }

  private frameFor(changes: readonly SecretChange[]): string {
    const first = changes[0] as SecretChange;
    const payload = changes.map((c) => ({
      environment: c.environment,
      secretPath: c.secretPath,
      secretKeys: c.secretKey,
    }));
    return formatSseFrame({
      id: String(this.now()),
      event: first.type,
      data: { type: 'secret-manager', data: { eventType: first.type, payload } },
    });
  }

  private open(input: SubscribeInput): Stream {
    const { timers } = this;
    const handles: unknown[] = [];
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      for (const handle of handles) timers.clearInterval(handle);
      this.streams.delete(stream);
      safely(() => input.target.end());
    };
    // A failing write means the client is gone: close instead of throwing into publishers.
    const send = (chunk: string) => {
      if (!closed && !safely(() => input.target.write(chunk))) close();
    };
    const stream: Stream = {
      input,
      projectId: input.projectId,
      actorKey: input.actorKey,
      get closed() {
        return closed;
      },
      close,
      send,
    };
    handles.push(timers.setInterval(() => send(PING_FRAME), this.pingMs));
    const refresh = input.refresh;
    if (refresh) handles.push(timers.setInterval(() => refreshStream(stream, refresh), this.refreshMs));
    return stream;
  }
}

function refreshStream(stream: Stream, refresh: () => boolean | Promise<boolean>): void {
  const fail = () => {
    stream.send(REFRESH_FAILED_FRAME);
    stream.close();
  };
  let outcome: boolean | Promise<boolean>;
  try {
    outcome = refresh();
  } catch {
    fail();
    return;
  }
  void Promise.resolve(outcome).then((ok) => (ok ? undefined : fail()), fail);
}

function safely(action: () => void): boolean {
  try {
    action();
    return true;
  } catch {
    return false;
  }
}

/** Groups changes by (type, environment, path), keeping first-seen order. */
function groupChanges(changes: readonly SecretChange[]): SecretChange[][] {
  const groups = new Map<string, SecretChange[]>();
  for (const change of changes) {
    const key = JSON.stringify([change.type, change.environment, change.secretPath]);
    const list = groups.get(key) ?? [];
    list.push(change);
    groups.set(key, list);
  }
  return [...groups.values()];
}
