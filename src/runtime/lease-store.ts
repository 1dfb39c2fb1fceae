/**
 * Reading and writing the leader-election Lease (`coordination.k8s.io/v1`) with optimistic
 * concurrency: every update carries the resourceVersion that was read, so two candidates racing
 * for the lease cannot both win (the loser gets HTTP 409).
 */
import type { KubeConfig, V1Lease } from '@kubernetes/client-node';
import { kubernetesStatus } from './errors.ts';
import { kubeRequest } from './kube-request.ts';

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

/** A `LeaseStore` backed by the API server (plain-JSON requests, see `kube-request.ts`). */
export function kubeLeaseStore(kubeConfig: KubeConfig, namespace: string, name: string): LeaseStore {
  const collection = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
  const path = `${collection}/${encodeURIComponent(name)}`;
  const toLease = (record: LeaseRecord, version?: string): V1Lease => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace, ...(version === undefined ? {} : { resourceVersion: version }) },
    spec: {
      holderIdentity: record.holderIdentity,
      leaseDurationSeconds: record.leaseDurationSeconds,
      leaseTransitions: record.leaseTransitions,
      ...microTimeField('acquireTime', record.acquireTimeMs),
      ...microTimeField('renewTime', record.renewTimeMs),
    },
  });
  const write = async (method: 'POST' | 'PUT', body: V1Lease): Promise<VersionedLease> => {
    try {
      return fromLease(
        (await kubeRequest(kubeConfig, {
          method,
          path: method === 'POST' ? collection : path,
          body,
        })) as V1Lease,
      );
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
        return fromLease((await kubeRequest(kubeConfig, { method: 'GET', path })) as V1Lease);
      } catch (error) {
        if (kubernetesStatus(error) === 404) return undefined;
        throw error;
      }
    },
    create: (record) => write('POST', toLease(record)),
    update: (record, version) => write('PUT', toLease(record, version)),
  };
}

/**
 * A MicroTime field: RFC 3339 with six fractional digits, as the API server requires (it
 * refuses a Lease whose times carry three). Absent when `ms` is.
 */
function microTimeField(
  field: 'acquireTime' | 'renewTime',
  ms: number | undefined,
): Partial<V1Lease['spec']> {
  if (ms === undefined) return {};
  // The wire value is a string; client-node's model declares Date.
  return { [field]: new Date(ms).toISOString().replace(/Z$/, '000Z') as unknown as Date };
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

// Read as plain JSON, MicroTime fields are strings (the declared type says Date).
function timeMs(value: unknown): number | undefined {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'string') {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}
