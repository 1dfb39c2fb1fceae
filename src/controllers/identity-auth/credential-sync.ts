/**
 * The credential step of an IdentityAuth reconcile: inspect (observe: check the recorded
 * credential and the Secret, plan, write nothing) and apply (update/create: revoke what is due,
 * issue a new credential, retire leaked ones, return the Secret to publish and the status).
 */
import type { Logger } from 'pino';
import type { IdentityAuthSpec } from '../../api/v1alpha1/index.ts';
import { parseGoDuration } from '../../api/v1alpha1/index.ts';
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

/** Applies `plan`: revokes what is due, issues when planned, retires leaked credentials. */
export async function applyCredentials(
  input: CredentialInput,
  plan: CredentialPlan,
): Promise<CredentialResult> {
  const { ops, spec, previous, now } = input;
  if (!ops) return {};
  let retiring = [...plan.retiring, ...(await revokeAll(input, ops, plan.revoke))];
  const settings = spec.credentials;
  if (!plan.issue || !settings) {
    return { status: compact({ ...previous, nextRotationAt: plan.nextRotationAt, retiring }) };
  }
  const issued = await ops.issue(input.label);
  const known = new Set([issued.id, previous?.current?.id, ...retiring.map((r) => r.id)]);
  const revokeAt = rfc3339(new Date(now.getTime() + parseGoDuration(settings.overlap)));
  const leaked = (await ops.labelled(input.label)).filter((id) => !known.has(id));
  retiring.push(...leaked.map((id) => ({ id, issuedAt: rfc3339(now), revokeAt })));
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
