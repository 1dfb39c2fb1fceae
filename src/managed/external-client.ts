/**
 * The contract between the generic managed reconciler and a kind's adapter (after
 * crossplane-runtime's ExternalClient). The adapter only translates: spec → service request,
 * service response → status, "is it up to date?". Everything else (finalizers, crash-safe create,
 * conditions, events, Secrets, requeue) is the reconciler's job.
 *
 * Errors: adapters let service-client errors propagate unchanged; the reconciler classifies them
 * by their HTTP `status` (see `service-errors.ts`). An adapter may also throw the runtime's
 * `TerminalError` / `WaitingError` with its own CamelCase reason.
 *
 * Secret hygiene: nothing an adapter returns outside `secretData` may contain a secret value
 * (`status` and `diff` end up in the resource's status, events and logs).
 */
import type { Logger } from 'pino';
import type { Condition } from '../runtime/conditions.ts';
import type { EventInput } from '../runtime/events.ts';
import type { KubeObject, ObjectMeta } from '../runtime/object-meta.ts';
import type { SecretOutput } from '../runtime/secret-writer.ts';
import type { Reason } from '../runtime/reasons.ts';

/** Adapter-specific status fields, merged into `status` beside the generic ones. */
export type AdapterStatus = Readonly<Record<string, unknown>>;

/** Spec fields the generic reconciler reads from every managed kind (all optional). */
export interface ManagedSpecFields {
  /** The connection the resource uses; a ClusterConnection makes adoption subject to its rules. */
  readonly connectionRef?: { readonly kind?: string; readonly name?: string };
  /** `Delete` (default per kind) or `Orphan`. */
  readonly deletionPolicy?: string;
  /** `ObserveOnly` never writes to the service; anything else (`Default`) manages fully. */
  readonly managementPolicy?: string;
  /** Go duration; overrides the operator-wide poll interval. */
  readonly pollInterval?: string;
}

/** The generic part of every managed kind's status. */
export interface ManagedStatus {
  /** External id (also in the `coffer.dev/external-id` annotation). */
  id?: string;
  /**
   * The external id of the object this resource created itself (not adopted), recorded by the
   * operator right after the create; an object it created stays its to manage (`ownership.ts`).
   */
  createdId?: string;
  /**
   * The operator's half of the create-pending mark (RFC 3339), set just before a create and
   * cleared once the id is recorded; trusted only beside the same annotation (`create-mark.ts`).
   */
  createPending?: string;
  observedGeneration?: number;
  conditions?: Condition[];
  /** The last `coffer.dev/reconcile-requested-at` value handled. */
  lastHandledReconcileAt?: string;
  [field: string]: unknown;
}

/** A managed resource as the reconciler hands it to the adapter: `spec` is parsed and defaulted. */
export interface ManagedObject<Spec = Record<string, unknown>> {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta & { name: string };
  spec: Spec;
  status?: ManagedStatus;
}

/** What every adapter call receives. */
export interface ExternalContext<Refs> {
  /** The external id, once known (annotation `coffer.dev/external-id`). */
  readonly externalId?: string;
  /** What `resolveReferences` returned. */
  readonly references: Refs;
  /** Aborted on shutdown or loss of leadership; pass it to service calls. */
  readonly signal: AbortSignal;
  readonly log: Logger;
  /**
   * Sets (string) or removes (null) annotations of the resource itself, with a patch guarded by
   * the resourceVersion of the resource as this reconcile last read or wrote it. If the read was
   * stale or anyone wrote since, nothing is written and it throws `ConflictError` (the reconcile
   * is retried at once, on a fresher read). For a mark that must be stored before a side effect
   * that must not happen twice (an issued credential); `what` names the write in that error.
   */
  readonly annotate: (changes: Readonly<Record<string, string | null>>, what: string) => Promise<void>;
}

/** Context of calls that address an existing object (`update`, `delete`). */
export interface BoundContext<Refs> extends ExternalContext<Refs> {
  readonly externalId: string;
}

/** Output Secrets to publish (written through the SecretWriter, owned by the resource). */
export type SecretOutputs = readonly SecretOutput[];

/** The answer of `observe`. */
export type Observation<Status extends AdapterStatus = AdapterStatus> =
  | { readonly exists: false }
  | {
      readonly exists: true;
      /** False when the service object differs from the spec (the reconciler then calls `update`). */
      readonly upToDate: boolean;
      /**
       * The id, when the adapter found the object without one (by natural key); the reconciler
       * records it in the annotation (adoption).
       */
      readonly externalId?: string;
      readonly status?: Status;
      readonly secretData?: SecretOutputs;
      /** What differs, for the `UpdatedExternal` event (names of fields, never values of secrets). */
      readonly diff?: string;
    };

/** A service object found by natural key. */
export interface NaturalKeyMatch {
  readonly id: string;
  /** RFC 3339 creation time, when the service reports it. */
  readonly createdAt?: string | undefined;
}

/** The answer of `create`. */
export interface Creation<Status extends AdapterStatus = AdapterStatus> {
  readonly externalId: string;
  readonly status?: Status;
  readonly secretData?: SecretOutputs;
  /**
   * Kind-specific events recorded once, after `CreatedExternal` (e.g. a notice that the service
   * marks the endpoint deprecated). Messages must not contain secret values.
   */
  readonly events?: readonly EventInput[];
}

/** The answer of `update`. */
export interface Update<Status extends AdapterStatus = AdapterStatus> {
  readonly status?: Status;
  readonly secretData?: SecretOutputs;
}

/** A reason (CamelCase) and message for `Ready=False` although the object exists. */
export interface NotReady {
  readonly reason: Reason;
  readonly message: string;
}

/** Why an object a resource would write to is protected, and which resource may have created it. */
export interface Protection {
  /** Why, e.g. "identity X is the identity Connection a/b authenticates as". */
  readonly reason: string;
  /** The id of the protected object (the identity). */
  readonly id: string;
  /**
   * The resource whose `status.createdId` says whether Coffer created the protected object for
   * it: the resource itself, or the resource it acts through (the Identity its `identityRef`
   * names). Undefined when that resource is not at hand (gone while a dependent is deleted).
   */
  readonly creator: Creator | undefined;
}

/** A resource as `Protection.creator` needs it (a managed resource, or one read from a cache). */
export interface Creator extends KubeObject {
  readonly status?: Pick<ManagedStatus, 'createdId'>;
}

/** Talks to the service for one kind. Obtained per reconcile from `ManagedAdapter.connect`. */
export interface ExternalClient<Spec, Refs, Status extends AdapterStatus = AdapterStatus> {
  /** Reads the service object (by `ctx.externalId`, or by natural key when it has none). */
  observe(obj: ManagedObject<Spec>, ctx: ExternalContext<Refs>): Promise<Observation<Status>>;
  /** Creates the service object. Called only after `observe` said it does not exist. */
  create(obj: ManagedObject<Spec>, ctx: ExternalContext<Refs>): Promise<Creation<Status>>;
  /** Makes the service object match the spec. Called only when `observe` said `upToDate: false`. */
  update(obj: ManagedObject<Spec>, ctx: BoundContext<Refs>): Promise<Update<Status>>;
  /** Deletes the service object. A 404 (already gone) may be thrown or swallowed: both are success. */
  delete(obj: ManagedObject<Spec>, ctx: BoundContext<Refs>): Promise<void>;
  /**
   * Service objects matching the resource's natural key (slug, name...), with their creation
   * times when the service reports them. Used after an interrupted create: a single match created
   * after the create-pending mark is adopted; any other match is not this resource's.
   */
  findByNaturalKey(obj: ManagedObject<Spec>, ctx: ExternalContext<Refs>): Promise<readonly NaturalKeyMatch[]>;
  /**
   * Optional: the protection of the object this resource writes to (e.g. the identity a
   * Connection authenticates as), or undefined when it is not protected. Consulted only before a
   * create, update or delete; the rule is `ownership.ts`'s (rule 4). Build it with
   * `identityProtection` (below).
   */
  protection?(obj: ManagedObject<Spec>, ctx: ExternalContext<Refs>): Protection | undefined;
  /**
   * Optional, for objects whose id follows from the spec and references and whose `create` may
   * run twice without harm (a folder of keys): the id `create` will return. The reconciler then
   * records it with the finalizer before calling `create`, instead of a create-pending mark
   * before and the id after (one Kubernetes write fewer). A create interrupted after that write
   * is finished by the next reconcile's `observe` and `update`, which see the recorded id.
   */
  idBeforeCreate?(obj: ManagedObject<Spec>, ctx: ExternalContext<Refs>): string;
  /** Optional: a reason the existing object is not Ready (e.g. `Expired`); undefined when Ready. */
  readyCheck?(obj: ManagedObject<Spec>, status: Status | undefined): NotReady | undefined;
  /**
   * Optional: milliseconds until the adapter wants to look again, when sooner than the poll
   * interval (a credential rotation, an expiry); undefined for the normal poll.
   */
  requeueAfterMs?(obj: ManagedObject<Spec>, status: Status | undefined): number | undefined;
  /**
   * Optional: whether a failed delete was refused by the service's deletion protection. Default:
   * the client classified the answer as `DeletionBlockedError`.
   */
  isDeletionBlocked?(error: unknown): boolean;
}

/** What `resolveReferences` receives. */
export interface ResolveContext {
  /** True while the resource is being deleted: dependencies need an id but need not be Ready. */
  readonly deleting: boolean;
  /** The fixed requeue for `WaitingError`s (see `references.ts`). */
  readonly waitRequeueMs: number;
  readonly signal: AbortSignal;
  readonly log: Logger;
}

/** A kind's adapter: how to resolve its references and obtain an external client. */
export interface ManagedAdapter<Spec, Refs, Status extends AdapterStatus = AdapterStatus> {
  /**
   * Resolves references (e.g. `projectRef` → project id). Throw `WaitingError` with reason
   * `ReferenceNotReady` when a dependency is not Ready (see `resolveReference`). Omitted: the
   * references are `undefined`.
   */
  resolveReferences?(obj: ManagedObject<Spec>, ctx: ResolveContext): Promise<Refs>;
  /**
   * Returns the external client for this object, typically wrapping the cached service client of
   * its connection (see `client-cache.ts`). Throw `WaitingError` while the connection is not Ready.
   */
  connect(obj: ManagedObject<Spec>, ctx: ExternalContext<Refs>): Promise<ExternalClient<Spec, Refs, Status>>;
}

/** The natural-key match of a service object that reports its id and, maybe, its creation time. */
export function naturalKeyMatch(object: {
  readonly id: string;
  readonly createdAt?: string | undefined;
}): NaturalKeyMatch {
  return object.createdAt === undefined ? { id: object.id } : { id: object.id, createdAt: object.createdAt };
}

/**
 * The protection of identity `id` (undefined when `protectedIdentities` does not name it), with
 * the resource that may have created it: the resource itself for an Identity, the Identity its
 * `identityRef` names for a kind acting on an identity.
 */
export function identityProtection(
  protectedIdentities: ReadonlyMap<string, string> | undefined,
  id: string | undefined,
  creator: Creator | undefined,
): Protection | undefined {
  const reason = id === undefined ? undefined : protectedIdentities?.get(id);
  return id !== undefined && reason !== undefined ? { reason, id, creator } : undefined;
}
