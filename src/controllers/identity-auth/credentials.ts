/**
 * Credentials issued for workloads (an access token for token auth, a client secret for
 * universal auth): when to issue a new one and when to revoke replaced ones. Pure.
 *
 * Rules:
 * - a new credential is issued when none is recorded, the recorded one is revoked, used up or
 *   expired, the Secret lost it, the Secret name changed, or its rotation time has come;
 * - rotation time is the earliest of `issuedAt + rotateEvery` and, for a credential that expires,
 *   `expiresAt - min(overlap, lifetime / 2)`, so the replacement is in the Secret before the old
 *   one dies;
 * - a replaced credential that still works is kept for `overlap` (consumers pick up the new one
 *   meanwhile), then revoked; a dead one is simply dropped;
 * - without `credentials` in the spec nothing is issued; replaced ones are still revoked on time.
 *
 * Status records ids and times only, never values.
 */
import type { IdentityAuthSpec, IdentityAuthStatus } from '../../api/v1alpha1/index.ts';
import { parseDurationExact } from '../../runtime/duration.ts';
import { rfc3339 } from '../../runtime/conditions.ts';

export type CredentialSettings = NonNullable<IdentityAuthSpec['credentials']>;
export type CredentialsStatus = NonNullable<IdentityAuthStatus['credentials']>;
export type CredentialRecord = NonNullable<CredentialsStatus['current']>;

/** What the service says about the recorded credential. */
export interface CredentialCheck {
  /** False when revoked, deleted, used up or expired. */
  readonly alive: boolean;
  /** When it expires, if it does. */
  readonly expiresAt?: Date;
}

/** What is known when planning. */
export interface CredentialFacts {
  readonly now: Date;
  /** The Secret holds a credential of the method's shape (for universal auth: the current client id). */
  readonly secretHolds: boolean;
  /** The recorded credential's check; undefined when none is recorded. */
  readonly current?: CredentialCheck;
}

/** The decision. */
export interface CredentialPlan {
  /** Why a new credential must be issued; undefined when the current one stays. */
  readonly issue?: string;
  /** Replaced credentials whose overlap has ended: revoke now. */
  readonly revoke: readonly CredentialRecord[];
  /** Replaced credentials still in their overlap (including the current one when it is replaced). */
  readonly retiring: readonly CredentialRecord[];
  /** When the current credential is to be replaced; undefined when it is replaced now or never. */
  readonly nextRotationAt?: Date;
}

/** When `record` should be replaced, if ever. */
export function rotationTime(
  settings: CredentialSettings,
  record: CredentialRecord,
  expiresAt: Date | undefined,
): Date | undefined {
  const issued = Date.parse(record.issuedAt);
  const times: number[] = [];
  if (settings.rotateEvery) times.push(issued + parseDurationExact(settings.rotateEvery));
  if (expiresAt) {
    const lifetime = expiresAt.getTime() - issued;
    times.push(expiresAt.getTime() - Math.min(parseDurationExact(settings.overlap), lifetime / 2));
  }
  return times.length > 0 ? new Date(Math.min(...times)) : undefined;
}

function whyIssue(
  settings: CredentialSettings,
  previous: CredentialsStatus | undefined,
  facts: CredentialFacts,
  nextRotationAt: Date | undefined,
): string | undefined {
  if (!previous?.current) return 'none issued yet';
  if (previous.secretName !== settings.secretName) return `Secret changed to ${settings.secretName}`;
  if (!facts.current?.alive) return 'the current one is revoked, used up or expired';
  if (!facts.secretHolds) return `Secret ${settings.secretName} does not hold it`;
  if (nextRotationAt && nextRotationAt.getTime() <= facts.now.getTime()) return 'rotation is due';
  return undefined;
}

/** Decides what to issue and revoke. `previous` is the status of the same method (or undefined). */
export function planCredentials(
  settings: CredentialSettings | undefined,
  previous: CredentialsStatus | undefined,
  facts: CredentialFacts,
): CredentialPlan {
  const now = facts.now.getTime();
  const isDue = (r: CredentialRecord) => r.revokeAt === undefined || Date.parse(r.revokeAt) <= now;
  const revoke = (previous?.retiring ?? []).filter(isDue);
  const retiring = (previous?.retiring ?? []).filter((r) => !isDue(r));
  if (!settings) return { revoke, retiring };
  const current = previous?.current;
  const nextRotationAt = current ? rotationTime(settings, current, facts.current?.expiresAt) : undefined;
  const issue = whyIssue(settings, previous, facts, nextRotationAt);
  if (!issue) return { revoke, retiring, ...(nextRotationAt ? { nextRotationAt } : {}) };
  return { issue, revoke, retiring: [...retiring, ...retire(settings, current, facts)] };
}

/** The replaced current credential, kept for the overlap while it still works. */
function retire(
  settings: CredentialSettings,
  current: CredentialRecord | undefined,
  facts: CredentialFacts,
): CredentialRecord[] {
  if (!current || !facts.current?.alive) return [];
  const revokeAt = new Date(facts.now.getTime() + parseDurationExact(settings.overlap));
  return [{ ...current, revokeAt: rfc3339(revokeAt) }];
}

/** Names what the plan changes, for the drift message; undefined when nothing. */
export function describeCredentialPlan(plan: CredentialPlan): string | undefined {
  const parts = [
    ...(plan.issue ? [`credentials (new one: ${plan.issue})`] : []),
    ...(plan.revoke.length > 0 ? [`credentials (${plan.revoke.length} to revoke)`] : []),
  ];
  return parts.length > 0 ? parts.join(', ') : undefined;
}

/** Floor of the wake-up delay: a revocation that keeps failing is retried at this pace, not in a loop. */
const minWakeMs = 5_000;

/** Milliseconds until the next rotation or revocation recorded in `status`, if any. */
export function nextCredentialWakeMs(status: CredentialsStatus | undefined, now: Date): number | undefined {
  const times = [status?.nextRotationAt, ...(status?.retiring ?? []).map((r) => r.revokeAt)]
    .filter((t): t is string => t !== undefined)
    .map((t) => Date.parse(t) - now.getTime());
  return times.length > 0 ? Math.max(Math.min(...times), minWakeMs) : undefined;
}
