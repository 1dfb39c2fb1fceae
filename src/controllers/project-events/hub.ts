/**
 * Instant updates from project events for one kind (SecretBatch, WorkloadSecret): ONE event
 * stream per (connection, project) in use, registering the environments and folders of the
 * resources that use it; a `secret:*` change enqueues (or hands to `wake`) the resources whose
 * folder (and keys) it touches. A resource may register several interests (`registerAll`).
 *
 * The hub learns its resources from their reconciles (`register` in the adapter's observe, with
 * the resolved connection and project id; `unregister` when the adapter deletes), and forgets
 * resources that disappeared without a delete call (deletion policy Orphan, a deleted namespace)
 * by checking the informer cache every `pruneIntervalMs`. Streams open only after `start` (the
 * operator's background phase, i.e. while leading) and stop when its signal aborts.
 */
import type { Logger } from 'pino';
import type { SecretChange } from '../../client/index.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import { StringInterner } from '../../runtime/intern.ts';
import { requestKey, type Request } from '../../runtime/reconcile.ts';
import type { ResolvedConnection } from '../kind-controller.ts';
import { FolderCheckSchedule, folderExists, goneFolders, type FolderCheckTiming } from './folder-check.ts';
import type { EventStreamState } from './outcome.ts';
import { OwnWrites } from './own-writes.ts';
import { registrationsFor, type EventScope } from './registrations.ts';
import { ProjectStream, type StreamTiming } from './stream.ts';
import { StreamMembers } from './stream-members.ts';

/** What a resource tells the hub about itself on every observe. */
export interface Interest {
  readonly connection: ResolvedConnection;
  readonly projectId: string;
  readonly environment: string;
  readonly secretPath: string;
  /** Keys it pushes or owns; a change to another key of its folder does not concern it. */
  readonly keys: readonly string[];
  /** Every key of the folder concerns it (`keys` is then ignored). Default false. */
  readonly anyKey?: boolean;
  /** Changes in folders below `secretPath` concern it too. Default false. */
  readonly recursive?: boolean;
  /**
   * The resource's resync interval (ms): with `folderGone`, the folders of its open stream are
   * checked at least this often (`folder-check.ts`). Default `folderCheckPeriodMs`.
   */
  readonly resyncMs?: number;
}

/** A change that concerned a registered resource: which of its interests (`registerAll` order). */
export interface Hit {
  readonly request: Request;
  readonly slot: number;
}

export interface HubOptions {
  readonly enqueue: (requests: readonly Request[]) => void;
  /** Resolves the connection of a registered resource again (its client may have been replaced). */
  readonly connectionFor: (obj: ManagedObject<unknown>) => Promise<ResolvedConnection>;
  /** Whether the resource still exists (with this uid) in the informer cache. */
  readonly exists: (request: Request, uid: string | undefined) => Promise<boolean>;
  readonly log: Logger;
  readonly timing?: Partial<HubTiming>;
  /**
   * Receives the resources (and which of their interests) a change concerned, instead of them
   * being enqueued at once (the kind debounces and enqueues them itself).
   */
  readonly wake?: (hits: readonly Hit[]) => void;
  /**
   * Receives the resources (and which of their interests) whose folder no longer exists, as a
   * folder check found (after a burst of events, and once per period while a stream is open:
   * `folder-check.ts`); without it, no check runs.
   */
  readonly folderGone?: (hits: readonly Hit[]) => void;
}

export interface HubTiming extends StreamTiming, FolderCheckTiming {
  readonly pruneIntervalMs: number;
  /** How long an announced own write waits for its echo before any change counts as foreign. */
  readonly ownWriteTtlMs: number;
}

export const defaultHubTiming: HubTiming = {
  idleTimeoutMs: 45_000,
  minBackoffMs: 1_000,
  maxBackoffMs: 60_000,
  refusedRetryMs: 10 * 60_000,
  tooManyRetryMs: 60_000,
  debounceMs: 200,
  pruneIntervalMs: 30_000,
  ownWriteTtlMs: 30_000,
  folderCheckDelayMs: 1_000,
  folderCheckIntervalMs: 10_000,
  folderCheckPeriodMs: 10 * 60_000,
};

interface Member {
  readonly request: Request;
  readonly uid: string | undefined;
  /** `spec.connectionRef`, all `connectionFor` reads besides the names (`subjectOf`). */
  readonly connectionRef: unknown;
  readonly streamKey: string;
  readonly projectId: string;
  readonly environment: string;
  readonly secretPath: string;
  /** Sorted, without duplicates (a batch watches ~10 keys: an array is smaller than a Set). */
  readonly keys: readonly string[];
  readonly anyKey: boolean;
  readonly recursive: boolean;
  /** Index of this interest among the resource's (`registerAll`); 0 for `register`. */
  readonly slot: number;
  /** `Interest.resyncMs`. */
  readonly resyncMs: number | undefined;
}

/** The resource of a member as `connectionFor` reads it: kind, names, uid, `spec.connectionRef`. */
function subjectOf(member: Member, type: Pick<ManagedObject<unknown>, 'apiVersion' | 'kind'>) {
  const { name, namespace } = member.request;
  const uid = member.uid;
  return {
    ...type,
    metadata: { name, ...(namespace ? { namespace } : {}), ...(uid ? { uid } : {}) },
    spec: { connectionRef: member.connectionRef },
  };
}

function connectionRefOf(obj: ManagedObject<unknown>): unknown {
  return (obj.spec as { connectionRef?: unknown } | undefined)?.connectionRef;
}

function newMember(
  obj: ManagedObject<unknown>,
  interest: Interest,
  at: Pick<Member, 'request' | 'streamKey' | 'slot'>,
  keyNames: StringInterner,
): Member {
  return {
    ...at,
    uid: obj.metadata.uid,
    connectionRef: connectionRefOf(obj),
    projectId: interest.projectId,
    environment: interest.environment,
    secretPath: interest.secretPath,
    keys: interest.anyKey ? [] : sortedUnique(interest.keys).map((key) => keyNames.intern(key)),
    anyKey: interest.anyKey ?? false,
    recursive: interest.recursive ?? false,
    resyncMs: interest.resyncMs,
  };
}

function sortedUnique(keys: readonly string[]): string[] {
  return [...new Set(keys)].sort((a, b) => (a === b ? 0 : a < b ? -1 : 1));
}

/** Whether a change in folder `path` is in the member's folder (or below it, when recursive). */
function inFolder(member: Member, path: string): boolean {
  if (path === member.secretPath) return true;
  if (!member.recursive) return false;
  return path.startsWith(member.secretPath === '/' ? '/' : `${member.secretPath}/`);
}

function concerns(member: Member, change: SecretChange): boolean {
  if (member.environment !== change.environment || !inFolder(member, change.secretPath)) return false;
  if (member.anyKey || change.secretKeys.length === 0) return true;
  return change.secretKeys.some((key) => member.keys.includes(key));
}

/** The member key of a resource's `slot`-th interest (the first one is the resource's own key). */
function slotKey(key: string, slot: number): string {
  return slot === 0 ? key : `${key}#${slot}`;
}

export class ProjectEventHub {
  private readonly options: HubOptions;
  private readonly timing: HubTiming;
  private readonly members = new Map<string, Member>();
  /** The same members by stream, and by folder within it: an event looks at its folder's only. */
  private readonly byStream = new Map<string, StreamMembers<Member>>();
  private readonly streams = new Map<string, ProjectStream>();
  private readonly streamKeys = new Map<string, string>();
  /** Resources with more than one interest (`registerAll`): how many slots they may hold. */
  private readonly slotCounts = new Map<string, number>();
  private readonly ownWrites: OwnWrites;
  /** Folder checks after events and once per period (only with `folderGone`). */
  private readonly folderChecks: FolderCheckSchedule | undefined;
  private signal: AbortSignal | undefined;
  private echoes = 0;
  /**
   * Key names members share: a batch's keys are read from its Secret on each reconcile, so
   * without this every member holds its own copies of names many batches repeat (bounded).
   */
  private readonly keyNames = new StringInterner();
  /** apiVersion and kind of the resources registered (one kind per hub). */
  private type = { apiVersion: '', kind: '' };

  constructor(options: HubOptions) {
    this.options = options;
    this.timing = { ...defaultHubTiming, ...options.timing };
    this.ownWrites = new OwnWrites(this.timing.ownWriteTtlMs);
    this.folderChecks = options.folderGone
      ? new FolderCheckSchedule(
          { run: (streamKey) => this.checkFolders(streamKey), periodOf: (key) => this.checkPeriodOf(key) },
          this.timing,
        )
      : undefined;
  }

  /** Records (or updates) what `obj` watches; opens or adjusts its stream. */
  register(obj: ManagedObject<unknown>, interest: Interest): void {
    this.registerAll(obj, [interest]);
  }

  /**
   * Records (or updates) several interests of `obj` (e.g. one per source; they may use different
   * projects, hence streams); interests it registered before beyond `interests.length`, or
   * where the list holds undefined (not known yet), are dropped. No interest at all forgets it.
   */
  registerAll(obj: ManagedObject<unknown>, interests: readonly (Interest | undefined)[]): void {
    const key = requestKey({ namespace: obj.metadata.namespace, name: obj.metadata.name });
    if (interests.every((interest) => interest === undefined)) return this.unregister(obj);
    interests.forEach((interest, slot) => {
      if (interest) this.registerSlot(obj, slot, interest);
      else this.dropMember(slotKey(key, slot));
    });
    const before = this.slotCounts.get(key) ?? 1;
    for (let slot = interests.length; slot < before; slot += 1) this.dropMember(slotKey(key, slot));
    if (interests.length > 1) this.slotCounts.set(key, interests.length);
    else this.slotCounts.delete(key);
  }

  private registerSlot(obj: ManagedObject<unknown>, slot: number, interest: Interest): void {
    if (this.type.kind !== obj.kind) this.type = { apiVersion: obj.apiVersion, kind: obj.kind };
    const request = { namespace: obj.metadata.namespace, name: obj.metadata.name };
    const key = slotKey(requestKey(request), slot);
    const wanted = `${interest.connection.key}|${interest.projectId}`;
    // One string per stream, shared by its members, not one per member.
    const streamKey = this.streamKeys.get(wanted) ?? wanted;
    this.streamKeys.set(streamKey, streamKey);
    const previous = this.members.get(key);
    const member = newMember(obj, interest, { request, streamKey, slot }, this.keyNames);
    // Every reconcile registers again; an unchanged registration keeps the member it has (no
    // new copy of its strings) and the stream's registrations (a pass over all its members).
    const unchanged = previous !== undefined && sameInterest(previous, member);
    const same = unchanged && sameSubject(previous, member) && previous.resyncMs === member.resyncMs;
    if (same && this.streams.has(streamKey)) return;
    this.setMember(key, member);
    if (unchanged && this.streams.has(streamKey)) return;
    if (previous && previous.streamKey !== streamKey) this.refresh(previous.streamKey);
    this.ensureStream(streamKey, interest.projectId).refresh();
  }

  private setMember(memberKey: string, member: Member): void {
    const previous = this.members.get(memberKey);
    if (previous && previous.streamKey !== member.streamKey) this.removeFromStream(memberKey, previous);
    this.members.set(memberKey, member);
    let ofStream = this.byStream.get(member.streamKey);
    if (!ofStream) this.byStream.set(member.streamKey, (ofStream = new StreamMembers<Member>()));
    ofStream.set(memberKey, member);
    if (member.resyncMs !== undefined) this.folderChecks?.periodAtMost(member.streamKey, member.resyncMs);
  }

  private removeFromStream(memberKey: string, member: Member): void {
    const ofStream = this.byStream.get(member.streamKey);
    ofStream?.delete(memberKey);
    if (ofStream?.size === 0) this.byStream.delete(member.streamKey);
  }

  /**
   * The epoch of the open subscription of (connection, project) when it delivers every secret
   * event of the folder (and below), else undefined. An unchanged epoch since a read means no
   * change of that folder can have been missed (a change would have arrived as an event).
   */
  coveringEpoch(connectionKey: string, projectId: string, scope: EventScope): number | undefined {
    return this.streams.get(`${connectionKey}|${projectId}`)?.coveringEpoch(scope);
  }

  /** Forgets `obj` (deleted); closes its stream when nothing else uses it. */
  unregister(obj: { metadata: { namespace?: string; name: string } }): void {
    const key = requestKey({ namespace: obj.metadata.namespace, name: obj.metadata.name });
    this.ownWrites.forget(key);
    const slots = this.slotCounts.get(key) ?? 1;
    this.slotCounts.delete(key);
    for (let slot = 0; slot < slots; slot += 1) this.dropMember(slotKey(key, slot));
  }

  private dropMember(memberKey: string): void {
    const member = this.members.get(memberKey);
    if (!member) return;
    this.members.delete(memberKey);
    this.removeFromStream(memberKey, member);
    this.refresh(member.streamKey);
  }

  /**
   * Announces that registered resource `obj` is about to write (or delete) `keys` of its
   * folder: their echo on the stream will not enqueue it. Nothing is recorded unless the
   * resource's stream is open and delivers that folder's events (no echo could come otherwise).
   * Call `forgetOwnWrite` when the write fails.
   */
  expectOwnWrite(obj: { metadata: { namespace?: string; name: string } }, keys: readonly string[]): void {
    const key = requestKey({ namespace: obj.metadata.namespace, name: obj.metadata.name });
    const member = this.members.get(key);
    const epoch = member && this.streams.get(member.streamKey)?.coveringEpoch(member);
    if (!member || epoch === undefined || keys.length === 0) return;
    const write = { environment: member.environment, secretPath: member.secretPath, secretKeys: [...keys] };
    this.ownWrites.expect(key, epoch, write);
  }

  /** Withdraws what `expectOwnWrite` announced for `obj` (the write failed). */
  forgetOwnWrite(obj: { metadata: { namespace?: string; name: string } }): void {
    this.ownWrites.forget(requestKey({ namespace: obj.metadata.namespace, name: obj.metadata.name }));
  }

  /** Changes recognised as the echo of a resource's own write (and so not enqueued) so far. */
  get echoesIgnored(): number {
    return this.echoes;
  }

  /** The state of the stream serving (connection, project); undefined before `start`. */
  stateOf(connectionKey: string, projectId: string): EventStreamState | undefined {
    if (!this.signal) return undefined;
    return this.streams.get(`${connectionKey}|${projectId}`)?.state ?? { state: 'Connecting' };
  }

  /**
   * When the hub next does work on its own (ms since the epoch), if planned: a folder check, or a
   * stream connecting, reopening or waiting to reconnect (an open makes its resources read again).
   */
  nextScheduledAt(): number | undefined {
    const times = [
      this.folderChecks?.nextDueAt(),
      ...[...this.streams.values()].map((s) => s.nextActionAt()),
    ];
    const due = times.filter((t) => t !== undefined);
    return due.length > 0 ? Math.min(...due) : undefined;
  }

  /** Number of streams (open or reconnecting); one per (connection, project) in use. */
  get streamCount(): number {
    return this.streams.size;
  }

  /** Opens the streams; they and the prune timer stop when `signal` aborts (a later start resumes). */
  start(signal: AbortSignal): void {
    if (this.signal && !this.signal.aborted) return;
    this.signal = signal;
    for (const member of this.members.values()) this.ensureStream(member.streamKey, member.projectId);
    for (const stream of this.streams.values()) stream.start(signal);
    const timer = setInterval(() => void this.prune(), this.timing.pruneIntervalMs);
    timer.unref();
    signal.addEventListener(
      'abort',
      () => {
        clearInterval(timer);
        this.folderChecks?.stop();
        for (const stream of this.streams.values()) stream.close();
        this.streams.clear();
      },
      { once: true },
    );
  }

  /** Drops members whose resource is gone from the cache. */
  async prune(): Promise<void> {
    for (const [key, member] of [...this.members]) {
      let exists = true;
      try {
        exists = await this.options.exists(member.request, member.uid);
      } catch (error) {
        this.options.log.debug({ err: error }, 'cannot check a resource of the event hub; keeping it');
      }
      if (!exists && this.members.get(key) === member) this.unregister({ metadata: member.request });
    }
  }

  /** The members of one stream (a live view: copy it before registering or dropping members). */
  private membersOf(streamKey: string): Iterable<Member> {
    return this.byStream.get(streamKey)?.values() ?? [];
  }

  private refresh(streamKey: string): void {
    const stream = this.streams.get(streamKey);
    if (!stream) return;
    if (!this.byStream.has(streamKey)) {
      stream.close();
      this.folderChecks?.forget(streamKey);
      this.streams.delete(streamKey);
      this.streamKeys.delete(streamKey);
      return;
    }
    stream.refresh();
  }

  private enqueueAll(streamKey: string): void {
    this.options.enqueue(Array.from(this.membersOf(streamKey), (m) => m.request));
  }

  /** Enqueues the members of `streamKey` that `changes` concern, unless it is their own write's echo. */
  private changed(streamKey: string, epoch: number, changes: readonly SecretChange[]): void {
    const members = this.byStream.get(streamKey);
    if (!members) return;
    this.folderChecks?.touch(streamKey);
    const concerned = new Map<Member, SecretChange[]>();
    for (const change of changes) {
      for (const member of members.candidates(change.environment, change.secretPath)) {
        if (!concerns(member, change)) continue;
        const mine = concerned.get(member);
        if (mine) mine.push(change);
        else concerned.set(member, [change]);
      }
    }
    const hit: Member[] = [];
    for (const [member, mine] of concerned) {
      if (this.ownWrites.consume(requestKey(member.request), epoch, mine)) this.echoes += 1;
      else hit.push(member);
    }
    if (hit.length === 0) return;
    if (this.options.wake) this.options.wake(hit.map(({ request, slot }) => ({ request, slot })));
    else this.options.enqueue(hit.map((m) => m.request));
  }

  /** The period of the folder checks of an open stream: the shortest its members ask for. */
  private checkPeriodOf(streamKey: string): number {
    let period = Infinity;
    for (const member of this.membersOf(streamKey)) {
      period = Math.min(period, member.resyncMs ?? this.timing.folderCheckPeriodMs);
    }
    return period === Infinity ? this.timing.folderCheckPeriodMs : period;
  }

  /**
   * Lists the folders of each environment the members of `streamKey` read (with the connection of
   * the stream) and hands those whose folder is gone to `folderGone`. Failures are only logged:
   * the next check (a burst of events, or the period) tries again.
   */
  private async checkFolders(streamKey: string): Promise<void> {
    const members = [...this.membersOf(streamKey)];
    const [first] = members;
    const { folderGone } = this.options;
    const signal = this.signal;
    if (!first || !folderGone || !signal || signal.aborted) return;
    try {
      const { client } = await this.options.connectionFor(subjectOf(first, this.type));
      const scope = (environment: string) => ({ projectId: first.projectId, environment });
      const gone = await goneFolders(members, (env) => folderExists(client, scope(env), signal));
      if (gone.length > 0) folderGone(gone.map(({ request, slot }) => ({ request, slot })));
    } catch (error) {
      this.options.log.debug(
        { err: error, projectId: first.projectId },
        'cannot check the folders of a project',
      );
    }
  }

  private ensureStream(streamKey: string, projectId: string): ProjectStream {
    const existing = this.streams.get(streamKey);
    if (existing) return existing;
    const log = this.options.log.child({ component: 'project-events' });
    const stream = new ProjectStream(
      projectId,
      {
        registrations: () => registrationsFor([...this.membersOf(streamKey)]),
        client: async () => {
          const [first] = this.membersOf(streamKey);
          if (!first) throw new Error('cannot open a project event stream: no resource uses it');
          return (await this.options.connectionFor(subjectOf(first, this.type))).client;
        },
        changed: (changes) => this.changed(streamKey, stream.epoch, changes),
        opened: () => {
          this.folderChecks?.opened(streamKey);
          this.enqueueAll(streamKey);
        },
        stateChanged: (state) => {
          if (state.state !== 'Active') this.folderChecks?.closed(streamKey);
          if (state.state === 'Unavailable') this.enqueueAll(streamKey);
        },
      },
      this.timing,
      log,
    );
    this.streams.set(streamKey, stream);
    if (this.signal && !this.signal.aborted) stream.start(this.signal);
    return stream;
  }
}

/** Whether two members name the same resource (uid) and connection (`spec.connectionRef`). */
function sameSubject(a: Member, b: Member): boolean {
  if (a.uid !== b.uid) return false;
  const refA = a.connectionRef as Record<string, unknown> | undefined;
  const refB = b.connectionRef as Record<string, unknown> | undefined;
  if (refA === refB) return true;
  if (!refA || !refB) return false;
  const keysA = Object.keys(refA);
  return keysA.length === Object.keys(refB).length && keysA.every((k) => refA[k] === refB[k]);
}

/** Whether two registrations of one resource watch the same stream, scope and keys. */
function sameInterest(a: Member, b: Member): boolean {
  if (a.streamKey !== b.streamKey || a.environment !== b.environment || a.secretPath !== b.secretPath) {
    return false;
  }
  if (a.anyKey !== b.anyKey || a.recursive !== b.recursive) return false;
  return a.keys.length === b.keys.length && a.keys.every((k, i) => b.keys[i] === k);
}
