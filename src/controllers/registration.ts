/**
 * What a kind's folder (`src/controllers/<kind>/index.ts`) exports about the kind, as data: one
 * {@link KindRegistration}, listed with one line in `src/controllers/registry.ts`. The operator,
 * the sandbox, the tests and `npm run generate` (CRDs, chart and kustomize RBAC, Argo CD health
 * checks, README and docs tables, `src/api/v1alpha1/kinds.generated.ts`) all read the registry;
 * nothing else lists kinds. `npm run new-kind <Name>` scaffolds a folder with its registration.
 */
import type { KindDefinition } from '../api/v1alpha1/kind.ts';
import type { DirectKindController } from '../managed/direct/kind.ts';
import type { ManagedObject } from '../managed/external-client.ts';
import type { ReasonTable } from '../runtime/reasons.ts';
import type { KindController, NamedRef } from './kind-controller.ts';

/**
 * A spec field that names another coffer.dev object. `path` starts at the object root; a segment
 * ending in `[]` steps into every item of a list, e.g. `spec.projectMemberships[].projectRef`.
 * The field holds `{ name }` (and, where several kinds are possible, `{ kind }`).
 */
export interface ReferenceDeclaration {
  readonly path: string;
  /** The kind named; with several, the reference's own `kind` field picks one (default: the first). */
  readonly kinds: readonly [string, ...string[]];
  /** What the referencing object waits for: the referenced object's `Ready=True`. */
  readonly needs: 'Ready';
  /**
   * Whether a change of the referenced object re-reconciles the referencing one at once (through
   * the kind's `dependencies`). False for `connectionRef`, which the operator's connection
   * watches handle for every kind.
   */
  readonly watch: boolean;
  /** One line for the docs: what the reference is used for. */
  readonly purpose: string;
  /**
   * True for a reference to a kind later in the registry: the Identity a connection logs in as
   * (an Identity is itself managed through a connection). The only exception to dependency order.
   */
  readonly forward?: boolean;
  /**
   * True when this object getting Ready (or going) is news for the referenced object's own
   * dependents: an IdentityAuth attaching a login method to an Identity wakes the Connections
   * that log in as that Identity (they waited with `LoginMethodNotFound`).
   */
  readonly announce?: boolean;
}

/**
 * An identity of the service that this kind's objects record in their status and that no
 * resource may change or delete without opting in (`src/managed/ownership.ts`, rule 4).
 */
export interface ProtectedIdentityDeclaration {
  /** The status field holding the identity's id. */
  readonly statusField: string;
  /** Why it is protected, said of one object (`namespace/name`, or `name` when cluster-scoped). */
  why(objectName: string): string;
}

/** A Kubernetes API permission a kind needs beyond the coffer.dev rules every kind gets. */
export interface RbacNeed {
  /** `''` for the core group. */
  readonly apiGroup: string;
  /** Plural resource name, e.g. `secrets`. */
  readonly resource: string;
  readonly verbs: readonly RbacVerb[];
  /** True for a cluster-scoped resource (e.g. `namespaces`): always granted cluster-wide. */
  readonly clusterScoped?: boolean;
  /** Why (rendered as a comment beside the rule). */
  readonly why: string;
}

/** The verbs Coffer uses, in the order rules list them. */
export const rbacVerbs = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] as const;
export type RbacVerb = (typeof rbacVerbs)[number];

/** How the operator runs a kind. */
export type KindRuntime =
  | { readonly reconciler: 'managed'; readonly controller: KindController }
  | { readonly reconciler: 'direct'; readonly controller: DirectKindController };

/** Everything about one kind, exported by its folder's index.ts. */
export interface KindRegistration {
  readonly definition: KindDefinition;
  readonly runtime: KindRuntime;
  readonly references: readonly ReferenceDeclaration[];
  readonly rbac: readonly RbacNeed[];
  /**
   * The kind's own condition reasons (`<kind>/reasons.ts`, declared with `declareReasons`); the
   * generic ones apply besides. Kinds that run the same sync may share one table.
   */
  readonly reasons: ReasonTable;
  /**
   * Normal event reasons this kind records routinely on its way to Ready (e.g. a delivery):
   * written under the shared budget for routine events, like the generic create/update events.
   */
  readonly routineEvents?: readonly string[];
  /** The identity its objects hold that resources may not change (undefined: none). */
  readonly protectsIdentity?: ProtectedIdentityDeclaration;
  /** The kind's sample, relative to the repository root (`config/samples/<kind>.yaml`). */
  readonly sample: string;
  /**
   * Why `config/samples/kustomization.yaml` (what `coffer sandbox` and `kubectl apply -k
   * config/samples` apply, generated) leaves the sample out; undefined: it is listed.
   */
  readonly sampleLeftOut?: string;
  /** The kind's documentation page (`docs/kinds/<kind>.md`). */
  readonly docPage: string;
  /** One line for the README's kinds table: what the kind manages. */
  readonly summary: string;
}

/** The `connectionRef` every managed kind has (a Connection or, with `kind`, a ClusterConnection). */
export const connectionReference: ReferenceDeclaration = {
  path: 'spec.connectionRef',
  kinds: ['Connection', 'ClusterConnection'],
  needs: 'Ready',
  watch: false,
  purpose: 'the service to talk to and how to authenticate',
};

/** The `connectionRef` of a cluster-scoped kind: always a ClusterConnection. */
export const clusterConnectionReference: ReferenceDeclaration = {
  ...connectionReference,
  kinds: ['ClusterConnection'],
};

/** Values found at `path` (segments separated by `.`, `[]` suffix = every list item). */
function valuesAt(value: unknown, segments: readonly string[]): unknown[] {
  const [head, ...rest] = segments;
  if (head === undefined) return [value];
  if (typeof value !== 'object' || value === null) return [];
  const list = head.endsWith('[]');
  const child = (value as Record<string, unknown>)[list ? head.slice(0, -2) : head];
  if (!list) return valuesAt(child, rest);
  return Array.isArray(child) ? child.flatMap((item) => valuesAt(item, rest)) : [];
}

/**
 * One object named by a reference: its kind, name and, when the reference names one (a
 * ClusterConnection's `identityRef`), namespace; otherwise the namespace is the referrer's.
 */
export type ReferencedName = NamedRef & { readonly kind: string };

/** The objects `obj` names through `references` (missing or malformed fields are skipped). */
export function referencedObjects(
  obj: { readonly spec?: unknown },
  references: readonly ReferenceDeclaration[],
): ReferencedName[] {
  return references.flatMap((reference) =>
    valuesAt(obj, reference.path.split('.')).flatMap((value): ReferencedName[] => {
      const ref = value as { name?: unknown; kind?: unknown; namespace?: unknown } | null | undefined;
      if (typeof ref?.name !== 'string') return [];
      const kind =
        typeof ref.kind === 'string' && reference.kinds.includes(ref.kind) ? ref.kind : reference.kinds[0];
      const namespace = typeof ref.namespace === 'string' ? { namespace: ref.namespace } : {};
      return [{ kind, name: ref.name, ...namespace }];
    }),
  );
}

/**
 * A kind controller's `announces` from its declared references (those with `announce`): the
 * objects whose dependents hear of this object's readiness changes.
 */
export function announcedFrom(
  references: readonly ReferenceDeclaration[],
): (obj: ManagedObject<unknown>) => readonly ReferencedName[] {
  const announced = references.filter((reference) => reference.announce);
  return (obj) => referencedObjects(obj, announced);
}

/**
 * A kind controller's `dependencies` from its declared references (those with `watch`): a change
 * of one of those objects (e.g. becoming Ready) reconciles the referencing object at once.
 */
export function dependenciesFrom(
  references: readonly ReferenceDeclaration[],
): (obj: ManagedObject<unknown>) => readonly ReferencedName[] {
  const watched = references.filter((reference) => reference.watch);
  return (obj) => referencedObjects(obj, watched);
}
