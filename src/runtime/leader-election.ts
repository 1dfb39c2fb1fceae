/**
 * Leader election on a `coordination.k8s.io/v1` Lease, with client-go's semantics:
 *
 * - a candidate takes the lease when it does not exist, has no holder (released), or its holder
 *   has not renewed it for `leaseDurationMs` as measured on this candidate's own clock since it
 *   last saw the record change (so clock skew between nodes does not matter);
 * - candidates retry every `retryPeriodMs` (jittered up to ×2.2); the leader renews every
 *   `retryPeriodMs` and gives up leading once it could not renew for `renewDeadlineMs`;
 * - every write is an optimistic-concurrency update, so at most one candidate wins a race;
 * - on a graceful stop the leader releases the lease (empty holder, 1 s duration), so a
 *   successor takes over at once instead of waiting for the lease to expire.
 *
 * Defaults are controller-runtime's: 15 s lease, 10 s renew deadline, 2 s retry.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { sleepOn, systemClock, type Clock } from './clock.ts';
import { LeaseConflictError, type LeaseRecord, type LeaseStore, type VersionedLease } from './lease-store.ts';

export interface LeaderElectionOptions {
  readonly store: LeaseStore;
  /** Unique per process; default `defaultIdentity()`. */
  readonly identity?: string;
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  readonly log: Logger;
  readonly clock?: Clock;
  readonly random?: () => number;
  /** Called once this candidate holds the lease. */
  readonly onStartedLeading?: () => void;
  /** Called when this candidate stops leading (lost the lease or stopped), after a release. */
  readonly onStoppedLeading?: () => void;
  /** Called when the observed holder changes (including to this candidate). */
  readonly onNewLeader?: (identity: string) => void;
}

/** How a `run` ended. */
export type ElectionOutcome = 'stopped' | 'lost';

/** `hostname_<random hex>`: unique even when two processes share a host name. */
export function defaultIdentity(): string {
  return `${hostname()}_${randomBytes(4).toString('hex')}`;
}

export class LeaderElector {
  readonly identity: string;
  private readonly o: LeaderElectionOptions;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly leaseMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryMs: number;
  private observed: VersionedLease | undefined;
  private observedAt = 0;
  private leading = false;

  constructor(options: LeaderElectionOptions) {
    this.o = options;
    this.identity = options.identity ?? defaultIdentity();
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.leaseMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryMs = options.retryPeriodMs ?? 2_000;
  }

  /** True while this candidate holds the lease. */
  isLeader(): boolean {
    return this.leading;
  }

  /**
   * Campaigns until leading, then renews until `signal` aborts ('stopped', lease released) or
   * renewing fails for the renew deadline ('lost'). Never rejects.
   */
  async run(signal: AbortSignal): Promise<ElectionOutcome> {
    while (!signal.aborted && !(await this.tryAcquireOrRenew())) {
      await this.sleep(this.retryMs * (1 + 1.2 * this.random()), signal);
    }
    if (signal.aborted) return 'stopped';
    this.leading = true;
    this.o.log.info({ identity: this.identity, lease: this.o.store.description }, 'became leader');
    this.o.onStartedLeading?.();
    const outcome = await this.renewLoop(signal);
    this.leading = false;
    if (outcome === 'stopped') await this.release();
    else this.o.log.error({ identity: this.identity, lease: this.o.store.description }, 'lost leadership');
    this.o.onStoppedLeading?.();
    return outcome;
  }

  private async renewLoop(signal: AbortSignal): Promise<ElectionOutcome> {
    let lastRenew = this.clock.now();
    while (!signal.aborted) {
      await this.sleep(this.retryMs, signal);
      if (signal.aborted) break;
      const remaining = this.renewDeadlineMs - (this.clock.now() - lastRenew);
      if (await this.withTimeout(this.tryAcquireOrRenew(), remaining)) lastRenew = this.clock.now();
      else if (this.clock.now() - lastRenew >= this.renewDeadlineMs) return 'lost';
    }
    return 'stopped';
  }

  /** One attempt; true when this candidate holds the lease afterwards. Errors count as false. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    try {
      const current = await this.o.store.get();
      if (!current) return this.write(() => this.o.store.create(this.nextRecord(undefined)));
      this.observe(current);
      const holder = current.record.holderIdentity;
      const expiresAt = this.observedAt + current.record.leaseDurationSeconds * 1000;
      if (holder !== '' && holder !== this.identity && expiresAt > this.clock.now()) return false;
      return await this.write(() => this.o.store.update(this.nextRecord(current.record), current.version));
    } catch (error) {
      this.o.log.debug({ err: error, lease: this.o.store.description }, 'cannot acquire or renew lease');
      return false;
    }
  }

  private async write(call: () => Promise<VersionedLease>): Promise<boolean> {
    try {
      this.observe(await call());
      return true;
    } catch (error) {
      if (error instanceof LeaseConflictError) return false;
      throw error;
    }
  }

  private nextRecord(previous: LeaseRecord | undefined): LeaseRecord {
    const now = this.clock.now();
    const same = previous?.holderIdentity === this.identity;
    return {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.ceil(this.leaseMs / 1000),
      acquireTimeMs: same ? (previous.acquireTimeMs ?? now) : now,
      renewTimeMs: now,
      leaseTransitions: (previous?.leaseTransitions ?? 0) + (previous && !same ? 1 : 0),
    };
  }

  /** Remembers when the record last changed, by this candidate's clock. */
  private observe(lease: VersionedLease): void {
    const changed = !this.observed || JSON.stringify(this.observed.record) !== JSON.stringify(lease.record);
    if (!changed) return;
    const previousHolder = this.observed?.record.holderIdentity;
    this.observed = lease;
    this.observedAt = this.clock.now();
    const holder = lease.record.holderIdentity;
    if (holder !== '' && holder !== previousHolder) this.o.onNewLeader?.(holder);
  }

  /** Gives the lease up if we still hold it, so a successor need not wait for it to expire. */
  private async release(): Promise<void> {
    const held = this.observed;
    if (!held || held.record.holderIdentity !== this.identity) return;
    const now = this.clock.now();
    const record: LeaseRecord = {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTimeMs: now,
      renewTimeMs: now,
      leaseTransitions: held.record.leaseTransitions,
    };
    try {
      const released = this.o.store.update(record, held.version);
      if (
        await this.withTimeout(
          released.then(() => true),
          this.renewDeadlineMs,
        )
      ) {
        this.o.log.info({ identity: this.identity, lease: this.o.store.description }, 'released leadership');
      }
    } catch (error) {
      this.o.log.warn(
        { err: error, lease: this.o.store.description },
        'cannot release lease; it will expire',
      );
    }
  }

  /** Resolves to false when `promise` does not settle within `ms` (the call is abandoned). */
  private withTimeout(promise: Promise<boolean>, ms: number): Promise<boolean> {
    let cancel = (): void => undefined;
    const timeout = new Promise<boolean>((resolve) => {
      cancel = this.clock.setTimeout(() => resolve(false), Math.max(1, ms));
    });
    return Promise.race([promise, timeout]).finally(() => cancel());
  }

  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    return sleepOn(this.clock, ms, signal);
  }
}
