/**
 * A running sandbox (see `start.ts`): its cluster, devserver, operator and samples.
 * `waitUntilReady` polls the resources' conditions; `stop` undoes everything `startSandbox`
 * started (operator, devserver, control plane processes, temporary directories), in reverse.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { DevServer } from '../devserver/server.ts';
import type { RunningOperator } from '../operator/start.ts';
import { resourceKey } from './blocked.ts';
import { saveBootstrapOutput, saveExternalIds } from './data-dir.ts';
import type { SandboxCluster } from './cluster-source.ts';
import type { DynamicSecretBackend } from './dynamic-secret-sample.ts';
import { recordsOf, saveDynamicSecrets } from './dynamic-secret-reuse.ts';
import type { SamplePlan } from './samples.ts';
import { allSettled, readStates, type ResourceState } from './status.ts';

/** Options of {@link Sandbox.waitUntilReady}. */
export interface WaitOptions {
  readonly timeoutMs: number;
  /** Pause between polls (default 250 ms). */
  readonly intervalMs?: number;
  /** Called with every poll's states (to draw them). */
  readonly onStates?: (states: readonly ResourceState[]) => void;
  readonly signal?: AbortSignal;
}

/** How long each start-up phase took, in order. */
export type Phases = Array<{ readonly name: string; readonly ms: number }>;

/** Something to undo at stop. */
export type Cleanup = () => Promise<void> | void;

/** A running sandbox; see the module comment. */
export class Sandbox {
  readonly cluster: SandboxCluster;
  readonly namespace: string;
  readonly devserver: DevServer;
  /** The in-process operator; undefined when the operator runs in the cluster (`--node`). */
  readonly operator: RunningOperator | undefined;
  readonly plan: SamplePlan;
  /** Kinds the operator reconciles; resources of other kinds show as waiting. */
  readonly registeredKinds: ReadonlySet<string>;
  /** Resources that cannot get Ready in this build (see `blocked.ts`), by `resourceKey`. */
  readonly blocked: ReadonlySet<string>;
  /** The in-process operator's log file; with an operator in the cluster, the pod log directory. */
  readonly operatorLogPath: string;
  /** The command that shows the log of an operator running in the cluster. */
  readonly operatorLogCommand: string | undefined;
  readonly dataDir: string | undefined;
  readonly phases: Phases;
  readonly startedAt: number;
  readonly #custom: CustomObjectsApi;
  readonly #cleanups: Cleanup[];
  #stopped: Promise<void> | undefined;

  /** Use {@link startSandbox}. */
  constructor(parts: {
    cluster: SandboxCluster;
    namespace: string;
    devserver: DevServer;
    operator: RunningOperator | undefined;
    plan: SamplePlan;
    registeredKinds: ReadonlySet<string>;
    blocked: ReadonlySet<string>;
    operatorLogPath: string;
    operatorLogCommand?: string;
    dataDir: string | undefined;
    phases: Phases;
    startedAt: number;
    cleanups: Cleanup[];
  }) {
    this.cluster = parts.cluster;
    this.namespace = parts.namespace;
    this.devserver = parts.devserver;
    this.operator = parts.operator;
    this.plan = parts.plan;
    this.registeredKinds = parts.registeredKinds;
    this.blocked = parts.blocked;
    this.operatorLogPath = parts.operatorLogPath;
    this.operatorLogCommand = parts.operatorLogCommand;
    this.dataDir = parts.dataDir;
    this.phases = parts.phases;
    this.startedAt = parts.startedAt;
    this.#custom = parts.cluster.kubeConfig().makeApiClient(CustomObjectsApi);
    this.#cleanups = parts.cleanups;
  }

  /** What the DynamicSecret sample issues leases from (its PostgreSQL, or the cluster). */
  get dynamicSecrets(): DynamicSecretBackend | undefined {
    return this.plan.dynamicSecrets;
  }

  /** The current state of every resource the sandbox waits for. */
  states(): Promise<ResourceState[]> {
    return readStates(this.#custom, this.plan.resources, this.registeredKinds, this.blocked);
  }

  /**
   * Polls until every resource that can get Ready in this build is Ready and Synced for its
   * current generation (`ready: true`) or `timeoutMs` passes (`ready: false`); returns the last
   * states. With a `dataDir`, a Ready run saves the
   * Bootstrap's output there for the next run.
   */
  async waitUntilReady(options: WaitOptions): Promise<{ ready: boolean; states: ResourceState[] }> {
    const deadline = Date.now() + options.timeoutMs;
    for (;;) {
      let states: ResourceState[] | undefined;
      try {
        states = await this.states();
        options.onStates?.(states);
      } catch {
        // A failed poll (API server busy) is retried; the deadline still applies.
      }
      if (states && allSettled(states)) {
        await this.#saveForNextRun(states);
        return { ready: true, states };
      }
      if (Date.now() >= deadline || options.signal?.aborted)
        return { ready: false, states: states ?? (await this.states()) };
      await sleep(options.intervalMs ?? 250);
    }
  }

  /**
   * With a data dir: what the next run needs to reuse the devserver's state (see `data-dir.ts`
   * and `dynamic-secret-reuse.ts`).
   */
  async #saveForNextRun(states: readonly ResourceState[]): Promise<void> {
    if (!this.dataDir) return;
    const ids = new Map<string, string>();
    for (const state of states) if (state.externalId) ids.set(resourceKey(state), state.externalId);
    saveExternalIds(ids, this.dataDir);
    saveDynamicSecrets(await recordsOf(this.#custom, this.plan.samples), this.dataDir);
    const name = this.plan.bootstrapObject.spec?.['outputSecretName'];
    if (typeof name !== 'string') return;
    const core = this.cluster.kubeConfig().makeApiClient(CoreV1Api);
    await saveBootstrapOutput(core, { namespace: this.namespace, name }, this.dataDir);
  }

  /** Stops everything the sandbox started, in reverse order. Safe to call twice. */
  stop(): Promise<void> {
    this.#stopped ??= runCleanups(this.#cleanups);
    return this.#stopped;
  }
}

/** Runs `cleanups` last-first, each even when an earlier one failed; empties the list. */
export async function runCleanups(cleanups: Cleanup[]): Promise<void> {
  const errors: unknown[] = [];
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length > 0) throw new AggregateError(errors, 'cannot stop the sandbox cleanly');
}
