/**
 * Which sample resources can never get Ready in this build: those of kinds without a controller,
 * and, transitively, those that depend on one of them (a ProjectRole whose Project has no
 * controller waits with `ReferenceNotReady` forever). The sandbox shows them but does not wait
 * for them. Dependencies are the references each kind declares in the kind registry.
 */
import { findKind } from '../api/v1alpha1/index.ts';
import { referencedObjects, type KindRegistration } from '../controllers/registration.ts';
import type { SandboxResource, WireObject } from './samples.ts';

/** `Kind/namespace/name` (namespace empty for cluster-scoped kinds). */
export function resourceKey(resource: SandboxResource): string {
  return `${resource.kind}/${resource.namespace ?? ''}/${resource.name}`;
}

function place(kind: string, name: string, namespace: string | undefined): SandboxResource {
  const clusterScoped = findKind(kind)?.scope === 'Cluster';
  return clusterScoped || namespace === undefined ? { kind, name } : { kind, name, namespace };
}

/**
 * Keys (see {@link resourceKey}) of the resources among `objects` that wait, directly or
 * through others, on a kind outside `registeredKinds`; `registry` declares the references.
 */
export function blockedResources(
  objects: readonly WireObject[],
  registeredKinds: ReadonlySet<string>,
  registry: readonly KindRegistration[],
): Set<string> {
  const nodes = objects
    .filter((obj) => findKind(obj.kind))
    .map((obj) => {
      const self = place(obj.kind, obj.metadata.name, obj.metadata.namespace);
      const references = registry.find((k) => k.definition.kind === obj.kind)?.references ?? [];
      const deps = referencedObjects(obj, references).map((ref) =>
        place(ref.kind, ref.name, ref.namespace ?? obj.metadata.namespace),
      );
      return { key: resourceKey(self), kind: obj.kind, deps: deps.map(resourceKey) };
    });
  const blocked = new Set(nodes.filter((n) => !registeredKinds.has(n.kind)).map((n) => n.key));
  for (let changed = true; changed;) {
    changed = false;
    for (const node of nodes) {
      if (blocked.has(node.key) || !node.deps.some((dep) => blocked.has(dep))) continue;
      blocked.add(node.key);
      changed = true;
    }
  }
  return blocked;
}
