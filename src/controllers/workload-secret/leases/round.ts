/**
 * One delivery's work on the leases of a WorkloadSecret, from its status as freshly read: which
 * lease each `dynamicSecret` source holds, which sources need a new one, the replaced leases
 * waiting for revocation. It renews a lease at two thirds of its remaining time; a renewal the
 * service refuses (the dynamic secret's maximum TTL would be passed, or the lease is gone) asks for
 * a new lease, issued ahead of the expiry; when the service does not answer for that new lease, the
 * one it replaces is kept (`LeaseNotRenewed`). An issuance first writes the mark
 * `coffer.dev/lease-pending` (the time) on the resource, so a lease issued but never recorded
 * (the operator killed in between) is found and revoked later (`holder.ts`). The credentials a
 * lease came with are kept in memory only, by lease id, for this operator process.
 */
import type { LeaseScope, ServiceClient } from '../../../client/index.ts';
import type { ManagedObject } from '../../../managed/external-client.ts';
import { parseDuration } from '../../../runtime/duration.ts';
import { isRefused, notRenewed, revokeLease } from './service-calls.ts';
import { paramsHash, scopeOfHeld, type HeldLease, type LeaseSource, type RetiredLease } from './scope.ts';

/** Fraction of a lease's remaining time after which it is renewed. */
export const RENEW_FRACTION = 2 / 3;

/** What a round needs from its holder. */
export interface RoundDeps {
  readonly client: ServiceClient;
  readonly signal: AbortSignal;
  readonly now: Date;
  /** Credentials by lease id (memory of this process). */
  readonly credentials: Map<string, Readonly<Record<string, string>>>;
  /** Writes the issuance mark on the resource before a lease is asked for. */
  writeMark(mark: string): Promise<void>;
}

/** The status fields of the leases. */
export interface LeaseStatusFields {
  leases?: HeldLease[];
  retiredLeases?: RetiredLease[];
  /** The earliest `expireAt` of `leases` (the printer column). */
  leaseExpiry?: string;
}

function renewAt(now: number, expireAt: number): number {
  return now + Math.max(0, expireAt - now) * RENEW_FRACTION;
}

export class LeaseRound {
  /** The lease each source index holds (recorded, same parameters, not expired). */
  readonly held = new Map<number, HeldLease>();
  /** Source indexes that need a new lease whatever else happens. */
  readonly needNew = new Set<number>();
  retired: RetiredLease[];
  private readonly issued: { leaseId: string; scope: LeaseScope }[] = [];
  private mark: string | undefined;

  private readonly obj: ManagedObject<unknown>;
  private readonly deps: RoundDeps;
  readonly sources: readonly LeaseSource[];
  readonly scopes: ReadonlyMap<number, LeaseScope>;

  constructor(
    obj: ManagedObject<unknown>,
    at: { sources: readonly LeaseSource[]; scopes: ReadonlyMap<number, LeaseScope> },
    deps: RoundDeps,
    recorded: { leases: readonly HeldLease[]; retired: readonly RetiredLease[] },
  ) {
    this.obj = obj;
    this.deps = deps;
    this.sources = at.sources;
    this.scopes = at.scopes;
    this.retired = [...recorded.retired];
    const now = deps.now.getTime();
    for (const lease of recorded.leases) this.sort(lease, now);
  }

  private sort(lease: HeldLease, now: number): void {
    const source = this.sources.find((s) => s.index === lease.source);
    const scope = source && this.scopes.get(source.index);
    const same = source && scope && paramsHash(scope, source) === lease.paramsHash;
    if (same && Date.parse(lease.expireAt) > now) {
      this.held.set(lease.source, lease);
      return;
    }
    // Parameters changed, source removed or lease expired: replaced now, revoked after the overlap.
    if (source) this.needNew.add(source.index);
    this.retire(lease, source);
  }

  private retire(lease: HeldLease, source: LeaseSource | undefined): void {
    const now = this.deps.now.getTime();
    const overlap = source ? parseDuration(source.lease.rotationOverlap) : 0;
    const revokeAfter = Math.min(now + overlap, Date.parse(lease.expireAt));
    this.retired.push({ ...lease, revokeAfter: new Date(Math.max(now, revokeAfter)).toISOString() });
  }

  /** Revokes the replaced leases whose overlap has ended. */
  async revokeDue(): Promise<void> {
    const now = this.deps.now.getTime();
    const due = this.retired.filter((l) => Date.parse(l.revokeAfter) <= now);
    for (const lease of due) {
      await revokeLease(this.deps.client, lease.leaseId, scopeOfHeld(lease), this.deps.signal);
      this.retired = this.retired.filter((l) => l.leaseId !== lease.leaseId);
    }
  }

  /** Renews the held leases whose renewal time has come (see the module comment). */
  async renewDue(): Promise<void> {
    for (const [index, lease] of this.held) await this.renewOne(index, lease);
  }

  private async renewOne(index: number, lease: HeldLease): Promise<void> {
    const now = this.deps.now.getTime();
    const expireAt = Date.parse(lease.expireAt);
    if (now < Date.parse(lease.renewAt)) return;
    const source = this.sources.find((s) => s.index === index);
    const ttl = source?.lease.ttl;
    try {
      const renewed = await this.deps.client.dynamicSecretLeases.renew(
        lease.leaseId,
        { ...scopeOfHeld(lease), ...(ttl ? { ttl } : {}) },
        { signal: this.deps.signal },
      );
      const next = Date.parse(renewed.expireAt);
      const at = new Date(renewAt(now, next)).toISOString();
      this.held.set(index, { ...lease, expireAt: new Date(next).toISOString(), renewAt: at });
    } catch (error) {
      if (isRefused(error)) {
        this.needNew.add(index);
        return;
      }
      const until = new Date(expireAt).toISOString();
      throw notRenewed(`cannot renew lease ${lease.leaseId}; it is kept until it expires at ${until}`, error);
    }
  }

  /** The credentials of the lease source `index` held in memory, unless it needs a new lease. */
  credentialsOf(index: number): Readonly<Record<string, string>> | undefined {
    if (this.needNew.has(index)) return undefined;
    const held = this.held.get(index);
    return held && this.deps.credentials.get(held.leaseId);
  }

  /** Issues a new lease for each source of `indexes`; the lease each replaces is retired. */
  async issue(indexes: readonly number[]): Promise<void> {
    for (const index of indexes) {
      const source = this.sources.find((s) => s.index === index);
      const scope = this.scopes.get(index);
      if (source && scope) await this.issueOne(source, scope);
    }
  }

  private async issueOne(source: LeaseSource, scope: LeaseScope): Promise<void> {
    if (!this.mark) {
      // Milliseconds since the epoch would do; an ISO time reads better in kubectl.
      this.mark = new Date().toISOString();
      await this.deps.writeMark(this.mark);
    }
    const { ttl, name } = source.lease;
    const previous = this.held.get(source.index);
    const issued = await this.deps.client.dynamicSecretLeases
      .issue(
        { ...scope, dynamicSecretName: name, ...(ttl ? { ttl } : {}), config: { cofferOwner: this.obj.metadata.uid ?? '' } }, // prettier-ignore
        { signal: this.deps.signal },
      )
      .catch((error: unknown) => {
        // The service did not answer: the lease to be replaced is kept (a refusal stays as it is).
        if (!previous || isRefused(error)) throw error;
        throw notRenewed(`cannot replace lease ${previous.leaseId}; it is kept until it expires at ${previous.expireAt}`, error); // prettier-ignore
      });
    const { lease } = issued;
    this.deps.credentials.set(lease.id, issued.data);
    this.issued.push({ leaseId: lease.id, scope });
    if (previous) this.retire(previous, source);
    const now = this.deps.now.getTime();
    const expireAt = Date.parse(lease.expireAt);
    this.held.set(source.index, {
      source: source.index,
      leaseId: lease.id,
      name,
      projectSlug: scope.projectSlug,
      environment: scope.environmentSlug,
      secretPath: scope.path,
      createdAt: new Date(Date.parse(lease.createdAt)).toISOString(),
      expireAt: new Date(expireAt).toISOString(),
      renewAt: new Date(renewAt(now, expireAt)).toISOString(),
      paramsHash: paramsHash(scope, source),
      mark: this.mark,
      deletionPolicy: source.lease.deletionPolicy,
    });
    this.needNew.delete(source.index);
  }

  /** True when this round issued a lease. */
  get issuedAny(): boolean {
    return this.issued.length > 0;
  }

  /** The delivery failed after issuing: revoke what this round issued (else the mark recovers it). */
  async abandon(): Promise<void> {
    for (const { leaseId, scope } of this.issued) {
      this.deps.credentials.delete(leaseId);
      await revokeLease(this.deps.client, leaseId, scope, this.deps.signal).catch(() => undefined);
    }
  }

  /** Lease ids by source index (for the inputs hash). */
  leaseIds(): string[] {
    return this.sources.map((s) => this.held.get(s.index)?.leaseId ?? '');
  }

  /** The status fields after this round. */
  status(): LeaseStatusFields {
    const leases = [...this.held.values()].sort((a, b) => a.source - b.source);
    const expiries = leases.map((l) => Date.parse(l.expireAt));
    return {
      ...(leases.length > 0 ? { leases, leaseExpiry: new Date(Math.min(...expiries)).toISOString() } : {}),
      ...(this.retired.length > 0 ? { retiredLeases: this.retired } : {}),
    };
  }

  /** Milliseconds until the earliest held lease expires, if any is held. */
  untilExpiryMs(): number | undefined {
    if (this.held.size === 0) return undefined;
    const expiries = [...this.held.values()].map((l) => Date.parse(l.expireAt));
    return Math.min(...expiries) - this.deps.now.getTime();
  }

  /** Milliseconds until the next renewal or revocation, if any. */
  nextDueMs(): number | undefined {
    const times = [
      ...[...this.held.values()].map((l) => Date.parse(l.renewAt)),
      ...this.retired.map((l) => Date.parse(l.revokeAfter)),
    ];
    if (times.length === 0) return undefined;
    return Math.max(1000, Math.min(...times) - this.deps.now.getTime());
  }
}
