/**
 * The manager: composition of informers, controllers, probes, metrics and leader election, with
 * one lifecycle.
 *
 * `run(signal)`:
 * 1. serves `/healthz` + `/readyz` and `/metrics` (each optional);
 * 2. starts every informer at once, leader or not, so a standby replica has a warm cache and is
 *    Ready (`/readyz` = every informer synced, independent of leadership);
 * 3. without leader election, starts the controllers once the informers synced; with it, starts
 *    them when this replica becomes leader (and the informers synced);
 * 4. when `signal` aborts (SIGTERM/SIGINT, see `shutdownSignal`): stops taking work, waits up to
 *    `gracefulShutdownTimeoutMs` for in-flight reconciles, then releases the Lease, stops the
 *    informers and closes the servers. Returns `'stopped'`;
 * 5. when leadership is lost, aborts in-flight reconciles at once (their `signal`), shuts down
 *    the same way and returns `'lost'`: the caller should exit non-zero (as controller-runtime
 *    does) rather than keep reconciling without the lease.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Controller, type ControllerOptions } from './controller.ts';
import { HealthProbes, serveHealthProbes } from './health.ts';
import type { ListenAddress, RunningServer } from './http-server.ts';
import { Informer, type InformerOptions, type KubeObject } from './informer.ts';
import { LeaderElector, type ElectionOutcome } from './leader-election.ts';
import { kubeLeaseStore, type LeaseStore } from './lease-store.ts';
import { OperatorMetrics, serveMetrics } from './metrics.ts';

export interface LeaderElectionConfig {
  readonly namespace: string;
  readonly name: string;
  readonly identity?: string;
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  /** Replaces the Kubernetes Lease (tests). */
  readonly store?: LeaseStore;
}

export interface ManagerOptions {
  readonly kubeConfig: KubeConfig;
  readonly log: Logger;
  readonly metrics?: OperatorMetrics;
  /** Namespaces every namespaced informer watches; empty means all. */
  readonly namespaces?: readonly string[];
  /** `null` or absent disables the server. Port 0 picks a free port (see `ports`). */
  readonly metricsBindAddress?: ListenAddress | null;
  readonly healthProbeBindAddress?: ListenAddress | null;
  /** Absent disables leader election (controllers start at once). */
  readonly leaderElection?: LeaderElectionConfig;
  /** Bound on waiting for in-flight reconciles at shutdown (default 30 s). */
  readonly gracefulShutdownTimeoutMs?: number;
  /** Default workers per controller (default 1). */
  readonly maxConcurrentReconciles?: number;
}

/** Options of `Manager.informer`; the manager supplies kube config, namespaces, log and metrics. */
export type ManagedInformerOptions<T extends KubeObject = KubeObject> = Omit<
  InformerOptions<T>,
  'kubeConfig' | 'namespaces' | 'log' | 'onRestart'
>;

/** Options of `Manager.controller`; the manager supplies log, metrics and the default workers. */
export type ManagedControllerOptions = Omit<ControllerOptions, 'log' | 'metrics'>;

export type ManagerExit = 'stopped' | 'lost';

export class Manager {
  readonly kubeConfig: KubeConfig;
  readonly log: Logger;
  readonly metrics: OperatorMetrics;
  readonly probes = new HealthProbes();
  private readonly o: ManagerOptions;
  private readonly informers = new Map<string, Informer<KubeObject>>();
  private readonly controllers: Controller[] = [];
  private readonly servers: { metrics?: RunningServer; health?: RunningServer } = {};
  private elector: LeaderElector | undefined;
  private controllersStarted = false;
  private started = false;
  private stopping: Promise<void> | undefined;

  constructor(options: ManagerOptions) {
    this.o = options;
    this.kubeConfig = options.kubeConfig;
    this.log = options.log;
    this.metrics = options.metrics ?? new OperatorMetrics();
    this.probes.addHealthCheck('ping', () => true);
  }

  /**
   * The informer named `options.name`, created on first use (informers are shared: the Secret
   * informer serves every controller). Must be called before `run`.
   */
  informer<T extends KubeObject>(options: ManagedInformerOptions<T>): Informer<T> {
    const existing = this.informers.get(options.name);
    if (existing) return existing as unknown as Informer<T>;
    if (this.started) throw new Error(`cannot add informer ${options.name}: the manager is running`);
    const informer = new Informer<T>({
      ...options,
      kubeConfig: this.kubeConfig,
      namespaces: this.o.namespaces,
      log: this.log,
      onRestart: () => this.metrics.informerRestarted(options.name),
    });
    this.informers.set(options.name, informer);
    this.probes.addReadyCheck(`informer:${options.name}`, () => informer.hasSynced());
    return informer;
  }

  /** Adds a controller; wire its event sources with `controller.watches(...)`. Before `run` only. */
  controller(options: ManagedControllerOptions): Controller {
    if (this.started) throw new Error(`cannot add controller ${options.name}: the manager is running`);
    const controller = new Controller({
      maxConcurrentReconciles: this.o.maxConcurrentReconciles,
      ...options,
      log: this.log,
      metrics: this.metrics,
    });
    this.controllers.push(controller);
    return controller;
  }

  /** Ports actually bound (useful with port 0). */
  get ports(): { metrics?: number; health?: number } {
    return { metrics: this.servers.metrics?.port, health: this.servers.health?.port };
  }

  /** True while controllers run (always true once started without leader election). */
  isLeader(): boolean {
    return this.elector ? this.elector.isLeader() : this.controllersStarted;
  }

  /** True once every informer finished its initial list. */
  hasSynced(): boolean {
    return [...this.informers.values()].every((i) => i.hasSynced());
  }

  /** Runs until `signal` aborts or leadership is lost; see the module comment. */
  async run(signal: AbortSignal): Promise<ManagerExit> {
    if (this.started) throw new Error('cannot run the manager: it is already running');
    this.started = true;
    await this.startServers();
    const lifetime = new AbortController();
    for (const informer of this.informers.values()) {
      informer.start();
      informer.waitForSync(lifetime.signal).then(
        () => this.metrics.setInformerSynced(informer.name, true),
        () => undefined,
      );
    }
    const stopLifetime = (): void => lifetime.abort();
    signal.addEventListener('abort', stopLifetime, { once: true });
    if (signal.aborted) lifetime.abort();
    try {
      return await this.lead(lifetime);
    } finally {
      signal.removeEventListener('abort', stopLifetime);
      await this.shutDown();
    }
  }

  private async lead(lifetime: AbortController): Promise<ManagerExit> {
    const config = this.o.leaderElection;
    if (!config) {
      await this.startControllersWhenSynced(lifetime.signal);
      await abortedPromise(lifetime.signal);
      await this.stopControllers();
      return 'stopped';
    }
    const electionAbort = new AbortController();
    // Stop the election only after the controllers stopped, so the lease is released last.
    const stopElection = (): void => void this.stopControllers().then(() => electionAbort.abort());
    if (lifetime.signal.aborted) stopElection();
    else lifetime.signal.addEventListener('abort', stopElection, { once: true });
    this.elector = this.newElector(config, lifetime);
    const outcome: ElectionOutcome = await this.elector.run(electionAbort.signal);
    if (outcome === 'lost') {
      // Another replica may lead within (lease duration - renew deadline): abort in-flight
      // reconciles at once instead of granting them the graceful-shutdown time.
      const stopped = this.stopControllers(0);
      lifetime.abort();
      await stopped;
    }
    return outcome;
  }

  private newElector(config: LeaderElectionConfig, lifetime: AbortController): LeaderElector {
    return new LeaderElector({
      store: config.store ?? kubeLeaseStore(this.kubeConfig, config.namespace, config.name),
      identity: config.identity,
      leaseDurationMs: config.leaseDurationMs,
      renewDeadlineMs: config.renewDeadlineMs,
      retryPeriodMs: config.retryPeriodMs,
      log: this.log,
      onStartedLeading: () => {
        this.metrics.setLeader(config.name, true);
        void this.startControllersWhenSynced(lifetime.signal);
      },
      onStoppedLeading: () => this.metrics.setLeader(config.name, false),
      onNewLeader: (identity) => this.log.info({ leader: identity, lease: config.name }, 'observed leader'),
    });
  }

  private async startControllersWhenSynced(signal: AbortSignal): Promise<void> {
    try {
      await Promise.all([...this.informers.values()].map((i) => i.waitForSync(signal)));
    } catch {
      return; // Shutting down before the caches filled: nothing to start.
    }
    if (signal.aborted || this.controllersStarted) return;
    this.controllersStarted = true;
    for (const controller of this.controllers) controller.start();
    this.log.info({ controllers: this.controllers.map((c) => c.name) }, 'controllers started');
  }

  /** Stops every controller once, waiting for in-flight reconciles up to `timeoutMs`. */
  private stopControllers(timeoutMs = this.o.gracefulShutdownTimeoutMs ?? 30_000): Promise<void> {
    this.stopping ??= (async () => {
      const finished = await Promise.all(this.controllers.map((c) => c.stop(timeoutMs)));
      this.controllersStarted = false;
      if (finished.some((f) => !f))
        this.log.warn({ timeoutMs }, 'in-flight reconciles did not finish in time');
    })();
    return this.stopping;
  }

  private async startServers(): Promise<void> {
    if (this.o.healthProbeBindAddress) {
      this.servers.health = await serveHealthProbes(this.probes, this.o.healthProbeBindAddress);
    }
    if (this.o.metricsBindAddress) {
      this.servers.metrics = await serveMetrics(this.metrics, this.o.metricsBindAddress);
    }
    this.log.info({ ports: this.ports }, 'serving probes and metrics');
  }

  private async shutDown(): Promise<void> {
    await this.stopControllers();
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
    await Promise.all([this.servers.metrics?.close(), this.servers.health?.close()]);
    this.log.info('manager stopped');
  }
}

function abortedPromise(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/**
 * An AbortSignal that aborts on the first SIGTERM or SIGINT. A second signal exits the process
 * at once with status 1, for an operator who does not want to wait for the graceful shutdown.
 * `dispose` removes the handlers.
 */
export function shutdownSignal(log: Logger): { signal: AbortSignal; dispose(): void } {
  const abort = new AbortController();
  const onSignal = (name: NodeJS.Signals): void => {
    if (abort.signal.aborted) {
      log.warn({ signal: name }, 'second signal; exiting now');
      process.exit(1);
    }
    log.info({ signal: name }, 'shutting down');
    abort.abort(new Error(`received ${name}`));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return {
    signal: abort.signal,
    dispose: () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    },
  };
}
