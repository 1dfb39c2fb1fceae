/**
 * The keys of the `dynamicSecret` sources in one delivery. A lease's credentials come only with
 * its issuance: the operator keeps them in memory, and the delivered target is their only other
 * copy. So:
 *
 * | situation                                                          | what is delivered                    |
 * |--------------------------------------------------------------------|--------------------------------------|
 * | credentials in memory                                              | rendered as usual                    |
 * | not in memory (operator restarted), inputs unchanged, target intact | the target's content as it is        |
 * | not in memory and the other sources or the template changed       | a new lease (the old one retired)    |
 * | target deleted or edited (its content hash is not the delivered) | a new lease (the old one retired)    |
 * | a source needs a new lease (new parameters, renewal refused)      | a new lease (the old one retired)    |
 *
 * "Inputs" are the other sources' keys and values, the template and the lease ids, hashed with the
 * resource uid into `status.inputsHash`. A retired lease is revoked after the source's
 * `rotationOverlap`.
 */
import { createHmac } from 'node:crypto';
import type { WorkloadSecretSpec, WorkloadSecretStatus } from '../../../api/v1alpha1/index.ts';
import type { ManagedObject } from '../../../managed/external-client.ts';
import { contentHash } from '../content.ts';
import { keyFilter } from '../globs.ts';
import type { SourceRead } from '../sources.ts';
import type { TargetApi } from '../targets.ts';
import type { TargetKind, TargetObject } from '../target-objects.ts';
import type { LeaseRound } from './round.ts';

/** A round and the status it started from. */
export interface LeaseInput {
  readonly round: LeaseRound;
  readonly status: Partial<WorkloadSecretStatus>;
}

/** The reads with the lease sources filled in; `reuse` when the target's content stands. */
export interface LeaseReads {
  readonly reads: SourceRead[];
  readonly inputsHash: string;
  readonly reuse?: Record<string, string>;
}

type Obj = ManagedObject<WorkloadSecretSpec>;

function decoded(kind: TargetKind, target: TargetObject): Record<string, string> {
  const data = target.data ?? {};
  if (kind === 'ConfigMap') return { ...data };
  return Object.fromEntries(
    Object.entries(data).map(([k, v]) => [k, Buffer.from(String(v), 'base64').toString('utf8')]),
  );
}

/** The first target's content when it is what was delivered last, else undefined. */
async function intactContent(
  obj: Obj,
  status: Partial<WorkloadSecretStatus>,
  apis: Readonly<Record<TargetKind, TargetApi>>,
): Promise<Record<string, string> | undefined> {
  const kind: TargetKind = obj.spec.target.secret ? 'Secret' : 'ConfigMap';
  const name = obj.spec.target[kind === 'Secret' ? 'secret' : 'configMap']?.name ?? obj.metadata.name;
  const target = await apis[kind].read(obj.metadata.namespace ?? '', name);
  if (!target || !status.contentHash) return undefined;
  const data = decoded(kind, target);
  return contentHash(data, obj.metadata.uid ?? '') === status.contentHash ? data : undefined;
}

function inputsHash(obj: Obj, reads: readonly SourceRead[], round: LeaseRound): string {
  const leaseIndexes = new Set(round.sources.map((s) => s.index));
  const inputs = {
    sources: reads.map((r, i) => (leaseIndexes.has(i) ? null : r.pairs)),
    template: obj.spec.template ?? null,
    leases: round.leaseIds(),
  };
  return createHmac('sha256', obj.metadata.uid ?? '')
    .update(JSON.stringify(inputs))
    .digest('hex')
    .slice(0, 16);
}

function leaseRead(round: LeaseRound, index: number, previous: SourceRead): SourceRead {
  const source = round.sources.find((s) => s.index === index);
  const credentials = round.credentialsOf(index) ?? {};
  const wanted = keyFilter(source?.source.include, source?.source.exclude);
  const pairs = Object.entries(credentials).filter(([key]) => wanted(key));
  const scope = round.scopes.get(index);
  return {
    pairs,
    report: {
      ...previous.report,
      project: scope?.projectSlug ?? previous.report.project,
      count: pairs.length,
    },
  };
}

/** The lease sources' keys of one delivery (see the module comment). */
export async function leaseReads(
  obj: Obj,
  reads: readonly SourceRead[],
  input: LeaseInput,
  apis: Readonly<Record<TargetKind, TargetApi>>,
): Promise<LeaseReads> {
  const { round, status } = input;
  const intact = await intactContent(obj, status, apis);
  if (!intact && status.contentHash !== undefined)
    for (const index of round.held.keys()) round.needNew.add(index);
  const missing = round.sources.map((s) => s.index).filter((i) => !round.credentialsOf(i));
  if (missing.length > 0) {
    const unchanged = round.needNew.size === 0 && status.inputsHash === inputsHash(obj, reads, round);
    if (intact && unchanged) {
      const kept = reads.map((r, i) =>
        missing.includes(i) ? { ...r, report: status.sources?.[i] ?? r.report } : r,
      );
      return { reads: kept, inputsHash: status.inputsHash ?? '', reuse: intact };
    }
    await round.issue(missing);
  }
  const filled = reads.map((r, i) => (round.scopes.has(i) ? leaseRead(round, i, r) : r));
  return { reads: filled, inputsHash: inputsHash(obj, filled, round) };
}
