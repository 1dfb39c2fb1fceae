/**
 * "Does the service accept these credentials?" for Connection and ClusterConnection.
 *
 * The check costs at most two requests and is served identically by the real service and the
 * devserver:
 * 1. obtain the access token: a universal-auth login (which already proves the client id and
 *    secret), a Kubernetes/JWT/OIDC login with a ServiceAccount token (which proves the identity's
 *    method accepts it; a refusal quotes what did not match; 404 when the identity has no such
 *    method attached), or the token from the Secret as is;
 * 2. read the identity the token belongs to, `GET /api/v1/identities/{identityId}`, with the
 *    identity id taken from the token's JWT claims (`identityId`). Any authenticated call proves
 *    the token; this one also yields the organization id. An identity whose org role may not read
 *    identities gets 403 without `TokenError`: the token was accepted, only the organization stays
 *    unknown.
 *
 * A rejection (401, 403 `TokenError`, a failed login) is a verdict, not an error; network and
 * server failures are thrown for the caller to retry.
 */
import {
  ForbiddenError,
  InvalidError,
  NotFoundError,
  UnauthorizedError,
  type CallOptions,
  type ServiceClient,
} from '../../client/index.ts';

/**
 * The verdict on a set of credentials. `methodNotAttached`: the login answered 404, the identity
 * has no such auth method (yet) — worth retrying soon, unlike a refusal.
 */
export type CredentialCheck =
  | { readonly accepted: true; readonly identityId?: string; readonly organizationId?: string }
  | { readonly accepted: false; readonly message: string; readonly methodNotAttached?: true };

/** The `identityId` claim of an identity access token (a JWT), without verifying it. */
export function identityIdFromToken(token: string): string | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const id = (claims as { identityId?: unknown } | null)?.identityId;
    return typeof id === 'string' && id.length > 0 ? id : undefined;
  } catch {
    return undefined;
  }
}

type ServiceFailure = UnauthorizedError | ForbiddenError | InvalidError;

/** A failed login: 401 for unknown or wrong credentials, 400/403 for refusals such as IP rules. */
function isLoginRefusal(error: unknown): error is ServiceFailure {
  return (
    error instanceof UnauthorizedError || error instanceof InvalidError || error instanceof ForbiddenError
  );
}

/** True for answers meaning "this token is not accepted" (401, or 403 `TokenError`). */
export function isTokenRejection(error: unknown): error is UnauthorizedError | ForbiddenError {
  return error instanceof UnauthorizedError || (error instanceof ForbiddenError && error.isTokenError);
}

function rejected(error: ServiceFailure): CredentialCheck {
  return { accepted: false, message: `the service rejected the credentials: ${error.serviceMessage}` };
}

/** The access token, or the verdict when obtaining it was refused. */
async function tokenOrVerdict(
  accessToken: (signal?: AbortSignal) => Promise<string>,
  signal: AbortSignal | undefined,
): Promise<string | CredentialCheck> {
  try {
    return await accessToken(signal);
  } catch (error) {
    if (isLoginRefusal(error)) return rejected(error);
    // A login (never a static token) to an identity without that method: 404 (docs/service-facts.md).
    if (error instanceof NotFoundError)
      return {
        accepted: false,
        message: `the login was refused: ${error.serviceMessage}`,
        methodNotAttached: true,
      };
    throw error;
  }
}

/**
 * Checks the credentials of `client`. `accessToken` returns the token the client sends (logging
 * in first for universal auth).
 */
export async function checkCredentials(
  client: ServiceClient,
  accessToken: (signal?: AbortSignal) => Promise<string>,
  options: CallOptions = {},
): Promise<CredentialCheck> {
  const token = await tokenOrVerdict(accessToken, options.signal);
  if (typeof token !== 'string') return token;
  const identityId = identityIdFromToken(token);
  if (!identityId) {
    return {
      accepted: false,
      message: 'the token is not a machine-identity access token (no identityId claim)',
    };
  }
  try {
    const identity = await client.identities.get(identityId, options);
    return { accepted: true, identityId, ...(identity.orgId ? { organizationId: identity.orgId } : {}) };
  } catch (error) {
    if (isTokenRejection(error)) return rejected(error);
    // Authenticated, but not allowed to read identities (or not visible): still accepted.
    if (error instanceof ForbiddenError || error instanceof NotFoundError)
      return { accepted: true, identityId };
    throw error;
  }
}
