/**
 * kstatus's reading of a custom resource, as sigs.k8s.io/cli-utils computes it
 * (pkg/kstatus/status: `checkGenericProperties`, then `Compute`'s fallback), which Flux's
 * health checks and `kubectl`-based tools use:
 *
 * 1. `metadata.deletionTimestamp` set → Terminating;
 * 2. `status.observedGeneration` present and ≠ `metadata.generation` → InProgress;
 * 3. the first condition `Reconciling=True` → InProgress, or `Stalled=True` → Failed (list order);
 * 4. otherwise → Current. kstatus does not read `Ready` on custom resources.
 *
 * Read from kubernetes-sigs/cli-utils: pkg/kstatus/status/generic.go (commit 321951179c8f) and
 * status.go (`Compute`, commit 29e5e20eff05).
 */

export type KstatusStatus = 'InProgress' | 'Failed' | 'Current' | 'Terminating';

interface Readable {
  readonly metadata: { readonly generation?: number; readonly deletionTimestamp?: string };
  readonly status?: {
    readonly observedGeneration?: number;
    readonly conditions?: readonly { type: string; status: string; message?: string }[];
  };
}

function generationNotObserved(obj: Readable): string | undefined {
  const generation = obj.metadata.generation;
  const observed = obj.status?.observedGeneration;
  if (generation === undefined || observed === undefined || observed === generation) return undefined;
  return `generation is ${generation}, but latest observed generation is ${observed}`;
}

const abnormal: Readonly<Record<string, KstatusStatus>> = { Reconciling: 'InProgress', Stalled: 'Failed' };

/** The kstatus status and message of `obj`. */
export function kstatusOf(obj: Readable): { status: KstatusStatus; message: string } {
  if (obj.metadata.deletionTimestamp)
    return { status: 'Terminating', message: 'Resource scheduled for deletion' };
  const unobserved = generationNotObserved(obj);
  if (unobserved) return { status: 'InProgress', message: unobserved };
  const found = obj.status?.conditions?.find((c) => c.status === 'True' && abnormal[c.type] !== undefined);
  if (found) return { status: abnormal[found.type] ?? 'InProgress', message: found.message ?? '' };
  return { status: 'Current', message: 'Resource is current' };
}
