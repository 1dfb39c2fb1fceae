/**
 * What enqueues a kind's objects, besides their own changes:
 *
 * - owned Secrets (controller owner reference to the kind): a deleted or edited output Secret is
 *   repaired at once;
 * - referenced Secrets and ConfigMaps (`referencedSecrets` / `referencedConfigMaps`, indexed on
 *   the kind's informer): a rotated credential or changed input is picked up within seconds;
 * - dependencies (`dependencies`, plus the `connectionRef` of every managed kind): when a Project
 *   or a Connection becomes Ready, changes spec, gets an id or goes away, its dependents are
 *   reconciled at once instead of after their waiting requeue; a kind's `announces` makes its
 *   objects' readiness news for the dependents of the objects they name (an IdentityAuth getting
 *   Ready wakes the Connections logging in as its Identity);
 * - namespace label changes re-check every object of that namespace using a ClusterConnection
 *   (admission by label selector).
 */
import { findKind, group, type KindDefinition } from '../api/v1alpha1/index.ts';
import { connectionKindOf } from '../managed/connections/kinds.ts';
import type { NamedRef } from '../controllers/kind-controller.ts';
import type { ManagedObject } from '../managed/external-client.ts';
import { CONDITION_READY, getCondition } from '../runtime/conditions.ts';
import type { Controller } from '../runtime/controller.ts';
import { requestForObject, type RequestMapper, type UpdatePredicate } from '../runtime/event-sources.ts';
import type { Informer, KubeObject } from '../runtime/informer.ts';
import type { Request } from '../runtime/reconcile.ts';
import { payloadChanged } from './secret-cache.ts';
import type { OperatorInformers } from './informers.ts';

/** The coffer.dev objects an object names (its dependencies, or those it announces to). */
type NamedObjects = (obj: ManagedObject<unknown>) => readonly (NamedRef & { readonly kind: string })[];

/** What the watches need to know about one registered kind. */
export interface WatchedKind {
  readonly definition: KindDefinition;
  readonly informer: Informer<ManagedObject<unknown>>;
  readonly controller: Controller;
  readonly referencedSecrets?: (obj: ManagedObject<unknown>) => readonly NamedRef[];
  /** Whether the values of `referencedSecrets` are held in memory (`secret-values.ts`). */
  readonly holdsSecretValues?: boolean;
  readonly referencedConfigMaps?: (obj: ManagedObject<unknown>) => readonly NamedRef[];
  readonly dependencies?: NamedObjects;
  readonly announces?: NamedObjects;
  /** Whether `spec.connectionRef` counts as a dependency (managed kinds). */
  readonly usesConnection: boolean;
  readonly ownedKinds?: readonly string[];
}

const SECRET_INDEX = 'coffer.dev/secrets';
const CONFIGMAP_INDEX = 'coffer.dev/configmaps';
/** Index of every dependent kind's informer: `Kind/namespace/name` of what an object depends on. */
export const DEPENDENCY_INDEX = 'coffer.dev/dependencies';

/** Runs a user function for an index; a throw (e.g. an unparsable spec) means "no values". */
function safely(fn: () => readonly string[]): readonly string[] {
  try {
    return fn();
  } catch {
    return [];
  }
}

/**
 * The last object each kind parsed, with its view: the cache computes all of a kind's indexes
 * (Secrets, ConfigMaps, dependencies) for one object in a row, so one parse serves them all.
 */
const lastParsed = new WeakMap<KindDefinition, { obj: object; view: ManagedObject<unknown> | undefined }>();

/** The object with its spec parsed and defaulted, or undefined when the spec is invalid. */
function parsed(definition: KindDefinition, obj: ManagedObject<unknown>): ManagedObject<unknown> | undefined {
  const last = lastParsed.get(definition);
  if (last?.obj === obj) return last.view;
  const result = definition.spec.safeParse(obj.spec ?? {});
  const view = result.success ? { ...obj, spec: result.data } : undefined;
  lastParsed.set(definition, { obj, view });
  return view;
}

function refKeys(obj: ManagedObject<unknown>, refs: readonly NamedRef[]): string[] {
  return refs.map((ref) => `${ref.namespace ?? obj.metadata.namespace ?? ''}/${ref.name}`);
}

/** `Kind/namespace/name` (empty namespace for cluster-scoped kinds). */
export function dependencyKey(kind: string, namespace: string | undefined, name: string): string {
  const clusterScoped = findKind(kind)?.scope === 'Cluster';
  return `${kind}/${clusterScoped ? '' : (namespace ?? '')}/${name}`;
}

function connectionDependency(obj: ManagedObject<unknown>): string[] {
  const ref = (obj.spec as { connectionRef?: { kind?: string; name?: string } } | undefined)?.connectionRef;
  if (!ref?.name) return [];
  return [dependencyKey(connectionKindOf(ref), obj.metadata.namespace, ref.name)];
}

/** `Kind/namespace/name` of the objects `named` finds in `obj` (its spec parsed first). */
function namedKeys(
  kind: WatchedKind,
  obj: ManagedObject<unknown>,
  named: NamedObjects | undefined,
): string[] {
  const view = named ? parsed(kind.definition, obj) : undefined;
  if (!view || !named) return [];
  return named(view).map((d) => dependencyKey(d.kind, d.namespace ?? obj.metadata.namespace, d.name));
}

function dependencyValues(kind: WatchedKind, obj: ManagedObject<unknown>): readonly string[] {
  const own = kind.usesConnection ? connectionDependency(obj) : [];
  return [...own, ...namedKeys(kind, obj, kind.dependencies)];
}

/** Owned objects → their controlling owner of `kind` (namespace dropped for cluster-scoped owners). */
function requestsForOwnerKind(definition: KindDefinition): RequestMapper<KubeObject> {
  const namespaced = definition.scope === 'Namespaced';
  return (obj) =>
    (obj.metadata?.ownerReferences ?? [])
      .filter(
        (ref) =>
          ref.controller === true && ref.kind === definition.kind && ref.apiVersion.startsWith(`${group}/`),
      )
      .map((ref) =>
        namespaced ? { namespace: obj.metadata?.namespace, name: ref.name } : { name: ref.name },
      );
}

/** Passes updates where readiness, spec, id or deletion changed (what dependents care about). */
export const readinessChanged: UpdatePredicate<ManagedObject<unknown>> = (obj, old) =>
  obj.metadata.generation !== old.metadata.generation ||
  obj.metadata.deletionTimestamp !== old.metadata.deletionTimestamp ||
  obj.status?.id !== old.status?.id ||
  getCondition(obj.status?.conditions, CONDITION_READY)?.status !==
    getCondition(old.status?.conditions, CONDITION_READY)?.status;

/** Registers the indexes and the Secret, ConfigMap and owned-object watches of one kind. */
export function watchOwnSources(kind: WatchedKind, informers: OperatorInformers): void {
  const { definition, informer, controller } = kind;
  controller.watches(informers.secrets, requestsForOwnerKind(definition), payloadChanged);
  const secretRefs = kind.referencedSecrets;
  if (secretRefs) {
    const secretKeys = (obj: ManagedObject<unknown>) =>
      safely(() => {
        const view = parsed(definition, obj);
        return view ? refKeys(obj, secretRefs(view)) : [];
      });
    informer.addIndex(SECRET_INDEX, secretKeys);
    controller.watches(informers.secrets, (s) => byIndex(informer, SECRET_INDEX, s), payloadChanged);
    if (kind.holdsSecretValues) holdReferencedValues(informer, secretKeys, informers);
  }
  const configMapRefs = kind.referencedConfigMaps;
  if (configMapRefs) {
    informer.addIndex(CONFIGMAP_INDEX, (obj) =>
      safely(() => {
        const view = parsed(definition, obj);
        return view ? refKeys(obj, configMapRefs(view)) : [];
      }),
    );
    controller.watches(informers.configMaps, (c) => byIndex(informer, CONFIGMAP_INDEX, c), payloadChanged);
  }
  for (const owned of kind.ownedKinds ?? []) {
    const ownedInformer = informers.kinds.get(owned);
    if (ownedInformer) controller.watches(ownedInformer, requestsForOwnerKind(definition));
  }
}

/**
 * Makes the Secret value cache keep the values of the Secrets `informer`'s objects reference (its
 * Secret index), and drop them when the last object referencing one is edited away or deleted.
 */
function holdReferencedValues(
  informer: Informer<ManagedObject<unknown>>,
  secretKeys: (obj: ManagedObject<unknown>) => readonly string[],
  { secretValues, secrets }: OperatorInformers,
): void {
  secretValues.addReferencedCheck((key) => informer.byIndex(SECRET_INDEX, key).length > 0);
  const labelsOf = (key: string) => {
    const slash = key.indexOf('/');
    return secrets.get(key.slice(0, slash), key.slice(slash + 1))?.metadata?.labels;
  };
  informer.on('update', (_obj, old) => secretValues.release(secretKeys(old), labelsOf));
  informer.on('delete', (obj) => secretValues.release(secretKeys(obj), labelsOf));
}

function byIndex(informer: Informer<ManagedObject<unknown>>, index: string, obj: KubeObject): Request[] {
  const key = `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
  return informer.byIndex(index, key).flatMap(requestForObject);
}

/**
 * Wires dependencies between all registered kinds: each kind's dependency index, and one handler
 * per coffer.dev informer that enqueues the dependents of a changed object.
 */
export function watchDependencies(kinds: readonly WatchedKind[], informers: OperatorInformers): void {
  const dependents = kinds.filter((k) => k.usesConnection || k.dependencies);
  for (const kind of dependents) {
    kind.informer.addIndex(DEPENDENCY_INDEX, (obj) => safely(() => dependencyValues(kind, obj)));
  }
  if (dependents.length === 0) return;
  const enqueueDependentsOf = (key: string): void => {
    for (const dependent of dependents) {
      for (const target of dependent.informer.byIndex(DEPENDENCY_INDEX, key)) {
        for (const request of requestForObject(target)) dependent.controller.enqueue(request);
      }
    }
  };
  for (const [kindName, informer] of informers.kinds) {
    const announcing = kinds.find((k) => k.definition.kind === kindName && k.announces);
    const notify = (obj: ManagedObject<unknown>): void => {
      enqueueDependentsOf(dependencyKey(kindName, obj.metadata.namespace, obj.metadata.name));
      if (announcing) for (const key of announcedKeys(announcing, obj)) enqueueDependentsOf(key);
    };
    informer.on('add', notify);
    informer.on('delete', notify);
    informer.on('update', (obj, old) => {
      if (readinessChanged(obj, old)) notify(obj);
    });
  }
}

/** `Kind/namespace/name` of each object `obj` announces its readiness to (see `announces`). */
function announcedKeys(kind: WatchedKind, obj: ManagedObject<unknown>): readonly string[] {
  return safely(() => namedKeys(kind, obj, kind.announces));
}

/** Whether `obj` uses a cluster-scoped connection (one that admits namespaces by their labels). */
function usesClusterScopedConnection(obj: ManagedObject<unknown>): boolean {
  const ref = (obj.spec as { connectionRef?: { kind?: string } } | undefined)?.connectionRef;
  return ref !== undefined && findKind(connectionKindOf(ref))?.scope === 'Cluster';
}

/** Namespace label changes re-check the objects there that use a cluster-scoped connection. */
export function watchNamespaceLabels(kinds: readonly WatchedKind[], informers: OperatorInformers): void {
  const users = kinds.filter((k) => k.usesConnection && k.definition.scope === 'Namespaced');
  informers.namespaces.on('update', (obj, old) => {
    const namespace = obj.metadata?.name;
    const same = JSON.stringify(obj.metadata?.labels ?? {}) === JSON.stringify(old.metadata?.labels ?? {});
    if (!namespace || same) return;
    for (const kind of users) {
      const targets = kind.informer.list(namespace).filter(usesClusterScopedConnection);
      for (const request of targets.flatMap(requestForObject)) kind.controller.enqueue(request);
    }
  });
}
