/**
 * Which sample resources can never get Ready in this build: those of kinds without a controller,
 * and, transitively, those that depend on one of them (a ProjectRole whose Project has no
 * controller waits with `ReferenceNotReady` forever). The sandbox shows them but does not wait
 * for them. Dependencies come from each kind controller's `dependencies` and, so that a kind
 * which declares none is still covered, from the well-known reference fields of the spec.
 */
import { findKind } from '../api/v1alpha1/index.ts';
import type { KindController } from '../controllers/kind-controller.ts';
import type { ManagedObject } from '../managed/external-client.ts';
import type { SandboxResource, WireObject } from './samples.ts';

/** Spec fields that reference another coffer.dev object, and the kind they name. */
const referenceKinds: Readonly<Record<string, string>> = {
  connectionRef: 'Connection',
  projectRef: 'Project',
  identityRef: 'Identity',
  projectRoleRef: 'ProjectRole',
  templateRef: 'ProjectTemplate',
};

/** `Kind/namespace/name` (namespace empty for cluster-scoped kinds). */
export function resourceKey(resource: SandboxResource): string {
  return `${resource.kind}/${resource.namespace ?? ''}/${resource.name}`;
}

function place(kind: string, name: string, namespace: string | undefined): SandboxResource {
  const clusterScoped = findKind(kind)?.scope === 'Cluster';
  return clusterScoped || namespace === undefined ? { kind, name } : { kind, name, namespace };
}

/** References found anywhere in `value` through the fields of `referenceKinds`. */
function scanReferences(value: unknown, namespace: string | undefined, out: SandboxResource[]): void {
  if (Array.isArray(value)) {
    for (const item of value) scanReferences(item, namespace, out);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const kind = referenceKinds[key];
    const ref = child as { name?: unknown; kind?: unknown } | null;
    if (kind && typeof ref?.name === 'string') {
      out.push(place(typeof ref.kind === 'string' ? ref.kind : kind, ref.name, namespace));
    } else scanReferences(child, namespace, out);
  }
}

function declared(obj: WireObject, controller: KindController | undefined): SandboxResource[] {
  if (!controller?.dependencies) return [];
  const parsed = controller.definition.spec.safeParse(obj.spec);
  if (!parsed.success) return [];
  const managed = { ...obj, spec: parsed.data } as unknown as ManagedObject<unknown>;
  return controller
    .dependencies(managed)
    .map((dep) => place(dep.kind, dep.name, dep.namespace ?? obj.metadata.namespace));
}

/**
 * Keys (see {@link resourceKey}) of the resources among `objects` that wait, directly or
 * through others, on a kind outside `registeredKinds`.
 */
export function blockedResources(
  objects: readonly WireObject[],
  registeredKinds: ReadonlySet<string>,
  controllers: readonly KindController[],
): Set<string> {
  const nodes = objects
    .filter((obj) => findKind(obj.kind))
    .map((obj) => {
      const self = place(obj.kind, obj.metadata.name, obj.metadata.namespace);
      const deps: SandboxResource[] = [];
      scanReferences(obj.spec, obj.metadata.namespace, deps);
      deps.push(
        ...declared(
          obj,
          controllers.find((c) => c.definition.kind === obj.kind),
        ),
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
