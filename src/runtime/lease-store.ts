/**
 * Reading and writing the leader-election Lease (`coordination.k8s.io/v1`) with optimistic
 * concurrency: every update carries the resourceVersion that was read, so two candidates racing
 * for the lease cannot both win (the loser gets HTTP 409).
 */
import { CoordinationV1Api, V1MicroTime, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import { kubernetesStatus } from './errors.ts';

/** The leader-election record held in the Lease spec. Times are wall-clock milliseconds. */
export interface LeaseRecord {
  /** Empty when nobody holds the lease (after a release). */
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  readonly acquireTimeMs?: number;
  readonly renewTimeMs?: number;
  readonly leaseTransitions: number;
}

/** A record with the resourceVersion it was read at. */
export interface VersionedLease {
  readonly record: LeaseRecord;
  readonly version: string;
}

/** Storage of one Lease. `create` and `update` throw `LeaseConflictError` when they lose a race. */
export interface LeaseStore {
  get(): Promise<VersionedLease | undefined>;
  create(record: LeaseRecord): Promise<VersionedLease>;
  update(record: LeaseRecord, version: string): Promise<VersionedLease>;
  /** Human-readable `namespace/name` for logs. */
  readonly description: string;
}

/** Another candidate wrote the Lease first (HTTP 409, or 422/AlreadyExists on create). */
export class LeaseConflictError extends Error {}

/** A `LeaseStore` backed by the API server. */
export function kubeLeaseStore(kubeConfig: KubeConfig, namespace: string, name: string): LeaseStore {
  const api = kubeConfig.makeApiClient(CoordinationV1Api);
  const toLease = (record: LeaseRecord, version?: string): V1Lease => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace, resourceVersion: version },
    spec: {
      holderIdentity: record.holderIdentity,
      leaseDurationSeconds: record.leaseDurationSeconds,
      leaseTransitions: record.leaseTransitions,
      // MicroTime must carry six fractional digits; V1MicroTime serializes that way.
      acquireTime: record.acquireTimeMs === undefined ? undefined : new V1MicroTime(record.acquireTimeMs),
      renewTime: record.renewTimeMs === undefined ? undefined : new V1MicroTime(record.renewTimeMs),
    },
  });
  const write = async (call: () => Promise<V1Lease>): Promise<VersionedLease> => {
    try {
      return fromLease(await call());
    } catch (error) {
      if (kubernetesStatus(error) === 409)
        throw new LeaseConflictError('lease was modified concurrently', { cause: error });
      throw error;
    }
  };
  return {
    description: `${namespace}/${name}`,
    async get() {
      try {
        return fromLease(await api.readNamespacedLease({ name, namespace }));
      } catch (error) {
        if (kubernetesStatus(error) === 404) return undefined;
        throw error;
      }
    },
    create: (record) => write(() => api.createNamespacedLease({ namespace, body: toLease(record) })),
    update: (record, version) =>
      write(() => api.replaceNamespacedLease({ name, namespace, body: toLease(record, version) })),
  };
}

function fromLease(lease: V1Lease): VersionedLease {
  const spec = lease.spec ?? {};
  return {
    version: lease.metadata?.resourceVersion ?? '',
    record: {
      holderIdentity: spec.holderIdentity ?? '',
      leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
      leaseTransitions: spec.leaseTransitions ?? 0,
      acquireTimeMs: timeMs(spec.acquireTime),
      renewTimeMs: timeMs(spec.renewTime),
    },
  };
}

// The typed client leaves MicroTime fields as strings when reading, despite the declared type.
function timeMs(value: unknown): number | undefined {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'string') {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}
