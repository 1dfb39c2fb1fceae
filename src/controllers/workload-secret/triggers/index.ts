/**
 * When a WorkloadSecret reads its sources: instant updates from the project-events hub, the
 * periodic resync as the fallback, and nothing in between.
 *
 * Every WorkloadSecret registers one interest per source (project, environment, folder,
 * recursive; every key) in the hub of its kind; all the WorkloadSecrets reading a project
 * through the same connection share that project's one event subscription. An event wakes only
 * the resources whose folders it touches (debounced, `WakeQueue`) and marks just the touched
 * sources for reading; each resource then reads them with its own connection (the stream only
 * says what changed: sharing it never shares access).
 *
 * How events and `spec.resyncInterval` combine (see `ReadMemo`): while a stream covers a source,
 * a read stays good until an event touches it, a folder check finds its folder deleted, or the
 * stream reopens (events may have been missed while it was down); the periodic requeue then
 * reads nothing. The service sends no event for a deleted folder, so the hub checks the folders
 * of each open stream after a burst of events and at least every `resyncInterval` of its
 * resources (the shortest): one folder list per stream and environment, never one per resource
 * (`project-events/folder-check.ts`). While events are unavailable (refused, too many streams,
 * reconnecting), each source is read again every `resyncInterval` (default 10m), with up to 10%
 * jitter.
 */
import type { ManagedObject } from '../../../managed/external-client.ts';
import { jitter, parseDuration } from '../../../runtime/duration.ts';
import { requestKey, type Request } from '../../../runtime/reconcile.ts';
import type { OperatorServices, ResolvedConnection } from '../../kind-controller.ts';
import { projectEventHub, type Hit, type ProjectEventHub } from '../../project-events/index.ts';
import { ReadMemo, type MemoSubject, type SlotNow } from './read-memo.ts';
import { WakeQueue } from './wake-queue.ts';

/** The resync interval when the spec sets none. */
export const DEFAULT_RESYNC_MS = 10 * 60_000;

/** How long a burst of change events is collected before the resources it concerns are enqueued. */
export const WAKE_DEBOUNCE_MS = 100;

/**
 * One source: the folder a change event is matched against. A source naming its project by slug
 * has no id until a read shows it (`projectIdOf`); until then it is not registered and is read
 * again on the resync interval.
 */
export interface SourceScope {
  readonly projectId?: string;
  readonly projectSlug?: string;
  readonly environment: string;
  readonly secretPath: string;
  readonly recursive: boolean;
}

type Subject = ManagedObject<{ readonly resyncInterval?: string | undefined }>;

function resyncMsOf(obj: Subject): number {
  const text = obj.spec?.resyncInterval;
  return text ? parseDuration(text) : DEFAULT_RESYNC_MS;
}

function keyOf(obj: { metadata: { namespace?: string; name: string } }): string {
  return requestKey({ namespace: obj.metadata.namespace, name: obj.metadata.name });
}

function subjectOf(obj: Subject): MemoSubject {
  return { key: keyOf(obj), uid: obj.metadata.uid, generation: obj.metadata.generation };
}

export interface TriggerOptions<T> {
  /** The project id a source's read shows, if any (learns the ids of sources named by slug). */
  readonly projectIdOf?: (value: T) => string | undefined;
  readonly debounceMs?: number;
  /** Milliseconds clock (tests). */
  readonly clock?: () => number;
}

export class DeliveryTriggers<T> {
  private readonly hub: ProjectEventHub;
  private readonly memo = new ReadMemo<T>();
  private readonly wakes: WakeQueue;
  private readonly clock: () => number;
  /** The connection key and scopes each resource registered last (for `requeueAfterMs`). */
  private readonly scopes = new Map<string, { connectionKey: string; scopes: readonly SourceScope[] }>();

  /** Project ids learned for slugs, by `<connection key>|<slug>`. */
  private readonly slugIds = new Map<string, string>();
  private readonly projectIdOf: ((value: T) => string | undefined) | undefined;

  constructor(services: OperatorServices, kind: string, options: TriggerOptions<T> = {}) {
    this.clock = options.clock ?? Date.now;
    this.projectIdOf = options.projectIdOf;
    this.wakes = new WakeQueue(
      (requests) => services.enqueue(kind, requests),
      options.debounceMs ?? WAKE_DEBOUNCE_MS,
    );
    this.hub = projectEventHub(services, kind, {
      wake: (hits) => this.woken(hits),
      folderGone: (hits) => this.folderGone(hits),
    });
  }

  /**
   * The value of every source of `obj`: remembered while still good, read with `readOne(index)`
   * otherwise (in parallel). Registers the sources in the hub first, so no change made during
   * a read goes unseen. A failed read is forgotten (read again next time) and rethrown.
   */
  async read(
    obj: Subject,
    connection: ResolvedConnection,
    scopes: readonly SourceScope[],
    readOne: (index: number) => Promise<T>,
  ): Promise<T[]> {
    const subject = subjectOf(obj);
    this.register(obj, connection, scopes);
    const at = this.clock();
    const resyncMs = resyncMsOf(obj);
    const states = this.statesOf(connection.key, scopes);
    const values = await Promise.all(
      states.map(async (state, slot) => {
        const kept = this.memo.fresh(subject, slot, { ...state, at, resyncMs });
        if (kept) return kept.value;
        this.memo.starting(subject.key, slot);
        try {
          const value = await readOne(slot);
          this.memo.remember(subject, slot, {
            scopeKey: state.scopeKey,
            epoch: state.epoch,
            value,
            readAt: at,
          });
          return value;
        } catch (error) {
          this.memo.drop(subject.key, slot);
          throw error;
        }
      }),
    );
    if (this.learn(connection.key, scopes, values)) this.register(obj, connection, scopes);
    return values;
  }

  /** When to look at `obj` again (after `read`): its next resync read, or a cheap check. */
  requeueAfterMs(obj: Subject): number {
    const key = keyOf(obj);
    const resyncMs = resyncMsOf(obj);
    const registered = this.scopes.get(key);
    if (!registered) return jitter(resyncMs, 0.1);
    const states = this.statesOf(registered.connectionKey, registered.scopes);
    return jitter(this.memo.dueInMs(key, states, this.clock(), resyncMs), 0.1);
  }

  /** Whether a stream delivers the change events of every source of `obj` now. */
  eventsActive(obj: Subject): boolean {
    const registered = this.scopes.get(keyOf(obj));
    if (!registered) return false;
    return this.statesOf(registered.connectionKey, registered.scopes).every((s) => s.epoch !== undefined);
  }

  /** `obj` is gone: unregister its sources, forget its reads. */
  forget(request: Request): void {
    const key = requestKey(request);
    this.hub.unregister({ metadata: { ...request } });
    this.scopes.delete(key);
    this.memo.forget(key);
  }

  /** Opens the event streams (while leading); they stop when `signal` aborts. */
  start(signal: AbortSignal): void {
    this.hub.start(signal);
  }

  private register(obj: Subject, connection: ResolvedConnection, scopes: readonly SourceScope[]): void {
    const resyncMs = resyncMsOf(obj);
    const interests = scopes.map((scope) => {
      const projectId = this.projectIdFor(connection.key, scope);
      return projectId === undefined
        ? undefined
        : { connection, ...scope, projectId, keys: [], anyKey: true, resyncMs };
    });
    this.hub.registerAll(obj, interests);
    this.scopes.set(keyOf(obj), { connectionKey: connection.key, scopes });
  }

  private projectIdFor(connectionKey: string, scope: SourceScope): string | undefined {
    if (scope.projectId !== undefined) return scope.projectId;
    return scope.projectSlug === undefined
      ? undefined
      : this.slugIds.get(`${connectionKey}|${scope.projectSlug}`);
  }

  /** Records the ids of slug-named projects that `values` show; true when one was new. */
  private learn(connectionKey: string, scopes: readonly SourceScope[], values: readonly T[]): boolean {
    let learned = false;
    scopes.forEach((scope, slot) => {
      const value = values[slot];
      if (scope.projectId !== undefined || scope.projectSlug === undefined || value === undefined) return;
      const id = this.projectIdOf?.(value);
      const key = `${connectionKey}|${scope.projectSlug}`;
      if (id === undefined || this.slugIds.get(key) === id) return;
      this.slugIds.set(key, id);
      learned = true;
    });
    return learned;
  }

  private statesOf(connectionKey: string, scopes: readonly SourceScope[]): SlotNow[] {
    return scopes.map((scope) => {
      const projectId = this.projectIdFor(connectionKey, scope);
      return {
        scopeKey: scopeKeyOf(connectionKey, scope),
        epoch: projectId === undefined ? undefined : this.hub.coveringEpoch(connectionKey, projectId, scope),
      };
    });
  }

  private woken(hits: readonly Hit[]): void {
    for (const { request, slot } of hits) {
      this.memo.markDirty(requestKey(request), slot);
      this.wakes.add(request);
    }
  }

  /**
   * A folder check found the folders of `hits` gone: the sources last read while theirs existed
   * are read again (and turn `SourceNotFound`); one already missing is retried by its own wait.
   */
  private folderGone(hits: readonly Hit[]): void {
    this.woken(hits.filter(({ request, slot }) => this.memo.hasRead(requestKey(request), slot)));
  }
}

function scopeKeyOf(connectionKey: string, scope: SourceScope): string {
  const project = scope.projectId ?? `slug:${scope.projectSlug ?? ''}`;
  return [connectionKey, project, scope.environment, scope.secretPath, scope.recursive].join('|');
}
