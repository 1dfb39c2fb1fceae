/**
 * `startOperator`: the whole operator in-process (the `coffer operator` command, integration
 * tests, the sandbox). It builds a `Manager`, assembles every kind on it, runs it, and returns
 * handles to wait for readiness and to stop gracefully.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { defaultProjectedTokenDir } from '../api/v1alpha1/index.ts';
import { directKindControllers, kindControllers } from '../controllers/index.ts';
import type { KindController } from '../controllers/kind-controller.ts';
import { DEFAULT_POLL_INTERVAL_MS, DEFAULT_WAIT_REQUEUE_MS } from '../managed/reconciler-options.ts';
import type { ListenAddress } from '../runtime/http-server.ts';
import { createLogger } from '../runtime/logger.ts';
import { Manager, type LeaderElectionConfig, type ManagerExit } from '../runtime/manager.ts';
import type { OperatorMetrics } from '../runtime/metrics.ts';
import { assembleOperator } from './assemble.ts';
import type { DirectKindController, DirectServices } from '../managed/direct/kind.ts';

/** Options of `startOperator`; only `kubeConfig` is required. */
export interface StartOperatorOptions {
  readonly kubeConfig: KubeConfig;
  /** Root logger (default: JSON to stdout at `info`). */
  readonly log?: Logger;
  /** Namespaces to watch; empty or absent means all. */
  readonly namespaces?: readonly string[];
  /** Workers per controller (default 4, as `--max-concurrent-reconciles`). */
  readonly maxConcurrentReconciles?: number;
  /** Poll interval for resources without `spec.pollInterval` (default 10 minutes). */
  readonly defaultPollIntervalMs?: number;
  /** Requeue while waiting on a dependency that is not Ready (default 10 s). */
  readonly waitRequeueMs?: number;
  /** `null`/absent disables; port 0 picks a free port (see `RunningOperator.ports`). */
  readonly metricsBindAddress?: ListenAddress | null;
  readonly healthProbeBindAddress?: ListenAddress | null;
  /** Absent: no leader election (controllers start once the caches synced). */
  readonly leaderElection?: LeaderElectionConfig;
  /** Bound on waiting for in-flight reconciles at stop (default 30 s). */
  readonly gracefulShutdownTimeoutMs?: number;
  /** Managed kinds to run (default: every managed kind of the registry, `src/controllers/index.ts`). */
  readonly kinds?: readonly KindController[];
  /** Direct kinds to run (default: every direct kind of the registry). */
  readonly directKinds?: readonly DirectKindController[];
  /** Grace period before a replaced connection client is closed (default 30 s). */
  readonly clientCloseDelayMs?: number;
  /** The operator's own namespace (`--operator-namespace`): a Connection there may use its projected token. */
  readonly operatorNamespace?: string;
  /** The only directory projected token files are read from (`--projected-token-dir`; default the chart's mount). */
  readonly projectedTokenDir?: string;
  readonly metrics?: OperatorMetrics;
  readonly now?: () => Date;
}

/** A running operator. */
export interface RunningOperator {
  /** Resolves once every informer synced and the controllers run (this replica leads). */
  readonly ready: Promise<void>;
  /** Resolves when the manager stopped: `'stopped'`, or `'lost'` after losing leadership. */
  readonly exited: Promise<ManagerExit>;
  readonly manager: Manager;
  readonly services: DirectServices;
  /** Ports actually bound (useful with port 0). */
  readonly ports: { metrics?: number; health?: number };
  /** Resolves when every Kubernetes event recorded so far was written (they are written in the background). */
  flushEvents(): Promise<void>;
  /** Graceful stop: no new work, in-flight reconciles finish (bounded), Lease released. */
  stop(): Promise<void>;
}

const readyPollMs = 100;

function whenReady(manager: Manager, exited: Promise<unknown>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = false;
    const timer = setInterval(() => {
      if (manager.hasSynced() && manager.isLeader()) finish(() => resolve());
    }, readyPollMs);
    const finish = (then: () => void): void => {
      if (done) return;
      done = true;
      clearInterval(timer);
      then();
    };
    const never = new Error('cannot start the operator: it stopped before becoming ready');
    void exited.then(
      () => finish(() => reject(never)),
      (error: unknown) => finish(() => reject(error instanceof Error ? error : never)),
    );
    signal.addEventListener('abort', () => finish(() => reject(never)), { once: true });
  });
}

function newManager(options: StartOperatorOptions): Manager {
  return new Manager({
    kubeConfig: options.kubeConfig,
    log: options.log ?? createLogger({ level: 'info', name: 'coffer' }),
    namespaces: options.namespaces ?? [],
    metricsBindAddress: options.metricsBindAddress ?? null,
    healthProbeBindAddress: options.healthProbeBindAddress ?? null,
    maxConcurrentReconciles: options.maxConcurrentReconciles ?? 4,
    metrics: options.metrics,
    leaderElection: options.leaderElection,
    gracefulShutdownTimeoutMs: options.gracefulShutdownTimeoutMs,
  });
}

function assemble(options: StartOperatorOptions, manager: Manager) {
  return assembleOperator({
    manager,
    kinds: options.kinds ?? kindControllers,
    directKinds: options.directKinds ?? directKindControllers,
    namespaces: options.namespaces ?? [],
    defaultPollIntervalMs: options.defaultPollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    waitRequeueMs: options.waitRequeueMs ?? DEFAULT_WAIT_REQUEUE_MS,
    now: options.now ?? (() => new Date()),
    clientCloseDelayMs: options.clientCloseDelayMs,
    ...(options.operatorNamespace ? { operatorNamespace: options.operatorNamespace } : {}),
    projectedTokenDir: options.projectedTokenDir ?? defaultProjectedTokenDir,
  });
}

/** Starts the operator; see `RunningOperator`. */
export async function startOperator(options: StartOperatorOptions): Promise<RunningOperator> {
  const manager = newManager(options);
  const operator = assemble(options, manager);
  const stopping = new AbortController();
  const background = new AbortController();
  let settled = false;
  const exited = manager.run(stopping.signal).finally(async () => {
    settled = true;
    background.abort();
    await operator.close();
  });
  const ready = whenReady(manager, exited, stopping.signal);
  ready.then(
    () => operator.startBackground(background.signal),
    () => undefined,
  );
  // Let the servers bind so `ports` is meaningful once this resolves (a bind failure ends `exited`).
  const wanted = {
    metrics: Boolean(options.metricsBindAddress),
    health: Boolean(options.healthProbeBindAddress),
  };
  while (!settled && !serversBound(manager, wanted)) await new Promise((resolve) => setTimeout(resolve, 5));
  return {
    ready,
    exited,
    manager,
    services: operator.services,
    get ports() {
      return manager.ports;
    },
    flushEvents: () => operator.flushEvents(),
    async stop() {
      stopping.abort(new Error('operator stopped'));
      await exited;
    },
  };
}

function serversBound(manager: Manager, wanted: { metrics: boolean; health: boolean }): boolean {
  const ports = manager.ports;
  return (!wanted.metrics || ports.metrics !== undefined) && (!wanted.health || ports.health !== undefined);
}
