/**
 * The devserver's stand-in for the service's revocation queue: a timer that, every `intervalMs`,
 * revokes every lease past its `expireAt` (on the server clock) and finishes the deletion of dynamic
 * secrets marked `deleting` (revoke all their leases, then delete the dynamic secret; a failure
 * marks it `failed-deletion` with the reason). A failed expiry revocation marks the lease
 * `failed-deletion` and is retried after `retryMs` (the service retries every 4 hours).
 */
import type { DevApp } from '../app.ts';
import type { DynamicSecretRecord } from '../state/types.ts';
import { FAILED_DELETION, leasesOf, providerFor, revokeLease } from './leases.ts';

const DEFAULT_RETRY_MS = 4 * 3600_000;

export class LeaseReaper {
  private readonly app: DevApp;
  private readonly intervalMs: number;
  private readonly retryMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** Lease id → earliest clock time of the next attempt after a failure. */
  private readonly retryAt = new Map<string, number>();

  constructor(app: DevApp, intervalMs: number, retryMs = DEFAULT_RETRY_MS) {
    this.app = app;
    this.intervalMs = intervalMs;
    this.retryMs = retryMs;
  }

  /** Starts the periodic sweep (the timer does not keep the process alive). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweep(), this.intervalMs);
    this.timer.unref();
  }

  /** Stops the sweep and waits for one in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass (no-op while a pass is running); errors are recorded on the records, never thrown. */
  sweep(): Promise<void> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pass(): Promise<void> {
    const state = this.app.state;
    for (const ds of Object.values(state.dynamicSecrets)) {
      if (ds.status === 'deleting') await this.prune(ds);
    }
    const now = this.app.now();
    for (const lease of Object.values(state.dynamicSecretLeases)) {
      const ds = state.dynamicSecrets[lease.dynamicSecretId];
      if (!ds || Date.parse(lease.expireAt) > now || (this.retryAt.get(lease.id) ?? 0) > now) continue;
      const after = await revokeLease(this.app, ds, lease, false);
      if (after.status === FAILED_DELETION && state.dynamicSecretLeases[lease.id]) {
        this.retryAt.set(lease.id, now + this.retryMs);
      } else {
        this.retryAt.delete(lease.id);
      }
    }
  }

  private async prune(ds: DynamicSecretRecord): Promise<void> {
    const state = this.app.state;
    try {
      const provider = providerFor(ds.type);
      for (const lease of leasesOf(this.app, ds.id)) {
        await provider.revoke(ds.inputs, lease.externalEntityId, lease.config);
        delete state.dynamicSecretLeases[lease.id];
      }
      delete state.dynamicSecrets[ds.id];
    } catch (err) {
      ds.status = FAILED_DELETION;
      ds.statusDetails = (err instanceof Error ? err.message : String(err)).slice(0, 255);
    }
    this.app.changed();
  }
}
