/**
 * The reconcile of a Connection or ClusterConnection: build (or reuse) the client for the current
 * spec and Secrets, check that the service accepts the credentials, and report it.
 *
 * | situation                          | Ready                        | Synced                         |
 * |------------------------------------|------------------------------|--------------------------------|
 * | credentials accepted               | True `Available`             | True                           |
 * | the service rejected them          | False `InvalidCredentials`   | False `InvalidCredentials`     |
 * | a referenced Secret/key is missing | False `CredentialsNotFound`  | False `CredentialsNotFound`    |
 * | no usable ServiceAccount token     | False `TokenSourceNotAllowed`, `InvalidTokenFile`,             |
 * |                                    | `TokenAudienceMismatch`, `AudienceNotAllowed` or               |
 * |                                    | `ServiceAccountTokenUnavailable` (retried), on both            |
 * | `identityRef`: Identity not usable | False `Unavailable` (why)    | False `ReferenceNotReady`      |
 * | login method not attached (404)    | False `LoginMethodNotFound`, on both (see below)               |
 * | service unreachable, 5xx           | unchanged                    | False (retried with backoff)   |
 *
 * Every resource using the connection shares the client built here (same cache key), so a
 * Secret change rebuilds it once for everybody. A change of the Identity an `identityRef` names
 * reconciles the connection at once (its declared reference, `references.ts`), and so does an
 * IdentityAuth of that Identity getting Ready (it announces its readiness to the Identity's
 * dependents): a login waiting for its method to be attached then waits with the operator's
 * waiting requeue; one naming `identityId` directly, which no watch can wake, retries every 15 s.
 * No token is ever logged or written to status.
 */
import type { ManagedObject } from '../../managed/external-client.ts';
import { Reasons } from '../../runtime/conditions.ts';
import type { ConditionState, DirectOutcome, DirectServices, DirectSync } from '../../managed/direct/kind.ts';
import { connectionKey, type ConnectionKindName } from '../../managed/connections/resolver.ts';
import { MissingCredentialsError, type ConnectionSettings } from '../../managed/connections/credentials.ts';
import {
  ServiceAccountTokenError,
  type TokenProblem,
} from '../../managed/connections/service-account-token.ts';
import { LoginIdentityNotReadyError, logsInByIdentityRef } from '../../managed/connections/login-identity.ts';
import { REFERENCE_NOT_READY } from '../../managed/references.ts';
import { checkCredentials, type CredentialCheck } from './verify.ts';
import { connectionReasons } from './reasons.ts';
import type { Reason } from '../../runtime/reasons.ts';

/** Condition reason when the service rejects the credentials. */
export const INVALID_CREDENTIALS = connectionReasons.names.InvalidCredentials;

/** Status fields of both connection kinds besides the common ones. */
export interface ConnectionStatusFields extends Record<string, unknown> {
  readonly organizationId?: string;
}

const tokenReasons: Readonly<Record<TokenProblem, Reason>> = {
  TokenSourceNotAllowed: connectionReasons.names.TokenSourceNotAllowed,
  InvalidTokenFile: connectionReasons.names.InvalidTokenFile,
  TokenAudienceMismatch: connectionReasons.names.TokenAudienceMismatch,
  AudienceNotAllowed: connectionReasons.names.AudienceNotAllowed,
  ServiceAccountTokenUnavailable: connectionReasons.names.ServiceAccountTokenUnavailable,
};

/** Retry of a connection without a ServiceAccount token (the file or ServiceAccount may appear). */
const tokenRetryMs = 30_000;
/** Retry of a login by `identityId` whose method is not attached yet (nothing announces it). */
export const loginMethodRetryMs = 15_000;

function failed(
  reason: Reason,
  message: string,
  requeueAfterMs?: number,
): DirectOutcome<ConnectionStatusFields> {
  const state: ConditionState = { status: 'False', reason, message };
  return { ready: state, synced: state, status: {}, ...(requeueAfterMs ? { requeueAfterMs } : {}) };
}

/** Waiting for the Identity the login names: Synced says why, Ready repeats it for the users. */
function waitingForIdentity(error: LoginIdentityNotReadyError): DirectOutcome<ConnectionStatusFields> {
  const ready: ConditionState = { status: 'False', reason: Reasons.Unavailable, message: error.message };
  const synced: ConditionState = { status: 'False', reason: REFERENCE_NOT_READY, message: error.message };
  return { ready, synced, status: {}, requeueAfterMs: error.requeueAfterMs };
}

/** The outcome for an error reading credentials or obtaining a token; undefined: not such an error. */
function credentialFailure(error: unknown): DirectOutcome<ConnectionStatusFields> | undefined {
  if (error instanceof LoginIdentityNotReadyError) return waitingForIdentity(error);
  if (error instanceof MissingCredentialsError) return failed(error.reason, error.message);
  if (!(error instanceof ServiceAccountTokenError)) return undefined;
  const reason = tokenReasons[error.problem];
  return failed(
    reason,
    error.message,
    error.problem === 'ServiceAccountTokenUnavailable' ? tokenRetryMs : undefined,
  );
}

const accepted: ConditionState = {
  status: 'True',
  reason: Reasons.Available,
  message: 'the service accepted the credentials',
};

/** The login's method is not attached (yet): see the module table for when it is tried again. */
function methodNotAttached(
  settings: ConnectionSettings,
  message: string,
  services: DirectServices,
): DirectOutcome<ConnectionStatusFields> {
  const retryMs = logsInByIdentityRef(settings) ? services.connections.waitRequeueMs : loginMethodRetryMs;
  return failed(connectionReasons.names.LoginMethodNotFound, message, retryMs);
}

/** The sync of connection kind `kind`. */
export function connectionSync<Spec extends ConnectionSettings>(
  kind: ConnectionKindName,
  services: DirectServices,
): DirectSync<Spec, ConnectionStatusFields> {
  return {
    async sync(obj: ManagedObject<Spec>, ctx) {
      let check: CredentialCheck;
      try {
        const connection = await services.connections.clientFor(kind, obj, obj.spec);
        check = await checkCredentials(connection.client, connection.accessToken, { signal: ctx.signal });
      } catch (error) {
        const outcome = credentialFailure(error);
        if (!outcome) throw error;
        // Operators look for these in the log too (an RBAC 403 on TokenRequest or TokenReview).
        if (error instanceof ServiceAccountTokenError)
          ctx.log.warn({ reason: error.problem, error: error.message }, 'no usable ServiceAccount token');
        return outcome;
      }
      if (!check.accepted && check.methodNotAttached)
        return methodNotAttached(obj.spec, check.message, services);
      if (!check.accepted) return failed(INVALID_CREDENTIALS, check.message);
      const wasReady = obj.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      return {
        ready: accepted,
        ...(check.identityId ? { id: check.identityId } : {}),
        status: check.organizationId ? { organizationId: check.organizationId } : {},
        events: wasReady
          ? []
          : [
              {
                type: 'Normal',
                reason: 'Connected',
                message: `${kind} ${obj.metadata.name} is ready: ${accepted.message}`,
              },
            ],
      };
    },
    forget(request) {
      const metadata = { name: request.name, ...(request.namespace ? { namespace: request.namespace } : {}) };
      services.connections.invalidate(connectionKey(kind, { metadata }));
    },
  };
}
