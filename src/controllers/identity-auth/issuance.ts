/**
 * One credential per rotation step, whatever the informer cache says. Pure.
 *
 * Before each issuance the reconcile writes `coffer.dev/credential-issue-started` (the time it
 * starts) with a patch guarded by resourceVersion. A reconcile working on a stale copy of the
 * resource (the issuance before it not yet visible in its status) gets a conflict there and
 * issues nothing. Once the guarded write succeeded, the reconcile's view of `status.credentials`
 * is the stored one, so every credential it does not list is unrecorded.
 *
 * The issuance is recorded when the reconcile ends: `status.credentials` is written after the
 * Secret was published. A credential carrying the resource's label, created after the mark
 * (less `issueClockSkewMs`) and not recorded comes from an issuance interrupted before that
 * write (a crash, a failed status write): it is revoked before the next one is issued, so
 * consumers are never left with two. Older unrecorded credentials, or ones the service does not
 * date, were not issued by that step: they are retired with the overlap instead. Recorded
 * credentials are never touched here.
 *
 * The mark stays in place until the next issuance overwrites it.
 */
import type { CredentialsStatus } from './credentials.ts';

/** RFC 3339 time at which the latest credential issuance of this resource started. */
export const ANNOTATION_CREDENTIAL_ISSUE_STARTED = 'coffer.dev/credential-issue-started';

/** How much earlier than the mark the service may date a credential issued after it (clock skew). */
export const issueClockSkewMs = 2 * 60_000;

/** A live credential carrying the resource's label, as the service lists it. */
export interface LabelledCredential {
  readonly id: string;
  /** RFC 3339 creation time on the service's clock, when the service reports it. */
  readonly createdAt?: string | undefined;
}

/** Labelled credentials that status does not record, by what to do with them. */
export interface UnrecordedCredentials {
  /** Issued by an interrupted issuance (after the mark): revoke before issuing. */
  readonly interrupted: readonly string[];
  /** Unrecorded for another reason (older than the mark, or undated): retire with the overlap. */
  readonly leaked: readonly string[];
}

/** Ids `status.credentials` records (current and retiring). */
export function recordedIds(status: CredentialsStatus | undefined): Set<string> {
  const ids = [status?.current?.id, ...(status?.retiring ?? []).map((r) => r.id)];
  return new Set(ids.filter((id): id is string => id !== undefined));
}

/**
 * Sorts the labelled credentials `status` does not record. `mark` is the value of
 * `coffer.dev/credential-issue-started` as read before this issuance (undefined or unparseable:
 * nothing counts as interrupted).
 */
export function sortUnrecorded(
  labelled: readonly LabelledCredential[],
  status: CredentialsStatus | undefined,
  mark: string | undefined,
  skewMs: number = issueClockSkewMs,
): UnrecordedCredentials {
  const recorded = recordedIds(status);
  const since = Date.parse(mark ?? '') - skewMs;
  const interrupted: string[] = [];
  const leaked: string[] = [];
  for (const credential of labelled) {
    if (recorded.has(credential.id)) continue;
    const created = Date.parse(credential.createdAt ?? '');
    const afterMark = Number.isFinite(since) && Number.isFinite(created) && created >= since;
    (afterMark ? interrupted : leaked).push(credential.id);
  }
  return { interrupted, leaked };
}
