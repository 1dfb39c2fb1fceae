/**
 * Rollout restarts of a WorkloadSecret: when, and only when, the delivered content hash changes,
 * the workloads that opt in (`workloads.ts`) get a pod template annotation bump, debounced by
 * `spec.rollout.debounce` (default 5s) so a burst of changes restarts once, after the last one.
 *
 * - The first delivery restarts nothing (there was no content before).
 * - The hash compared is the last one this operator delivered (in memory), else
 *   `status.contentHash`: a status read from a cache that lags behind never restarts twice.
 * - A burst that ends with the content it started from restarts nothing.
 * - A pending restart is kept in memory and recorded in `status.pendingRestart` (hash it is for,
 *   hash before the burst, not-before time). An operator that has no memory of the resource (it
 *   just started, or just became leader) takes the pending restart from status and carries it
 *   out when due, so an operator restart during the debounce loses nothing.
 * - Exactly once per workload: a workload whose pod template already carries the delivered hash
 *   (`coffer.dev/content-hash`) is not restarted again (a restart patched before a crash, before
 *   its status was written, is not repeated).
 */
import { parseDuration } from '../../../runtime/duration.ts';
import type { EventInput } from '../../../runtime/events.ts';
import { requestKey, type Request } from '../../../runtime/reconcile.ts';
import {
  ANNOTATION_CONTENT_HASH,
  ANNOTATION_RESTARTED_AT,
  selectWorkloads,
  workloadKinds,
  type WorkloadApi,
  type WorkloadKind,
} from './workloads.ts';

export { ANNOTATION_RELOAD_SECRETS, appsWorkloadApi, type WorkloadApi } from './workloads.ts';

/** The debounce when `spec.rollout` sets none. */
export const DEFAULT_DEBOUNCE_MS = 5_000;

/** `status.lastRestart`. */
export interface LastRestart {
  readonly time: string;
  readonly workloads: string[];
}

/** What a WorkloadSecret tells the rollout after each delivery. */
export interface Delivered {
  readonly hash: string;
  /** Names of the target Secret and ConfigMap (what opt-in annotations name). */
  readonly targets: readonly string[];
}

/** The fields of a WorkloadSecret the rollout reads. */
export interface RolloutSubject {
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly spec: {
    readonly rollout?: {
      readonly workloads?: readonly { readonly kind: WorkloadKind; readonly name: string }[] | undefined;
      readonly debounce?: string | undefined;
    };
  };
  readonly status?: {
    readonly contentHash?: string;
    readonly lastRestart?: LastRestart;
    readonly pendingRestart?: PendingRestart;
  };
}

/** `status.pendingRestart`: a restart waiting for its debounce. */
export interface PendingRestart {
  readonly contentHash: string;
  readonly fromHash: string;
  readonly notBefore: string;
}

/** What the sync reports: status field, when to look again, events. */
export interface RolloutOutcome {
  /** The new restart, or the recorded one. */
  readonly lastRestart?: LastRestart;
  /** A restart is pending: look again after this long. */
  readonly requeueAfterMs?: number;
  /** The pending restart to record in status (absent: none pending). */
  readonly pendingRestart?: PendingRestart;
  readonly events: EventInput[];
}

interface Pending {
  /** The hash before the burst. */
  readonly from: string;
  readonly dueAt: number;
}

export class RolloutRestarts {
  private readonly api: WorkloadApi;
  private readonly delivered = new Map<string, string>();
  private readonly pending = new Map<string, Pending>();

  constructor(api: WorkloadApi) {
    this.api = api;
  }

  /** Called after every successful delivery of `obj` (see the module comment). */
  async afterDelivery(obj: RolloutSubject, delivered: Delivered, now: Date): Promise<RolloutOutcome> {
    const key = requestKey({ namespace: obj.metadata.namespace, name: obj.metadata.name });
    const recorded = obj.status?.lastRestart ? { lastRestart: obj.status.lastRestart } : {};
    const pending = this.pendingAfter(key, obj, delivered.hash, now);
    if (!pending) return { ...recorded, events: [] };
    if (now.getTime() < pending.dueAt) {
      const pendingRestart = {
        contentHash: delivered.hash,
        fromHash: pending.from,
        notBefore: new Date(pending.dueAt).toISOString(),
      };
      return { ...recorded, pendingRestart, requeueAfterMs: pending.dueAt - now.getTime(), events: [] };
    }
    if (pending.from === delivered.hash) {
      this.pending.delete(key);
      return { ...recorded, events: [] };
    }
    // Forgotten only once done: a failed restart is tried again at the next delivery.
    const outcome = await this.restart(obj, delivered, now);
    this.pending.delete(key);
    return outcome;
  }

  /**
   * The pending restart of `key` once `hash` is delivered: from memory, or from status when this
   * operator has no memory of the resource; a change of hash (re)starts the debounce.
   */
  private pendingAfter(key: string, obj: RolloutSubject, hash: string, now: Date): Pending | undefined {
    const known = this.delivered.has(key);
    const previous = this.delivered.get(key) ?? obj.status?.contentHash;
    this.delivered.set(key, hash);
    let pending = known ? this.pending.get(key) : pendingOf(obj.status?.pendingRestart);
    if (previous !== undefined && previous !== hash)
      pending = { from: pending?.from ?? previous, dueAt: now.getTime() + debounceMsOf(obj) };
    if (pending) this.pending.set(key, pending);
    return pending;
  }

  /** `obj` is gone. */
  forget(request: Request): void {
    const key = requestKey(request);
    this.delivered.delete(key);
    this.pending.delete(key);
  }

  private async restart(obj: RolloutSubject, delivered: Delivered, now: Date): Promise<RolloutOutcome> {
    const namespace = obj.metadata.namespace ?? '';
    const listed = (await Promise.all(workloadKinds.map((kind) => this.api.list(namespace, kind)))).flat();
    const named = obj.spec.rollout?.workloads ?? [];
    const { selected: wanted, missing } = selectWorkloads(listed, named, delivered.targets);
    const selected = wanted.filter((w) => w.restartedFor !== delivered.hash);
    const time = now.toISOString();
    const annotations = { [ANNOTATION_RESTARTED_AT]: time, [ANNOTATION_CONTENT_HASH]: delivered.hash };
    for (const workload of selected)
      await this.api.annotateTemplate({ namespace, kind: workload.kind, name: workload.name }, annotations);
    const workloads = selected.map((w) => `${w.kind}/${w.name}`);
    const events: EventInput[] = [];
    if (workloads.length > 0)
      events.push({
        type: 'Normal',
        reason: 'RolloutRestarted',
        message: `restarted ${workloads.join(', ')}`,
      });
    if (missing.length > 0)
      events.push({
        type: 'Warning',
        reason: 'RolloutWorkloadNotFound',
        message: `spec.rollout.workloads names ${missing.join(', ')}, not found in the namespace`,
      });
    if (workloads.length === 0)
      return { ...(obj.status?.lastRestart ? { lastRestart: obj.status.lastRestart } : {}), events };
    return { lastRestart: { time, workloads }, events };
  }
}

function pendingOf(recorded: PendingRestart | undefined): Pending | undefined {
  if (!recorded) return undefined;
  const dueAt = Date.parse(recorded.notBefore);
  return Number.isNaN(dueAt) ? undefined : { from: recorded.fromHash, dueAt };
}

function debounceMsOf(obj: RolloutSubject): number {
  const text = obj.spec.rollout?.debounce;
  return text ? parseDuration(text) : DEFAULT_DEBOUNCE_MS;
}
