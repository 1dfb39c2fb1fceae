/**
 * The lease calls a WorkloadSecret makes, with their failures sorted once: a refusal (4xx: the
 * lease is gone, or a renewal would pass the dynamic secret's maximum TTL) asks for a new lease;
 * anything else (unreachable, 5xx, timeout) keeps what is held and is retried with backoff
 * (`LeaseNotRenewed`). A lease already gone counts as revoked.
 */
import { InvalidError, isNotFound, type LeaseScope, type ServiceClient } from '../../../client/index.ts';
import { TransientError } from '../../../runtime/errors.ts';
import { workloadSecretReasons } from '../reasons.ts';

/** Annotation written before a lease is asked for (crash-safe issuance); its value is the time. */
export const ANNOTATION_LEASE_PENDING = 'coffer.dev/lease-pending';

/** True when the service refused the call for good (a retry would get the same answer). */
export function isRefused(error: unknown): boolean {
  return isNotFound(error) || error instanceof InvalidError;
}

/** `error` as a `LeaseNotRenewed` failure saying what is kept. */
export function notRenewed(what: string, error: unknown): TransientError {
  const cause = error instanceof Error ? error.message : String(error);
  return new TransientError(workloadSecretReasons.names.LeaseNotRenewed, `${what}: ${cause}`, {
    cause: error,
  });
}

/** Revokes `leaseId` (already gone counts as done); other failures are `LeaseNotRenewed`. */
export async function revokeLease(
  client: ServiceClient,
  leaseId: string,
  scope: LeaseScope,
  signal: AbortSignal,
): Promise<void> {
  try {
    await client.dynamicSecretLeases.revoke(leaseId, scope, { signal });
  } catch (error) {
    if (isNotFound(error)) return;
    throw notRenewed(`cannot revoke lease ${leaseId} (retried)`, error);
  }
}
