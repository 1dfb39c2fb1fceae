/**
 * The leases of WorkloadSecrets with `dynamicSecret` sources. Each delivery starts a round
 * (`round.ts`) from the resource as the API server holds it now (never a cached copy a step
 * behind, which could miss a lease just recorded): first a lease issued under a mark that no
 * recorded lease carries is looked for and revoked (crash-safe issuance: the operator was stopped
 * between asking for a lease and recording it), then the replaced leases whose overlap is over
 * are revoked and the leases due are renewed. The leases a recovery may revoke are only this
 * resource's: created at or after the mark and issued with its uid (`config.cofferOwner`), and
 * recorded nowhere in its status. On deletion every lease with `deletionPolicy: Revoke` (and
 * every replaced one) is revoked.
 */
import type { WorkloadSecretSpec, WorkloadSecretStatus } from '../../../api/v1alpha1/index.ts';
import type { Lease, LeaseScope, ServiceClient } from '../../../client/index.ts';
import type { DirectServices } from '../../../managed/direct/kind.ts';
import type { ManagedObject } from '../../../managed/external-client.ts';
import { kubernetesStatus } from '../../../runtime/errors.ts';
import type { SourceContext } from '../sources.ts';
import { LeaseRound } from './round.ts';
import { leaseScopeOf, leaseSources, scopeOfHeld, type HeldLease, type LeaseSource } from './scope.ts';
import { ANNOTATION_LEASE_PENDING, isRefused, revokeLease } from './service-calls.ts';

/** How far a lease's creation time may be before the mark (clocks of operator and service). */
export const MARK_SKEW_MS = 5 * 60_000;

type Obj = ManagedObject<WorkloadSecretSpec>;

interface FreshObject {
  metadata: { annotations?: Record<string, string> };
  status?: Partial<WorkloadSecretStatus>;
}

/** What a round starts from. */
export interface RoundStart extends SourceContext {
  readonly now: Date;
}

function objectPath(obj: ManagedObject<unknown>): string {
  const ns = encodeURIComponent(obj.metadata.namespace ?? '');
  return `/apis/coffer.dev/v1alpha1/namespaces/${ns}/workloadsecrets/${encodeURIComponent(obj.metadata.name)}`;
}

function isOurs(lease: Lease, uid: string, notBefore: number): boolean {
  const owner = (lease.config as { cofferOwner?: unknown } | null | undefined)?.cofferOwner;
  return owner === uid && Date.parse(lease.createdAt) >= notBefore;
}

interface RecoveryScope {
  readonly sources: readonly LeaseSource[];
  readonly scopes: ReadonlyMap<number, LeaseScope>;
  readonly client: ServiceClient;
  readonly signal: AbortSignal;
  readonly log: SourceContext['services']['log'];
}

/** True when `status` records a held or a replaced lease. */
function holdsAny(status: unknown): boolean {
  const s = status as Partial<WorkloadSecretStatus> | undefined;
  return (s?.leases?.length ?? 0) + (s?.retiredLeases?.length ?? 0) > 0;
}

/** The leases of the dynamic secret `name`; none when it (or its folder) is gone. */
async function listLeases(
  client: ServiceClient,
  name: string,
  scope: LeaseScope,
  signal: AbortSignal,
): Promise<Lease[]> {
  try {
    return await client.dynamicSecretLeases.list(name, scope, { signal });
  } catch (error) {
    if (isRefused(error)) return [];
    throw error;
  }
}

export class LeaseHolder {
  private readonly credentials = new Map<string, Readonly<Record<string, string>>>();

  private readonly services: Pick<DirectServices, 'kubeRequest'>;

  constructor(services: Pick<DirectServices, 'kubeRequest'>) {
    this.services = services;
  }

  private async readFresh(obj: ManagedObject<unknown>, signal: AbortSignal): Promise<FreshObject> {
    return (await this.services.kubeRequest({ method: 'GET', path: objectPath(obj), signal })) as FreshObject;
  }

  private async annotate(obj: ManagedObject<unknown>, mark: string | null): Promise<void> {
    await this.services.kubeRequest({
      method: 'PATCH',
      path: objectPath(obj),
      body: { metadata: { annotations: { [ANNOTATION_LEASE_PENDING]: mark } } },
      contentType: 'application/merge-patch+json',
    });
  }

  /** The round of one delivery, or undefined when `obj` holds and needs no lease. */
  async begin(
    obj: Obj,
    ctx: RoundStart,
  ): Promise<{ round: LeaseRound; status: Partial<WorkloadSecretStatus> } | undefined> {
    const sources = leaseSources(obj.spec.sources);
    // No lease source and none recorded: nothing to read (the cached status is enough to say so).
    if (sources.length === 0 && !holdsAny(obj.status)) return undefined;
    const fresh = await this.readFresh(obj, ctx.signal);
    const status = fresh.status ?? {};
    if (sources.length === 0 && !holdsAny(status)) return undefined;
    const recorded = { leases: status.leases ?? [], retired: status.retiredLeases ?? [] };
    const scopes = new Map<number, LeaseScope>();
    for (const s of sources) scopes.set(s.index, await leaseScopeOf(obj, s.source, ctx));
    await this.recover(obj, fresh, { sources, scopes, client: ctx.client, signal: ctx.signal, log: ctx.services.log }); // prettier-ignore
    const deps = {
      client: ctx.client,
      signal: ctx.signal,
      now: ctx.now,
      credentials: this.credentials,
      writeMark: (mark: string) => this.annotate(obj, mark),
    };
    const round = new LeaseRound(obj, { sources, scopes }, deps, recorded);
    await round.revokeDue();
    await round.renewDue();
    return { round, status };
  }

  /** Revokes the leases issued under an unacknowledged mark and recorded nowhere (module comment). */
  private async recover(obj: ManagedObject<unknown>, fresh: FreshObject, at: RecoveryScope): Promise<void> {
    const mark = fresh.metadata.annotations?.[ANNOTATION_LEASE_PENDING];
    if (!mark) return;
    const recorded = [...(fresh.status?.leases ?? []), ...(fresh.status?.retiredLeases ?? [])];
    if (recorded.some((l) => l.mark === mark)) return;
    const known = new Set(recorded.map((l) => l.leaseId));
    const notBefore = Date.parse(mark) - MARK_SKEW_MS;
    for (const source of at.sources) {
      const scope = at.scopes.get(source.index);
      if (!scope) continue;
      const leases = await listLeases(at.client, source.lease.name, scope, at.signal);
      const leaked = leases.filter((l) => !known.has(l.id) && isOurs(l, obj.metadata.uid ?? '', notBefore));
      for (const lease of leaked) await revokeLease(at.client, lease.id, scope, at.signal);
      if (leaked.length > 0)
        at.log.info(
          { dynamicSecret: source.lease.name, count: leaked.length },
          'revoked leases issued but never recorded',
        );
    }
    await this.annotate(obj, null);
  }

  /** Revokes what a deleted `obj` holds (see the module comment); safe to repeat. */
  async release(obj: ManagedObject<unknown>, client: ServiceClient, ctx: RoundStart): Promise<void> {
    const spec = obj.spec as Partial<WorkloadSecretSpec> | undefined;
    const sources = leaseSources(spec?.sources ?? []);
    const fresh = await this.readFresh(obj, ctx.signal).catch((error: unknown) => {
      if (kubernetesStatus(error) === 404) return undefined;
      throw error;
    });
    // Already gone: an earlier release let go of it.
    if (!fresh) return;
    const scopes = new Map<number, LeaseScope>();
    for (const s of sources) {
      const scope = await leaseScopeOf(obj, s.source, ctx).catch(() => undefined);
      if (scope) scopes.set(s.index, scope);
    }
    await this.recover(obj, fresh, { sources, scopes, client, signal: ctx.signal, log: ctx.services.log });
    const held: HeldLease[] = (fresh.status?.leases ?? []).filter((l) => l.deletionPolicy === 'Revoke');
    for (const lease of [...held, ...(fresh.status?.retiredLeases ?? [])]) {
      await revokeLease(client, lease.leaseId, scopeOfHeld(lease), ctx.signal);
      this.credentials.delete(lease.leaseId);
    }
  }
}
