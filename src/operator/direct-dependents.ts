/**
 * Who still needs a connection: the managed resources whose `spec.connectionRef` names it (a
 * ClusterConnection's from any watched namespace) and that still hold Coffer's finalizer, i.e.
 * may still have to delete or orphan their object through it. Read from the dependency index the
 * watches maintain (`watches.ts`), so a lookup costs one index read per kind.
 *
 * The reverse watch: when such a resource goes away, drops its finalizer or moves to another
 * connection, the connection it used is enqueued at once if it is being deleted, so it is
 * released without waiting for a requeue.
 */
import { findKind } from '../api/v1alpha1/index.ts';
import type { ManagedObject } from '../managed/external-client.ts';
import type { Controller } from '../runtime/controller.ts';
import { FINALIZER, hasFinalizer, isBeingDeleted } from '../runtime/object-meta.ts';
import type { Request } from '../runtime/reconcile.ts';
import { connectionKindOf, type ConnectionKindName } from '../managed/connections/kinds.ts';
import type { DependentsLookup } from '../managed/direct/deletion.ts';
import type { OperatorInformers } from './informers.ts';
import { DEPENDENCY_INDEX, dependencyKey, type WatchedKind } from './watches.ts';

/** `Kind/namespace/name`, or `Kind/name` for a cluster-scoped resource. */
function describe(kind: string, obj: ManagedObject<unknown>): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${kind}/${namespace}/${name}` : `${kind}/${name}`;
}

/**
 * The dependents lookup of connection kind `kind` over the managed kinds `users()` returns
 * (resolved at call time: the assembly registers them after the connection kinds). Sorted.
 */
export function connectionDependents(
  kind: ConnectionKindName,
  users: () => readonly WatchedKind[],
): DependentsLookup {
  return (connection) => {
    const key = dependencyKey(kind, connection.metadata.namespace, connection.metadata.name);
    const holding: string[] = [];
    for (const user of users()) {
      if (!user.usesConnection) continue;
      for (const obj of user.informer.byIndex(DEPENDENCY_INDEX, key)) {
        if (hasFinalizer(obj, FINALIZER)) holding.push(describe(user.definition.kind, obj));
      }
    }
    return holding.sort();
  };
}

interface UsedConnection {
  readonly kind: ConnectionKindName;
  readonly request: Request;
}

/** The connection `obj` names, as a request of its kind; undefined without a usable reference. */
function usedConnection(obj: ManagedObject<unknown>): UsedConnection | undefined {
  const ref = (obj.spec as { connectionRef?: { kind?: string; name?: string } } | undefined)?.connectionRef;
  if (!ref?.name) return undefined;
  const kind = connectionKindOf(ref);
  if (findKind(kind)?.scope === 'Cluster') return { kind, request: { name: ref.name } };
  const namespace = obj.metadata.namespace;
  return namespace ? { kind, request: { namespace, name: ref.name } } : undefined;
}

function sameConnection(a: UsedConnection | undefined, b: UsedConnection | undefined): boolean {
  return (
    a?.kind === b?.kind &&
    a?.request.name === b?.request.name &&
    a?.request.namespace === b?.request.namespace
  );
}

/**
 * Enqueues a connection being deleted when one of its dependents stops holding on (see the
 * module comment). `controllers` maps the connection kind names to their controllers.
 */
export function watchConnectionDependents(
  users: readonly WatchedKind[],
  informers: OperatorInformers,
  controllers: ReadonlyMap<string, Controller>,
): void {
  const release = (used: UsedConnection | undefined): void => {
    if (!used) return;
    const clusterScoped = findKind(used.kind)?.scope === 'Cluster';
    const connection = informers.kinds.get(used.kind)?.get(used.request.namespace, used.request.name);
    if (!connection || !isBeingDeleted(connection)) return;
    controllers.get(used.kind)?.enqueue(clusterScoped ? { name: used.request.name } : used.request);
  };
  for (const user of users) {
    if (!user.usesConnection) continue;
    // The last state of a deleted object usually lacks the finalizer already: no check.
    user.informer.on('delete', (obj) => release(usedConnection(obj)));
    user.informer.on('update', (obj, old) => {
      if (!hasFinalizer(old, FINALIZER)) return;
      const before = usedConnection(old);
      if (!hasFinalizer(obj, FINALIZER) || !sameConnection(before, usedConnection(obj))) release(before);
    });
  }
}
