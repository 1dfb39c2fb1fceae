/**
 * Kinds that do not mirror a service object (their registration says `reconciler: 'direct'`) are
 * reconciled by a small dedicated reconciler (`reconciler.ts`) instead of the managed one:
 * they have no external id and no deletion policy. Their status has the same shape as every other
 * kind's: `Ready` and `Synced` conditions with `observedGeneration`.
 *
 * A kind `heldByDependents` (Connection, ClusterConnection) carries the finalizer
 * `coffer.dev/dependents`, added before its first sync: once deleted, it stays until no managed
 * resource referring to it through `spec.connectionRef` holds Coffer's finalizer any more (see
 * `deletion.ts`), so those resources can still clean up in the service.
 *
 * A kind whose sync takes hold of something outside its object (`DirectSync.release`) carries
 * Coffer's finalizer `coffer.dev/finalizer` while it may, and lets go before it goes.
 *
 * A direct kind supplies a `sync` that looks at the world and says what Ready (and, for expected
 * failures such as rejected credentials, Synced) should be. Unexpected failures are thrown and
 * classified like the managed reconciler's (`Synced=False`, Ready unchanged).
 */
import type { KindDefinition } from '../../api/v1alpha1/kind.ts';
import type { NamedRef, OperatorServices } from '../kind-services.ts';
import type { AdapterStatus, ManagedObject } from '../external-client.ts';
import type { EventInput } from '../../runtime/events.ts';
import type { Request } from '../../runtime/reconcile.ts';
import type { KubeObject } from '../../runtime/object-meta.ts';
import type { KubeCoreApi, KubeCustomObjectsApi } from '../../runtime/kube-clients.ts';
import type { KubeRequest } from '../../runtime/kube-request.ts';
import type { SecretWriter } from '../../runtime/secret-writer.ts';
import type { ConditionState } from '../run.ts';
import type { ConnectionResolver } from '../connections/resolver.ts';

export type { ConditionState } from '../run.ts';

/** What one sync concluded. */
export interface DirectOutcome<Status extends AdapterStatus = AdapterStatus> {
  readonly ready: ConditionState;
  /** Default: `Synced=True` reason `ReconcileSuccess`. */
  readonly synced?: ConditionState;
  /** Kind-specific status fields; they replace the previous ones. Undefined keeps them. */
  readonly status?: Status;
  /** The `status.id` to record (undefined keeps the stored one). */
  readonly id?: string;
  /** Requeue after this long; default the poll interval, `null` for no requeue. */
  readonly requeueAfterMs?: number | null;
  /** The requeued sync must start within this long (see `Result.requeueBeforeMs`). */
  readonly requeueBeforeMs?: number;
  /** Normal events to record once status is written. */
  readonly events?: readonly EventInput[];
}

/** Per-sync context. */
export interface DirectContext {
  readonly signal: AbortSignal;
  readonly log: OperatorServices['log'];
  readonly now: Date;
}

/**
 * Something a direct kind takes hold of outside its object that must be let go when the object is
 * deleted (a WorkloadSecret's adopted targets). While `holds` says so, the reconciler adds Coffer's
 * finalizer (`coffer.dev/finalizer`) before the sync; once the object is being deleted it runs
 * `release` and then removes the finalizer — without `release` when `coffer.dev/abandon: "true"`
 * is set, and not at all while `coffer.dev/paused: "true"` is.
 */
export interface DirectRelease<Spec> {
  /** True when `obj` (spec parsed) may take hold of something: it needs the finalizer. */
  holds(obj: ManagedObject<Spec>): boolean;
  /** Lets go of everything `obj` holds; safe to repeat (a failure is retried with backoff). */
  release(obj: ManagedObject<unknown>, ctx: DirectContext): Promise<void>;
}

/** The reconcile logic of one direct kind. */
export interface DirectSync<Spec, Status extends AdapterStatus = AdapterStatus> {
  sync(obj: ManagedObject<Spec>, ctx: DirectContext): Promise<DirectOutcome<Status>>;
  /** The object no longer exists: release what was held for it (e.g. a cached client). */
  forget?(request: Request): void;
  /** What must be let go when the object is deleted (see `DirectRelease`). */
  readonly release?: DirectRelease<Spec>;
}

/** What direct kinds receive besides the common services. */
export interface DirectServices extends OperatorServices {
  readonly connections: ConnectionResolver;
  /** Writes Secrets owned by the resource (cache fast path included). */
  readonly secretWriter: SecretWriter;
  readonly customObjects: KubeCustomObjectsApi;
  readonly core: KubeCoreApi;
  readonly defaultPollIntervalMs: number;
  /** One authenticated JSON request to the API server (e.g. apps/v1 workloads a kind restarts). */
  kubeRequest(req: KubeRequest): Promise<unknown>;
  /**
   * A Secret or ConfigMap as the operator's informer cache holds it: metadata, type and the
   * `dataHash` of its decoded data, never values (undefined when not cached). Lets a kind see
   * that an object it writes is up to date without a GET.
   */
  cachedPayload?(kind: 'Secret' | 'ConfigMap', namespace: string, name: string): CachedPayload | undefined;
}

/** See `DirectServices.cachedPayload`. */
export interface CachedPayload extends KubeObject {
  readonly type?: string;
  /** `dataHash` (runtime/secret-writer.ts) of the decoded data. */
  readonly dataHash: string;
}

/** A direct kind, registered by the operator assembly beside the managed kinds. */
// `any` defaults let heterogeneous kinds share one array; each kind's own module is typed.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface DirectKindController<Spec = any, Status extends AdapterStatus = AdapterStatus> {
  readonly definition: KindDefinition;
  createSync(services: DirectServices): DirectSync<Spec, Status>;
  referencedSecrets?(obj: ManagedObject<Spec>): readonly NamedRef[];
  referencedConfigMaps?(obj: ManagedObject<Spec>): readonly NamedRef[];
  /** Kinds whose objects this kind creates and owns (e.g. Bootstrap → Connection): watched by owner. */
  readonly ownedKinds?: readonly string[];
  /**
   * True for kinds with a `spec.connectionRef`: a change of that connection reconciles them at once.
   * Filled in from the kind's declared references (`src/controllers/index.ts`), like `dependencies`.
   */
  readonly usesConnection?: boolean;
  /** Objects this one depends on (e.g. a Project): their readiness changes reconcile it at once. */
  dependencies?(obj: ManagedObject<Spec>): readonly (NamedRef & { readonly kind: string })[];
  /** Normal event reasons recorded under the routine budget (e.g. a delivery). */
  readonly routineEvents?: readonly string[];
  /**
   * Annotations the sync writes on its own object for its own bookkeeping (a mark before a lease
   * is issued): a change of them alone does not reconcile the object again.
   */
  readonly bookkeepingAnnotations?: readonly string[];
  /** True for connection kinds: deletion waits for the resources that use it (module comment). */
  readonly heldByDependents?: boolean;
  /** Background work while leading (e.g. event streams); stops when `signal` aborts. */
  startBackground?(services: DirectServices, signal: AbortSignal): void;
}

/** The finalizer of `heldByDependents` kinds. */
export const DEPENDENTS_FINALIZER = 'coffer.dev/dependents';
