/**
 * Options of `createManagedReconciler` and their defaults.
 */
import type { z } from 'zod';
import type { EventRecorder } from '../runtime/events.ts';
import type { ObjectPatcher } from '../runtime/object-meta.ts';
import type { SecretWriter } from '../runtime/secret-writer.ts';
import type { AdapterStatus, ManagedAdapter, ManagedObject, ManagedSpecFields } from './external-client.ts';
import type { ObjectReader } from './kube-objects.ts';

/** Default poll interval: drift made outside Kubernetes is corrected within this time. */
export const DEFAULT_POLL_INTERVAL_MS = 10 * 60_000;

/** Default fixed requeue while waiting on a dependency. */
export const DEFAULT_WAIT_REQUEUE_MS = 10_000;

/** Default allowance for clock skew between the operator and the service. */
export const DEFAULT_CREATE_CLOCK_SKEW_MS = 2 * 60_000;

/** Everything the generic reconciler needs for one kind. */
export interface ManagedReconcilerOptions<
  Spec extends ManagedSpecFields,
  Refs,
  Status extends AdapterStatus,
> {
  /** The kind's spec schema (zod); its output (with defaults applied) is what the adapter sees. */
  readonly schema: z.ZodType<Spec>;
  readonly adapter: ManagedAdapter<Spec, Refs, Status>;
  /** Reads the resource (informer cache in production, GET in tests). */
  readonly reader: ObjectReader<ManagedObject<unknown>>;
  /** Writes the resource's metadata and status (see `customObjectPatcher`). */
  readonly patcher: ObjectPatcher<ManagedObject<unknown>>;
  readonly events: EventRecorder;
  readonly secrets: SecretWriter;
  /** Deletion policy when `spec.deletionPolicy` is unset. */
  readonly defaultDeletionPolicy: 'Delete' | 'Orphan';
  /** Poll interval when `spec.pollInterval` is unset (default 10 minutes). */
  readonly defaultPollIntervalMs?: number;
  /** Fixed requeue while waiting on a dependency (default 10 seconds). */
  readonly waitRequeueMs?: number;
  /** Up to this fraction of the poll interval is added at random (default 0.1). */
  readonly jitterFactor?: number;
  /** Delays between attempts to record a new external id (default 200 ms, 1 s, 3 s). */
  readonly persistRetryDelaysMs?: readonly number[];
  /**
   * How much earlier than the create-pending mark the service may date an object this resource
   * created (clock skew between operator and service; default 2 minutes). See `ownership.ts`.
   */
  readonly createClockSkewMs?: number;
  readonly now?: () => Date;
  readonly random?: () => number;
}

/** Options with every default filled in. */
export interface Settings<
  Spec extends ManagedSpecFields,
  Refs,
  Status extends AdapterStatus,
> extends Required<Omit<ManagedReconcilerOptions<Spec, Refs, Status>, 'adapter'>> {
  readonly adapter: ManagedAdapter<Spec, Refs, Status>;
}

export function withDefaults<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  options: ManagedReconcilerOptions<Spec, Refs, Status>,
): Settings<Spec, Refs, Status> {
  return {
    ...options,
    defaultPollIntervalMs: options.defaultPollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    waitRequeueMs: options.waitRequeueMs ?? DEFAULT_WAIT_REQUEUE_MS,
    jitterFactor: options.jitterFactor ?? 0.1,
    persistRetryDelaysMs: options.persistRetryDelaysMs ?? [200, 1_000, 3_000],
    createClockSkewMs: options.createClockSkewMs ?? DEFAULT_CREATE_CLOCK_SKEW_MS,
    now: options.now ?? (() => new Date()),
    random: options.random ?? Math.random,
  };
}
