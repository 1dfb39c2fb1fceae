/**
 * Resolving a reference to another Coffer resource (e.g. `projectRef`) into the external id it
 * mirrors. A dependency that is missing or not Ready is *waiting*, not an error: a
 * `WaitingError` with reason `ReferenceNotReady` makes the reconciler set `Synced=False` and
 * requeue after a fixed delay without logging an error.
 */
import { CONDITION_READY, isConditionTrue } from '../runtime/conditions.ts';
import { TerminalError, WaitingError } from '../runtime/errors.ts';
import { isBeingDeleted, type KubeObject } from '../runtime/object-meta.ts';
import type { ManagedStatus, ResolveContext } from './external-client.ts';
import type { ObjectReader } from './kube-objects.ts';
import { managedReasons } from './reasons.ts';

/** Reason of the waiting condition while a dependency is not Ready. */
export const REFERENCE_NOT_READY = managedReasons.names.ReferenceNotReady;

/** A referenced Coffer resource as read from the cache. */
export interface ReferencedObject extends KubeObject {
  status?: ManagedStatus;
}

export interface ResolveReferenceOptions<T extends ReferencedObject> {
  /** Reads objects of the referenced kind. */
  readonly reader: ObjectReader<T>;
  /** Kind name for messages, e.g. `Project`. */
  readonly kind: string;
  /** The referencing resource. */
  readonly from: KubeObject;
  /** The reference: a name, and a namespace only where the kind allows cross-namespace references. */
  readonly ref: { readonly name: string; readonly namespace?: string };
  /** Whether `ref.namespace` may differ from the referencing resource's namespace. Default false. */
  readonly allowCrossNamespace?: boolean;
  /** True when the referenced kind is cluster-scoped (no namespace is looked up). */
  readonly clusterScoped?: boolean;
  /** Only `deleting` and `waitRequeueMs` are read. */
  readonly context: Pick<ResolveContext, 'deleting' | 'waitRequeueMs'>;
  /**
   * While deleting: the id to use when the referenced object is already gone (e.g. recorded in
   * the referencing resource's status), so deletion can proceed.
   */
  readonly fallbackId?: string;
}

/** A resolved reference. `object` is absent when `fallbackId` was used. */
export interface ResolvedReference<T> {
  readonly externalId: string;
  readonly object?: T;
}

function targetNamespace<T extends ReferencedObject>(
  options: ResolveReferenceOptions<T>,
): string | undefined {
  if (options.clusterScoped) return undefined;
  const own = options.from.metadata?.namespace;
  const wanted = options.ref.namespace ?? own;
  if (wanted !== own && !options.allowCrossNamespace) {
    throw new TerminalError(
      managedReasons.names.CrossNamespaceReference,
      `cannot resolve ${options.kind} ${wanted}/${options.ref.name}: ${options.from.kind ?? 'this kind'} ` +
        'may only reference objects in its own namespace',
    );
  }
  return wanted;
}

/** How the waiting message names the target: with its namespace when it is another one. */
function shownName<T extends ReferencedObject>(
  options: ResolveReferenceOptions<T>,
  namespace: string | undefined,
): string {
  const other = namespace !== undefined && namespace !== options.from.metadata?.namespace;
  return other ? `${namespace}/${options.ref.name}` : options.ref.name;
}

/** During deletion any recorded id will do (the dependency may be going away too). */
function forDeletion<T extends ReferencedObject>(
  target: T | undefined,
  fallbackId: string | undefined,
  waiting: (why: string) => WaitingError,
): ResolvedReference<T> {
  const externalId = target?.status?.id;
  if (externalId) return { externalId, object: target };
  if (fallbackId) return { externalId: fallbackId };
  throw waiting(target ? 'it has no external id' : 'it does not exist');
}

/**
 * Returns the external id of the referenced resource. Outside deletion it must exist, not be
 * being deleted, be `Ready=True` and have `status.id`; during deletion an id is enough.
 */
export async function resolveReference<T extends ReferencedObject>(
  options: ResolveReferenceOptions<T>,
): Promise<ResolvedReference<T>> {
  const { kind, ref, context } = options;
  const namespace = targetNamespace(options);
  const shown = shownName(options, namespace);
  const waiting = (why: string) =>
    new WaitingError(REFERENCE_NOT_READY, `waiting for ${kind} ${shown}: ${why}`, context.waitRequeueMs);
  const target = await options.reader.get(namespace ? { namespace, name: ref.name } : { name: ref.name });
  const externalId = target?.status?.id;
  if (context.deleting) return forDeletion(target, options.fallbackId, waiting);
  if (!target) throw waiting('it does not exist');
  if (isBeingDeleted(target)) throw waiting('it is being deleted');
  if (!isConditionTrue(target.status?.conditions, CONDITION_READY) || !externalId)
    throw waiting('it is not Ready');
  return { externalId, object: target };
}
