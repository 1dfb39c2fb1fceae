/**
 * The identity a Kubernetes, JWT or OIDC login names by reference (`identityRef`), resolved to
 * the Identity resource's `status.id` before the connection's client is built: a Connection's
 * Identity lives in the Connection's namespace, a ClusterConnection's names its namespace.
 *
 * Resolution is the managed kinds' (`../references.ts`): outside deletion the Identity must
 * exist, not be being deleted, be `Ready=True` and have an id, else `LoginIdentityNotReadyError`
 * (reason `ReferenceNotReady`, naming the field and the Identity); a connection being deleted
 * takes any recorded id. The id becomes part of the client's credential version, so an Identity
 * recreated with a new id gets a new client.
 */
import type { ObjectReader } from '../kube-objects.ts';
import { REFERENCE_NOT_READY, resolveReference, type ReferencedObject } from '../references.ts';
import { WaitingError } from '../../runtime/errors.ts';
import { isBeingDeleted, type KubeObject } from '../../runtime/object-meta.ts';
import type { ConnectionSettings } from './credentials.ts';
import { loginIdentityKind } from './kinds.ts';
import { serviceAccountLoginOf } from './service-account-credentials.ts';

/** The Identity a login names is not usable (yet): missing, being deleted, not Ready or without id. */
export class LoginIdentityNotReadyError extends WaitingError {}

export interface LoginIdentityOptions {
  /** Reads Identity resources; undefined when the operator does not run the Identity kind. */
  readonly identities: ObjectReader<ReferencedObject> | undefined;
  /** Requeue while the Identity is not usable. */
  readonly waitRequeueMs: number;
}

/**
 * `settings` with the `identityRef` of its ServiceAccount login replaced by the Identity's id
 * (unchanged when no login names an Identity). `connection` is the Connection or
 * ClusterConnection; throws `LoginIdentityNotReadyError` while the Identity is not usable.
 */
export async function withLoginIdentity(
  connection: KubeObject,
  settings: ConnectionSettings,
  options: LoginIdentityOptions,
): Promise<ConnectionSettings> {
  const found = serviceAccountLoginOf(settings.auth);
  const ref = found?.login.identityRef;
  if (!found || !ref) return settings;
  const field = `spec.auth.${found.method}.identityRef`;
  const namespace = ref.namespace ?? connection.metadata?.namespace;
  if (!options.identities || !namespace) {
    const why = options.identities ? 'it names no namespace' : 'this operator does not run the Identity kind';
    throw new LoginIdentityNotReadyError(
      REFERENCE_NOT_READY,
      `${field}: cannot resolve Identity ${ref.name}: ${why}`,
      options.waitRequeueMs,
    );
  }
  let identityId: string;
  try {
    ({ externalId: identityId } = await resolveReference({
      reader: options.identities,
      kind: loginIdentityKind,
      from: connection,
      ref: { name: ref.name, namespace },
      // A ClusterConnection (no namespace of its own) names the Identity's namespace.
      allowCrossNamespace: connection.metadata?.namespace === undefined,
      context: { deleting: isBeingDeleted(connection), waitRequeueMs: options.waitRequeueMs },
    }));
  } catch (error) {
    if (!(error instanceof WaitingError)) throw error;
    throw new LoginIdentityNotReadyError(error.reason, `${field}: ${error.message}`, error.requeueAfterMs);
  }
  const { identityRef: _ref, ...login } = found.login;
  return { ...settings, auth: { ...settings.auth, [found.method]: { ...login, identityId } } };
}

/** Whether a login of `settings` names its identity by `identityRef` (an Identity resource). */
export function logsInByIdentityRef(settings: ConnectionSettings): boolean {
  return serviceAccountLoginOf(settings.auth)?.login.identityRef !== undefined;
}

/** The identity id a login of `settings` uses (after `withLoginIdentity`), for credential versions. */
export function loginIdentityId(settings: ConnectionSettings): string | undefined {
  return serviceAccountLoginOf(settings.auth)?.login.identityId;
}
