/**
 * Connection resolution: from a resource's `spec.connectionRef` (or a Connection object itself)
 * to a cached, authenticated service client.
 *
 * Clients are cached per connection identity and credential version, where the version is the
 * connection's uid and generation plus the resourceVersions of every Secret and ConfigMap it
 * reads and the id of the Identity its login names (`identityRef`, `login-identity.ts`): editing
 * the Connection, rotating its Secret or recreating its Identity builds a new client on the next
 * use; the old one is closed after a grace period (`createClientCache`).
 *
 * Namespace deletion: the namespace controller deletes a Connection and its Secrets together with
 * the resources that use it, so the resources' deletion policies could no longer reach the
 * service. In a namespace being deleted a Connection's current client is therefore frozen (no
 * rebuild when its Secrets go) and, once the Connection is gone, still handed to the resources
 * being deleted there, until the namespace is gone.
 *
 * Deletion of a connection itself: it is held (finalizer `coffer.dev/dependents`, see
 * `../direct/deletion.ts`) while resources using it may still need it to clean up. Meanwhile it
 * serves resources that are being deleted, never live ones (no new or updated objects through a
 * connection on its way out): with its last client, frozen like in a namespace deletion, or, when
 * none is in memory (operator restart), one built from its spec and Secrets as they are. If the
 * credentials are gone too, those resources wait (`ReferenceNotReady`, naming what is missing)
 * until the Secret is back or they are abandoned.
 *
 * ClusterConnection admission is checked for every use except one: a resource being deleted whose
 * object the operator recorded as its own (`status.id`, written only by the operator, equals the
 * `coffer.dev/external-id` annotation) may delete it through the ClusterConnection it names even
 * after its namespace lost admission, so that taking a namespace off a connection never strands
 * what was created through it.
 */
import type { Logger } from 'pino';
import { clusterConnectionSpec, connectionSpec } from '../../api/v1alpha1/index.ts';
import type { RequestInfo } from '../../client/index.ts';
import {
  configMapKeyRefs,
  MissingCredentialsError,
  readCredentials,
  secretKeyRefs,
  type ConnectionSettings,
  type CredentialSources,
} from './credentials.ts';
import { isNamespaceAllowed, NAMESPACE_NOT_ALLOWED } from './admission.ts';
import type { AllowedNamespaces } from './admission.ts';
import type { ResolvedConnection } from '../kind-services.ts';
import { createClientCache, type ClientCache } from '../client-cache.ts';
import type { ManagedObject } from '../external-client.ts';
import type { ObjectReader } from '../kube-objects.ts';
import { ADOPTION_NOT_ALLOWED, isAdopting } from '../ownership.ts';
import { REFERENCE_NOT_READY, type ReferencedObject } from '../references.ts';
import { CONDITION_READY, getCondition } from '../../runtime/conditions.ts';
import { TerminalError, WaitingError } from '../../runtime/errors.ts';
import {
  ANNOTATION_ABANDON,
  ANNOTATION_EXTERNAL_ID,
  getAnnotation,
  isBeingDeleted,
} from '../../runtime/object-meta.ts';
import { ConnectionClientFactory, type ConnectionClient } from './clients.ts';
import { LoginIdentityNotReadyError, loginIdentityId, withLoginIdentity } from './login-identity.ts';
import { managedReasons } from '../reasons.ts';
import { connectionKindOf, type ConnectionKindName } from './kinds.ts';

export type { ConnectionKindName } from './kinds.ts';

/** A Connection or ClusterConnection as read from the cache. */
export type ConnectionObject = ManagedObject<unknown> & {
  status?: { organizationId?: string };
};

/** resourceVersion lookups of Secrets and ConfigMaps (undefined: does not exist). */
export interface PayloadVersions {
  secret(namespace: string, name: string): Promise<string | undefined>;
  configMap(namespace: string, name: string): Promise<string | undefined>;
}

export interface ConnectionResolverOptions {
  readonly readers: Readonly<Record<ConnectionKindName, ObjectReader<ConnectionObject>>>;
  /** Identity resources, for logins naming one by `identityRef` (undefined: such logins wait). */
  readonly identities?: ObjectReader<ReferencedObject>;
  /** Labels of a namespace, undefined when unknown (ClusterConnection admission by selector). */
  readonly namespaceLabels: (namespace: string) => Readonly<Record<string, string>> | undefined;
  readonly versions: PayloadVersions;
  readonly sources: CredentialSources;
  readonly log: Logger;
  readonly onRequest?: (info: RequestInfo) => void;
  /** Requeue while the connection is not Ready. */
  readonly waitRequeueMs: number;
  /** Grace period before a replaced client is closed (default 30 s). */
  readonly closeDelayMs?: number;
  /** True while the namespace is being deleted (default: never; see the module comment). */
  readonly namespaceTerminating?: (namespace: string) => boolean;
}

/** `Connection/<ns>/<name>` or `ClusterConnection/<name>`. */
export function connectionKey(
  kind: ConnectionKindName,
  obj: { metadata: { name: string; namespace?: string } },
) {
  return kind === 'Connection'
    ? `Connection/${obj.metadata.namespace ?? ''}/${obj.metadata.name}`
    : `ClusterConnection/${obj.metadata.name}`;
}

/** The parsed spec of a connection object; throws on an invalid spec. */
export function connectionSettings(kind: ConnectionKindName, obj: ConnectionObject): ConnectionSettings {
  const schema = kind === 'Connection' ? connectionSpec : clusterConnectionSpec;
  return schema.parse(obj.spec);
}

/**
 * Why `user` cannot use a connection (yet), or undefined when it is Ready for its current spec —
 * or being deleted while `user` is too (it is held for that; see the module comment).
 */
function whyNotUsable(connection: ConnectionObject, user: ManagedObject<unknown>): string | undefined {
  if (isBeingDeleted(connection)) return isBeingDeleted(user) ? undefined : 'it is being deleted';
  const ready = getCondition(connection.status?.conditions, CONDITION_READY);
  if (ready?.status !== 'True') {
    // Quote why (e.g. the service's login refusal), so the resources using it say it too.
    return ready?.reason && ready.message
      ? `it is not Ready (${ready.reason}: ${ready.message})`
      : 'it is not Ready';
  }
  if (ready.observedGeneration !== connection.metadata.generation)
    return 'its latest spec is not verified yet';
  // Ready for this generation means the connection controller parsed this very spec.
  return undefined;
}

/**
 * True for a resource being deleted whose external id the operator recorded as its own: the
 * annotation and `status.id` (written only by the operator) agree.
 */
function isCleaningUpOwnObject(obj: ManagedObject<unknown>): boolean {
  const id = getAnnotation(obj, ANNOTATION_EXTERNAL_ID);
  return isBeingDeleted(obj) && id !== undefined && obj.status?.id === id;
}

/**
 * Explicit adoption through a ClusterConnection (ownership.ts, rule 3): only from the namespaces
 * its `spec.adoption.allowedNamespaces` admits, so that one tenant cannot point a resource at
 * another tenant's objects.
 */
function checkAdoption(
  connection: ConnectionObject,
  namespace: string,
  labels: Readonly<Record<string, string>> | undefined,
): void {
  const adoption = (connection.spec as { adoption?: { allowedNamespaces?: AllowedNamespaces } } | undefined)
    ?.adoption?.allowedNamespaces;
  if (adoption && isNamespaceAllowed(adoption, namespace, labels)) return;
  throw new TerminalError(
    ADOPTION_NOT_ALLOWED,
    `ClusterConnection ${connection.metadata.name} does not allow resources in namespace ${namespace} to adopt ` +
      `existing objects (the ${ANNOTATION_EXTERNAL_ID} annotation names an object this resource did not create): ` +
      'an administrator can add the namespace to spec.adoption.allowedNamespaces, or remove the annotation',
  );
}

interface ConnectionRef {
  readonly kind: ConnectionKindName;
  readonly name: string;
}

function connectionRefOf(obj: ManagedObject<unknown>): ConnectionRef {
  const ref = (obj.spec as { connectionRef?: { kind?: string; name?: string } } | undefined)?.connectionRef;
  if (!ref?.name)
    throw new TerminalError(
      managedReasons.names.InvalidSpec,
      'invalid spec: spec.connectionRef.name is required',
    );
  const kind = connectionKindOf(ref);
  if (kind === 'Connection' && !obj.metadata.namespace) {
    throw new TerminalError(
      managedReasons.names.InvalidSpec,
      'invalid spec: a cluster-scoped resource must reference a ClusterConnection',
    );
  }
  return { kind, name: ref.name };
}

/** ReferenceNotReady for `obj`; a resource being deleted is told how to let go without the service. */
function waitingFor(
  obj: ManagedObject<unknown>,
  ref: ConnectionRef,
  why: string,
  requeueMs: number,
): WaitingError {
  const hint = isBeingDeleted(obj)
    ? `; to finish the deletion without the service, set ${ANNOTATION_ABANDON}: "true"`
    : '';
  return new WaitingError(
    REFERENCE_NOT_READY,
    `waiting for ${ref.kind} ${ref.name}: ${why}${hint}`,
    requeueMs,
  );
}

/** The namespace of a `Connection/<ns>/<name>` key; undefined for a ClusterConnection. */
function namespaceOfKey(key: string): string | undefined {
  const [kind, namespace] = key.split('/');
  return kind === 'Connection' ? namespace : undefined;
}

/** Resolves connections and owns the client cache. */
export class ConnectionResolver {
  private readonly o: ConnectionResolverOptions;
  private readonly factory: ConnectionClientFactory;
  private readonly cache: ClientCache<ConnectionClient>;
  /** Organization of each connection at its last resolution (the fallback needs it). */
  private readonly organizations = new Map<string, string | undefined>();
  /** Connections deleted with their namespace whose client is kept for its resources. */
  private readonly kept = new Set<string>();
  /** How long a connection waiting for something a watch announces requeues (the operator's). */
  readonly waitRequeueMs: number;

  constructor(options: ConnectionResolverOptions) {
    this.o = options;
    this.waitRequeueMs = options.waitRequeueMs;
    this.factory = new ConnectionClientFactory({ log: options.log, onRequest: options.onRequest });
    this.cache = createClientCache<ConnectionClient>({
      close: (c) => c.client.close(),
      closeDelayMs: options.closeDelayMs,
      log: options.log,
    });
  }

  /**
   * The client of a connection object, built from its current spec, Secrets and login Identity
   * (no readiness check of the connection itself: the connection controllers use this to verify
   * the credentials). Throws `LoginIdentityNotReadyError` while an `identityRef` is not usable.
   */
  async clientFor(
    kind: ConnectionKindName,
    obj: ConnectionObject,
    settings: ConnectionSettings = connectionSettings(kind, obj),
  ): Promise<ConnectionClient> {
    const key = connectionKey(kind, obj);
    const namespace = kind === 'Connection' ? obj.metadata.namespace : undefined;
    // The namespace controller deleting a Connection's Secrets is no rotation, and a rebuild would
    // fail: in a namespace being deleted, and for a connection being deleted, the current client
    // serves to the end.
    const freeze = isBeingDeleted(obj) || (namespace !== undefined && this.isTerminating(namespace));
    const current = freeze ? this.cache.peek(key) : undefined;
    const frozen = await current?.catch(() => undefined);
    if (frozen) return frozen;
    const resolved = await withLoginIdentity(obj, settings, {
      identities: this.o.identities,
      waitRequeueMs: this.o.waitRequeueMs,
    });
    const credentialVersion = await this.credentialVersion(obj, resolved, namespace);
    return this.cache.get({ connection: key, credentialVersion }, async () => {
      const credentials = await readCredentials(resolved, namespace, this.o.sources);
      return this.factory.build({
        key,
        url: resolved.url,
        credentials,
        ...(resolved.requestsPerMinute ? { requestsPerMinute: resolved.requestsPerMinute } : {}),
      });
    });
  }

  /** See `OperatorServices.connectionFor`. */
  async connectionFor(obj: ManagedObject<unknown>): Promise<ResolvedConnection> {
    this.dropKeptOfGoneNamespaces();
    const ref = connectionRefOf(obj);
    const namespace = ref.kind === 'Connection' ? obj.metadata.namespace : undefined;
    const connection = await this.o.readers[ref.kind].get(namespace ? { namespace, name: ref.name } : ref);
    if (connection && ref.kind === 'ClusterConnection') this.checkAdmission(connection, obj);
    const notReady = connection ? whyNotUsable(connection, obj) : 'it does not exist';
    if (notReady || !connection) {
      const last = await this.lastClientForNamespaceDeletion(obj, ref);
      if (last) return last;
      throw waitingFor(obj, ref, notReady ?? 'it does not exist', this.o.waitRequeueMs);
    }
    const settings = connectionSettings(ref.kind, connection);
    const { client } = await this.clientForUser(ref, connection, settings, obj);
    const organizationId = connection.status?.organizationId;
    const key = connectionKey(ref.kind, connection);
    this.organizations.set(key, organizationId);
    return { client, key, ...(organizationId ? { organizationId } : {}) };
  }

  /**
   * `clientFor` for a resource using `connection`. A connection being deleted whose credentials
   * are gone makes the resource wait (it is the resource's deletion that needs them).
   */
  private async clientForUser(
    ref: ConnectionRef,
    connection: ConnectionObject,
    settings: ConnectionSettings,
    user: ManagedObject<unknown>,
  ): Promise<ConnectionClient> {
    try {
      return await this.clientFor(ref.kind, connection, settings);
    } catch (error) {
      // The connection's own reconcile reports it too (its Identity's change wakes it).
      if (error instanceof LoginIdentityNotReadyError)
        throw waitingFor(user, ref, `it cannot log in yet (${error.message})`, this.o.waitRequeueMs);
      if (!(error instanceof MissingCredentialsError) || !isBeingDeleted(connection)) throw error;
      const why = `it is being deleted and its credentials are gone (${error.message})`;
      throw waitingFor(user, ref, why, this.o.waitRequeueMs);
    }
  }

  /**
   * Drops and closes the client of a deleted connection — unless the Connection went with its
   * namespace: then the client is kept for the namespace's resources until the namespace is gone.
   */
  invalidate(key: string): void {
    this.dropKeptOfGoneNamespaces();
    const namespace = namespaceOfKey(key);
    if (namespace && this.isTerminating(namespace) && this.cache.peek(key)) {
      this.kept.add(key);
      return;
    }
    this.drop(key);
  }

  private drop(key: string): void {
    this.kept.delete(key);
    this.organizations.delete(key);
    this.cache.invalidate(key);
    this.factory.forget(key);
  }

  private isTerminating(namespace: string): boolean {
    return this.o.namespaceTerminating?.(namespace) ?? false;
  }

  private dropKeptOfGoneNamespaces(): void {
    for (const key of this.kept) if (!this.isTerminating(namespaceOfKey(key) ?? '')) this.drop(key);
  }

  /** The last client of a Connection gone with its namespace, for a resource being deleted there. */
  private async lastClientForNamespaceDeletion(
    obj: ManagedObject<unknown>,
    ref: ConnectionRef,
  ): Promise<ResolvedConnection | undefined> {
    const namespace = obj.metadata.namespace;
    if (ref.kind !== 'Connection' || !namespace || !isBeingDeleted(obj) || !this.isTerminating(namespace))
      return undefined;
    const key = connectionKey('Connection', { metadata: { name: ref.name, namespace } });
    const cached = this.cache.peek(key);
    const client = cached ? await cached.catch(() => undefined) : undefined;
    if (!client) return undefined;
    const organizationId = this.organizations.get(key);
    return { client: client.client, key, ...(organizationId ? { organizationId } : {}) };
  }

  /** Closes every client. */
  close(): Promise<void> {
    return this.cache.close();
  }

  private checkAdmission(connection: ConnectionObject, obj: ManagedObject<unknown>): void {
    const namespace = obj.metadata.namespace;
    if (!namespace) return; // Cluster-scoped resources may always use a ClusterConnection.
    if (isCleaningUpOwnObject(obj)) return; // See the module comment.
    const allowed = (connection.spec as { allowedNamespaces?: AllowedNamespaces } | undefined)
      ?.allowedNamespaces;
    const labels = this.o.namespaceLabels(namespace);
    if (allowed && isNamespaceAllowed(allowed, namespace, labels)) {
      if (isAdopting(obj)) checkAdoption(connection, namespace, labels);
      return;
    }
    throw new TerminalError(
      NAMESPACE_NOT_ALLOWED,
      `ClusterConnection ${connection.metadata.name} does not allow namespace ${namespace}: ` +
        'add it to spec.allowedNamespaces (names or selector) or use a Connection in this namespace',
    );
  }

  private async credentialVersion(
    obj: ConnectionObject,
    settings: ConnectionSettings,
    namespace: string | undefined,
  ): Promise<string> {
    const versions = await Promise.all([
      ...secretKeyRefs(settings, namespace).map((r) => this.o.versions.secret(r.namespace, r.name)),
      ...configMapKeyRefs(settings, namespace).map((r) => this.o.versions.configMap(r.namespace, r.name)),
    ]);
    return [
      obj.metadata.uid ?? '',
      String(obj.metadata.generation ?? 0),
      ...versions.map((v) => v ?? '-'),
      // The Identity an identityRef names may be recreated with a new id.
      loginIdentityId(settings) ?? '-',
    ].join('/');
  }
}
