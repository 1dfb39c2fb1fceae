/**
 * The credential step of an IdentityAuth reconcile: inspect (observe: check the recorded
 * credential and the Secret, plan, write nothing) and apply (update/create: mark the issuance,
 * revoke what is due and what an interrupted issuance left, issue a new credential, retire leaked
 * ones, return the Secret to publish and the status). One credential per rotation step: see
 * `issuance.ts`.
 */
import type { Logger } from 'pino';
import type { IdentityAuthSpec } from '../../api/v1alpha1/index.ts';
import { parseDurationExact } from '../../runtime/duration.ts';
import type { SecretOutputs } from '../../managed/external-client.ts';
import { rfc3339 } from '../../runtime/conditions.ts';
import type { CredentialOps } from './credential-ops.ts';
import {
  planCredentials,
  rotationTime,
  type CredentialPlan,
  type CredentialRecord,
  type CredentialsStatus,
} from './credentials.ts';
import { sortUnrecorded } from './issuance.ts';

/** At most this many replaced credentials are kept in status; older ones are revoked at once. */
const maxRetiring = 16;

/** Everything the credential step needs. */
export interface CredentialInput {
  readonly spec: IdentityAuthSpec;
  /** The credentials status of the same method (undefined after a method change: they died with it). */
  readonly previous: CredentialsStatus | undefined;
  /** Undefined for methods that issue no credentials. */
  readonly ops: CredentialOps | undefined;
  readonly readSecret: (name: string) => Promise<Readonly<Record<string, string>> | undefined>;
  readonly now: Date;
  /** Token name / client-secret description marking credentials issued for this resource. */
  readonly label: string;
  /** `coffer.dev/credential-issue-started` as read with the resource (the previous issuance's start). */
  readonly issueStarted: string | undefined;
  /**
   * Sets `coffer.dev/credential-issue-started` to `at` with a write guarded by the resource's
   * resourceVersion; throws `ConflictError` (and writes nothing) when the resource read was stale.
   */
  readonly markIssueStarted: (at: string) => Promise<void>;
  readonly log: Logger;
}

/** What the credential step produced. */
export interface CredentialResult {
  readonly status?: CredentialsStatus;
  readonly secretData?: SecretOutputs;
}

const nothing: CredentialPlan = { revoke: [], retiring: [] };

/** Plans without writing. */
export async function inspectCredentials(input: CredentialInput): Promise<CredentialPlan> {
  const { ops, spec, previous } = input;
  if (!ops) return nothing;
  const settings = spec.credentials;
  const current = settings && previous?.current ? await ops.check(previous.current.id) : undefined;
  const secretHolds = settings ? ops.secretHolds(await input.readSecret(settings.secretName)) : true;
  return planCredentials(settings, previous, {
    now: input.now,
    secretHolds,
    ...(current ? { current } : {}),
  });
}

function compact(parts: {
  secretName?: string | undefined;
  current?: CredentialRecord | undefined;
  nextRotationAt?: Date | undefined;
  retiring: readonly CredentialRecord[];
}): CredentialsStatus | undefined {
  const status: CredentialsStatus = {
    ...(parts.secretName ? { secretName: parts.secretName } : {}),
    ...(parts.current ? { current: parts.current } : {}),
    ...(parts.nextRotationAt ? { nextRotationAt: rfc3339(parts.nextRotationAt) } : {}),
    ...(parts.retiring.length > 0 ? { retiring: [...parts.retiring] } : {}),
  };
  return Object.keys(status).length > 0 ? status : undefined;
}

/** The status to record when nothing is written (an observation). */
export function keptCredentials(input: CredentialInput, plan: CredentialPlan): CredentialsStatus | undefined {
  const { previous } = input;
  return compact({
    secretName: previous?.secretName,
    current: previous?.current,
    nextRotationAt: plan.nextRotationAt,
    retiring: previous?.retiring ?? [],
  });
}

/** Revokes each record; returns those that could not be revoked (kept for the next attempt). */
async function revokeAll(input: CredentialInput, ops: CredentialOps, records: readonly CredentialRecord[]) {
  const failed: CredentialRecord[] = [];
  for (const record of records) {
    try {
      await ops.revoke(record.id);
    } catch (error) {
      input.log.warn({ err: error, credentialId: record.id }, 'cannot revoke a replaced credential yet');
      failed.push(record);
    }
  }
  return failed;
}

/** A record for a credential found unrecorded, revoked at `revokeAt`. */
function unrecordedRecord(id: string, now: Date, revokeAt: Date): CredentialRecord {
  return { id, issuedAt: rfc3339(now), revokeAt: rfc3339(revokeAt) };
}

/**
 * Before issuing: revokes what an interrupted issuance left (those that cannot be revoked now are
 * recorded, due at once) and returns them with the leaked ones, retired for the overlap.
 */
async function settleUnrecorded(
  input: CredentialInput,
  ops: CredentialOps,
  overlapMs: number,
): Promise<CredentialRecord[]> {
  const { now } = input;
  const found = sortUnrecorded(await ops.labelled(input.label), input.previous, input.issueStarted);
  if (found.interrupted.length > 0) {
    input.log.info(
      { credentialIds: found.interrupted },
      'revoking credentials an interrupted issuance left unrecorded',
    );
  }
  const interrupted = found.interrupted.map((id) => unrecordedRecord(id, now, now));
  const overlapEnd = new Date(now.getTime() + overlapMs);
  return [
    ...(await revokeAll(input, ops, interrupted)),
    ...found.leaked.map((id) => unrecordedRecord(id, now, overlapEnd)),
  ];
}

/**
 * Applies `plan`: marks the issuance (a stale read stops here, with a conflict, before any
 * write to the service), revokes what is due and what an interrupted issuance left, issues when
 * planned, retires leaked credentials.
 */
export async function applyCredentials(
  input: CredentialInput,
  plan: CredentialPlan,
): Promise<CredentialResult> {
  const { ops, spec, previous, now } = input;
  if (!ops) return {};
  const settings = plan.issue ? spec.credentials : undefined;
  if (settings) await input.markIssueStarted(rfc3339(now));
  let retiring = [...plan.retiring, ...(await revokeAll(input, ops, plan.revoke))];
  if (!settings) {
    return { status: compact({ ...previous, nextRotationAt: plan.nextRotationAt, retiring }) };
  }
  retiring.push(...(await settleUnrecorded(input, ops, parseDurationExact(settings.overlap))));
  const issued = await ops.issue(input.label);
  if (retiring.length > maxRetiring) {
    const excess = retiring.slice(0, retiring.length - maxRetiring);
    retiring = [...(await revokeAll(input, ops, excess)), ...retiring.slice(-maxRetiring)].slice(
      -maxRetiring,
    );
  }
  const current: CredentialRecord = { id: issued.id, issuedAt: rfc3339(issued.issuedAt) };
  return {
    status: compact({
      secretName: settings.secretName,
      current,
      nextRotationAt: rotationTime(settings, current, issued.expiresAt),
      retiring,
    }),
    secretData: [{ name: settings.secretName, data: issued.data }],
  };
}
