/**
 * The Kubernetes, JWT and OIDC logins of a Connection or ClusterConnection: which identity, and
 * the supplier of the ServiceAccount token to present (see `service-account-token.ts`).
 *
 * Rules decided for security (docs/kinds/connection.md):
 * - `projected` is the operator's own identity: a ClusterConnection (made by a cluster
 *   administrator) may use it, a Connection only in the operator's own namespace; the file must
 *   lie in the operator's projected-token directory and hold a JWT for the connection's
 *   `projected.audience` (checked when it is read: `service-account-token.ts`);
 * - a Connection's `serviceAccountRef` names a ServiceAccount of its own namespace (its schema has
 *   no namespace field); a ClusterConnection's names its namespace.
 */
import { jwtLoginMethods, type JwtLoginMethod } from '../../client/index.ts';
import type { ServiceAccountLogin } from '../../api/v1alpha1/index.ts';
import type { AuthCredentials, CredentialSources } from './credentials.ts';
import {
  ServiceAccountTokenError,
  serviceAccountTokenSupplier,
  type TokenSource,
} from './service-account-token.ts';

/** The spec's `auth`, as far as these logins are concerned. */
type SpecAuth = Partial<Record<JwtLoginMethod, ServiceAccountLogin>>;

/** The configured login of these three, if any. */
export function serviceAccountLoginOf(
  auth: SpecAuth,
): { readonly method: JwtLoginMethod; readonly login: ServiceAccountLogin } | undefined {
  for (const method of jwtLoginMethods) {
    const login = auth[method];
    if (login) return { method, login };
  }
  return undefined;
}

/**
 * Where the token of `login` comes from. `namespace` is the Connection's (undefined for a
 * ClusterConnection). Throws `ServiceAccountTokenError` (`TokenSourceNotAllowed`) for a projected
 * token outside the operator's namespace.
 */
export function tokenSourceOf(
  method: JwtLoginMethod,
  login: ServiceAccountLogin,
  namespace: string | undefined,
  operatorNamespace: string | undefined,
): TokenSource {
  const { projected, serviceAccountRef } = login.serviceAccountToken;
  if (serviceAccountRef) {
    const ns = serviceAccountRef.namespace ?? namespace;
    if (!ns) {
      throw new ServiceAccountTokenError(
        'TokenSourceNotAllowed',
        `spec.auth.${method}.serviceAccountToken.serviceAccountRef has no namespace`,
      );
    }
    return {
      kind: 'serviceAccount',
      namespace: ns,
      name: serviceAccountRef.name,
      audiences: serviceAccountRef.audiences,
      expirationSeconds: serviceAccountRef.expirationSeconds,
    };
  }
  if (!projected) {
    throw new ServiceAccountTokenError(
      'TokenSourceNotAllowed',
      `spec.auth.${method}.serviceAccountToken sets neither projected nor serviceAccountRef`,
    );
  }
  if (namespace !== undefined && namespace !== operatorNamespace) {
    throw new ServiceAccountTokenError(
      'TokenSourceNotAllowed',
      `spec.auth.${method}.serviceAccountToken.projected is the operator’s own token: a Connection may use it ` +
        `only in the operator’s namespace${operatorNamespace ? ` (${operatorNamespace})` : ''}, not in ${namespace}; ` +
        'use serviceAccountRef with a ServiceAccount of this namespace, or a ClusterConnection',
    );
  }
  return { kind: 'projected', path: projected.path, audience: projected.audience };
}

/** The credentials of a Kubernetes, JWT or OIDC login, or undefined when `auth` sets none. */
export function serviceAccountCredentials(
  auth: SpecAuth,
  namespace: string | undefined,
  sources: CredentialSources,
): AuthCredentials | undefined {
  const found = serviceAccountLoginOf(auth);
  if (!found) return undefined;
  const source = tokenSourceOf(found.method, found.login, namespace, sources.operatorNamespace);
  const tokens = sources.serviceAccountTokens;
  if (!tokens) {
    throw new ServiceAccountTokenError(
      'ServiceAccountTokenUnavailable',
      'this operator has no access to ServiceAccount tokens',
    );
  }
  const identityId = found.login.identityId;
  // `identityRef` is replaced by the Identity's id before credentials are read (login-identity.ts).
  if (!identityId) throw new Error(`cannot log in: spec.auth.${found.method}.identityRef is not resolved`);
  return {
    method: found.method,
    identityId,
    jwt: serviceAccountTokenSupplier(source, tokens, sources.nowMs ?? Date.now),
  };
}
