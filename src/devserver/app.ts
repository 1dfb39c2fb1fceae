/**
 * The devserver's application context handed to every route module: the state, the clock,
 * id generation and the change notification that drives persistence.
 */
import { randomUUID } from 'node:crypto';
import { EventHub } from './domain/event-hub.ts';
import { SecretStore, type SecretStoreState } from './domain/secret-store.ts';
import { LeaseReaper } from './dynamic-secrets/lease-reaper.ts';
import type { StateData } from './state/types.ts';

function isStoreState(value: unknown): value is SecretStoreState {
  return (
    typeof value === 'object' && value !== null && Array.isArray((value as SecretStoreState).environments)
  );
}

/**
 * One Kubernetes-auth login the service accepted, as the API server's TokenReview described the
 * token: non-secret identifiers only (never the token).
 */
export interface KubernetesLoginRecord {
  readonly identityId: string;
  /** ISO-8601 time of the login on the server's clock. */
  readonly time: string;
  /** The review's `authentication.kubernetes.io/credential-id` (`JTI=<the token's jti>`), or ''. */
  readonly credentialId: string;
  /** The review's `authentication.kubernetes.io/pod-name` (a Pod-bound token), or ''. */
  readonly podName: string;
}

/** How many Kubernetes-auth logins {@link DevApp.kubernetesLogins} keeps (the latest). */
const keptKubernetesLogins = 1000;

export interface DevAppOptions {
  state: StateData;
  /** Secret-store JSON from a snapshot, if any. */
  secrets: unknown;
  now: () => number;
  onChange: () => void;
  /** How often expired dynamic-secret leases are revoked, in ms (default 1000). */
  leaseSweepMs?: number;
}

/** Shared context for route handlers. */
export class DevApp {
  state: StateData;
  /** Folders and secrets of every project environment. */
  readonly secrets: SecretStore;
  /** Open project event streams. */
  readonly events: EventHub;
  /** Revokes expired dynamic-secret leases and finishes dynamic-secret deletions. */
  readonly leaseReaper: LeaseReaper;
  private readonly clock: () => number;
  private readonly onChange: () => void;
  private readonly loginRecords: KubernetesLoginRecord[] = [];

  constructor(options: DevAppOptions) {
    this.state = options.state;
    this.clock = options.now;
    this.onChange = options.onChange;
    const storeOptions = { now: () => new Date(this.clock()) };
    this.secrets = isStoreState(options.secrets)
      ? SecretStore.fromJSON(options.secrets, storeOptions)
      : new SecretStore(storeOptions);
    this.events = new EventHub({ now: this.clock });
    this.leaseReaper = new LeaseReaper(this, options.leaseSweepMs ?? 1000);
  }

  /** JSON of the secret store, for persistence. */
  secretsSnapshot(): SecretStoreState {
    return this.secrets.toJSON();
  }

  /** Ends open event streams and the lease sweep (server shutdown). */
  async shutdown(): Promise<void> {
    this.events.closeAll();
    await this.leaseReaper.stop();
  }

  /** Milliseconds since the epoch on the server's clock (injectable for tests). */
  now(): number {
    return this.clock();
  }

  /** The current time as an ISO-8601 string. */
  iso(): string {
    return new Date(this.clock()).toISOString();
  }

  /** A new random UUID. */
  newId(): string {
    return randomUUID();
  }

  /** Records an accepted Kubernetes-auth login (in memory, the latest 1000; not persisted). */
  recordKubernetesLogin(record: KubernetesLoginRecord): void {
    this.loginRecords.push(record);
    if (this.loginRecords.length > keptKubernetesLogins) this.loginRecords.shift();
  }

  /** The Kubernetes-auth logins accepted so far, oldest first (a copy). */
  kubernetesLogins(): KubernetesLoginRecord[] {
    return [...this.loginRecords];
  }

  /** Signals a state change so the persister saves it. */
  changed(): void {
    this.onChange();
  }
}
