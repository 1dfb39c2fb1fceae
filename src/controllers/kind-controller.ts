/**
 * The contract between the operator assembly (`src/operator/`) and one kind's controller
 * (`src/controllers/<kind>/`). A kind controller is data plus an adapter factory: the assembly
 * creates the informers, the work queue, the generic managed reconciler and the watches from it.
 *
 * Adding a kind = a zod schema in `src/api/v1alpha1/` + a `KindController` here + one line in
 * `src/controllers/index.ts`.
 */
import type { Logger } from 'pino';
import type { KindDefinition } from '../api/v1alpha1/kind.ts';
import type { ServiceClient } from '../client/index.ts';
import type { AdapterStatus, ManagedAdapter, ManagedObject } from '../managed/external-client.ts';
import type { ObjectReader } from '../managed/kube-objects.ts';
import type { KubeObject } from '../runtime/object-meta.ts';
import type { Request } from '../runtime/reconcile.ts';

/** A reference from one object to a Secret (or ConfigMap) key, used to index watches. */
export interface NamedRef {
  readonly namespace?: string;
  readonly name: string;
}

/** Reads Kubernetes Secrets (values are returned decoded; callers must never log them). */
export interface SecretSource {
  /** All keys of a Secret, decoded to UTF-8; undefined when the Secret does not exist. */
  read(namespace: string, name: string): Promise<Readonly<Record<string, string>> | undefined>;
}

/** Reads ConfigMaps (e.g. CA bundles). */
export interface ConfigMapSource {
  read(namespace: string, name: string): Promise<Readonly<Record<string, string>> | undefined>;
}

/** The connection a resource uses, resolved to an authenticated, shared service client. */
export interface ResolvedConnection {
  readonly client: ServiceClient;
  /** `Connection/<ns>/<name>` or `ClusterConnection/<name>`: stable identity for caches and streams. */
  readonly key: string;
  /** Organization id, when the connection knows it (from its status). */
  readonly organizationId?: string;
  /**
   * Identities no resource may change or delete without `coffer.dev/manage-protected` (an
   * identity some connection authenticates as, the one a Bootstrap created), with the reason.
   */
  readonly protectedIdentities?: ReadonlyMap<string, string>;
}

/** What every kind's adapter factory receives from the operator assembly. */
export interface OperatorServices {
  /**
   * The service client for `obj.spec.connectionRef` (a Connection in the object's namespace, or a
   * ClusterConnection). Throws `WaitingError` (`ReferenceNotReady`) while the connection is not
   * Ready, `TerminalError` (`NamespaceNotAllowed`) when a ClusterConnection does not admit the
   * object's namespace.
   */
  connectionFor(obj: ManagedObject<unknown>): Promise<ResolvedConnection>;
  /** Readers for other kinds (informer caches), by kind name, e.g. `reader('Project')`. */
  reader<T extends KubeObject = KubeObject>(kind: string): ObjectReader<T>;
  readonly secrets: SecretSource;
  readonly configMaps: ConfigMapSource;
  /** Enqueue objects of a kind now (e.g. on a project event). */
  enqueue(kind: string, requests: readonly Request[]): void;
  readonly log: Logger;
  /** Wall clock (injectable in tests). */
  now(): Date;
}

/** Everything the operator assembly needs to run one kind. */
// `any` defaults let heterogeneous kinds share one registry array; each kind's own module is typed.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface KindController<Spec = any, Refs = any, Status extends AdapterStatus = AdapterStatus> {
  readonly definition: KindDefinition;
  /** Builds the adapter once at start-up. */
  createAdapter(services: OperatorServices): ManagedAdapter<Spec, Refs, Status>;
  /**
   * Secrets this object reads (input values, credentials). A change to one of them re-reconciles
   * the object within seconds.
   */
  referencedSecrets?(obj: ManagedObject<Spec>): readonly NamedRef[];
  /** ConfigMaps this object reads. */
  referencedConfigMaps?(obj: ManagedObject<Spec>): readonly NamedRef[];
  /**
   * Other Coffer objects this object depends on, as `{kind, name, namespace?}`: when one of them
   * changes (e.g. becomes Ready), this object is reconciled again at once instead of waiting.
   */
  dependencies?(obj: ManagedObject<Spec>): readonly (NamedRef & { readonly kind: string })[];
  /** Runs beside the controller (e.g. the project-event subscriptions); stopped on shutdown. */
  startBackground?(services: OperatorServices, signal: AbortSignal): void;
}
