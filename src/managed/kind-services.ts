/**
 * What the operator assembly hands every kind (managed and direct): the services contract.
 * Defined here, below the controllers, so the generic reconcilers and the connection resolver can
 * name it; `src/controllers/kind-controller.ts` re-exports it for the kinds.
 */
import type { Logger } from 'pino';
import type { ServiceClient } from '../client/index.ts';
import type { ClusterIdentity } from '../runtime/cluster-identity.ts';
import type { KubeObject } from '../runtime/object-meta.ts';
import type { Request } from '../runtime/reconcile.ts';
import type { ManagedObject } from './external-client.ts';
import type { ObjectReader } from './kube-objects.ts';

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

/**
 * Kubernetes ServiceAccount tokens for the Kubernetes, JWT and OIDC logins of connections
 * (implemented on the operator floor). Failures throw `ServiceAccountTokenError`
 * (`connections/service-account-token.ts`) naming the file or ServiceAccount, never a token.
 */
export interface ServiceAccountTokenService {
  /** A token from the TokenRequest API (`serviceaccounts/token` create) for `namespace/name`. */
  request(
    namespace: string,
    name: string,
    options: { readonly audiences: readonly string[]; readonly expirationSeconds: number },
  ): Promise<string>;
  /**
   * The content of a projected token file (re-read on each call), only from the operator's
   * projected-token directory (also once symlinks are resolved; `TokenSourceNotAllowed` otherwise)
   * and only a small regular file (`InvalidTokenFile` otherwise); never read in whole before that.
   */
  readProjected(path: string): Promise<string>;
  /**
   * True when the Kubernetes API server authenticates `token` for its own audiences (a TokenReview
   * without audiences): such a token must never leave the cluster.
   */
  acceptedByApiServer(token: string): Promise<boolean>;
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
  /** The operator's own API server and ServiceAccount issuer (public material only). */
  readonly cluster: ClusterIdentity;
  /** Enqueue objects of a kind now (e.g. on a project event). */
  enqueue(kind: string, requests: readonly Request[]): void;
  readonly log: Logger;
  /** Wall clock (injectable in tests). */
  now(): Date;
}
