/**
 * `coffer sandbox` (`npm run sandbox`): a complete local playground in one command. Starts a local
 * control plane (building the binaries on first use), installs the CRDs, starts a devserver (and,
 * when PostgreSQL is installed, a private PostgreSQL for the DynamicSecret sample), bootstraps it
 * through a Bootstrap resource, runs the operator in-process and applies `config/samples/`; shows
 * every resource's Ready/Synced state until all are Ready and Synced (a table redrawn in place on a
 * terminal, one line per change otherwise), then the kubeconfig and commands to try. Runs until Ctrl-C, then stops everything and removes its temporary files.
 *
 *   coffer sandbox [--kubeconfig PATH] [--data-dir DIR] [--namespace default] [--timeout 3m]
 *                  [--log-level info] [--exit-when-ready] [--node]
 *
 * With --node it runs as users run Coffer (src/sandbox/node-install/): the control plane gets a
 * node (containerd, kubelet; root), the operator image is built from the Dockerfile and imported
 * into it, `helm install` runs the operator as a Deployment, and the samples' demo-app Pod runs.
 *
 * Exit status: 0 after Ctrl-C once all were Ready and Synced (or with --exit-when-ready), 1 when
 * the resources did not get there in time or start-up failed, 2 for bad flags.
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { tryParseDuration } from '../runtime/duration.ts';
import { InstallInterruptedError } from '../sandbox/install-script.ts';
import type { Sandbox } from '../sandbox/sandbox.ts';
import { startNodeSandbox } from '../sandbox/node-install/start.ts';
import { startSandbox, type SandboxOptions } from '../sandbox/start.ts';
import type { ResourceState } from '../sandbox/status.ts';
import { changedLines, failureLines, renderTable, summaryLine } from '../sandbox/table.ts';

const USAGE = `usage: coffer sandbox [--kubeconfig PATH] [--data-dir DIR] [--namespace default]
                      [--timeout 3m] [--log-level info] [--exit-when-ready] [--node]

  --kubeconfig PATH   use this cluster (its current context) instead of a local control plane
  --data-dir DIR      keep the devserver's state and the operator log in DIR across runs
  --namespace NAME    namespace of the samples (default: default)
  --timeout DURATION  how long to wait for all resources to be Ready and Synced (default: 3m)
  --log-level LEVEL   operator log level: debug, info, warn, error (default: info)
  --exit-when-ready   stop and exit once everything is Ready and Synced (for scripts and timing)
  --node              run it as users run Coffer: the local control plane gets a node (containerd,
                      kubelet, kube-proxy; needs root), the operator image is built from the
                      Dockerfile and imported into it (never pulled), \`helm install\` of
                      charts/coffer runs the operator as a Deployment, a devserver listens on the
                      node's address, and the samples' demo-app Deployment runs (on a locally built
                      image). Ctrl-C stops all of it and restores the machine. Not with
                      --kubeconfig or --data-dir.`;

const logLevels = ['debug', 'info', 'warn', 'error'] as const;

/** Parsed flags of `coffer sandbox`. */
export interface SandboxArgs {
  readonly options: SandboxOptions;
  readonly timeoutMs: number;
  readonly exitWhenReady: boolean;
  /** Run the operator from its image on a node of the local control plane (`--node`). */
  readonly node: boolean;
}

/** `--node` runs its own control plane: it does not combine with another cluster or a data dir. */
function checkNodeFlags(values: { node?: boolean; kubeconfig?: string; 'data-dir'?: string }): void {
  if (values.node && (values.kubeconfig !== undefined || values['data-dir'] !== undefined))
    throw new Error(
      'cannot use --node with --kubeconfig or --data-dir: the node is part of a local control plane',
    );
}

/** Turns command-line flags into sandbox options; throws with a readable message. */
export function parseSandboxArgs(args: string[]): SandboxArgs {
  const { values } = parseArgs({
    args,
    options: {
      kubeconfig: { type: 'string' },
      'data-dir': { type: 'string' },
      namespace: { type: 'string' },
      timeout: { type: 'string' },
      'log-level': { type: 'string' },
      'exit-when-ready': { type: 'boolean' },
      node: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: false,
  });
  const timeoutMs = tryParseDuration(values.timeout ?? '3m');
  if (timeoutMs === undefined || timeoutMs <= 0)
    throw new Error(`cannot parse --timeout "${values.timeout}": expected a duration like 90s or 3m`);
  const level = values['log-level'] ?? 'info';
  if (!(logLevels as readonly string[]).includes(level))
    throw new Error(`cannot parse --log-level "${level}": expected one of ${logLevels.join(', ')}`);
  checkNodeFlags(values);
  if (values.namespace !== undefined && !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(values.namespace))
    throw new Error(`cannot use --namespace "${values.namespace}": not a namespace name`);
  return {
    options: {
      kubeconfig: values.kubeconfig,
      dataDir: values['data-dir'],
      namespace: values.namespace,
      operatorLogLevel: level as (typeof logLevels)[number],
    },
    timeoutMs,
    exitWhenReady: values['exit-when-ready'] ?? false,
    node: values.node ?? false,
  };
}

/** Draws the table: in place on a terminal, changed lines otherwise. */
class Display {
  readonly #tty = process.stdout.isTTY;
  #drawn = 0;
  #previous = new Map<string, string>();

  show(states: readonly ResourceState[]): void {
    const elapsed = performance.now();
    if (!this.#tty) {
      const { lines, next } = changedLines(states, this.#previous);
      this.#previous = next;
      for (const line of lines) console.log(line);
      return;
    }
    const width = process.stdout.columns || 120;
    const lines = [...renderTable(states, width), '', summaryLine(states, elapsed)];
    // Back to the table's first line, clear below, redraw (every row fits one terminal line).
    const rewind = this.#drawn > 0 ? `\x1b[${this.#drawn}F\x1b[0J` : '';
    process.stdout.write(`${rewind}${lines.join('\n')}\n`);
    this.#drawn = lines.length;
  }

  /** The final table, printed in full when the output is not a terminal. */
  finish(states: readonly ResourceState[]): void {
    if (this.#tty) return this.show(states);
    console.log('');
    for (const line of renderTable(states)) console.log(line);
  }
}

function phaseText(sandbox: Sandbox): string {
  return sandbox.phases.map((p) => `${p.name} ${(p.ms / 1000).toFixed(1)} s`).join(', ');
}

function printOutcome(sandbox: Sandbox, ready: boolean, states: readonly ResourceState[]): void {
  const seconds = (performance.now() / 1000).toFixed(1);
  const waiting = states.filter((s) => s.blocked).length;
  const expected = states.length - waiting;
  console.log('');
  if (ready) {
    console.log(
      `All ${expected} resources Ready and Synced ${seconds} s after start (${phaseText(sandbox)}).`,
    );
  } else {
    console.log(`Not everything is Ready and Synced ${seconds} s after start. Failing conditions:`);
    for (const line of failureLines(states)) console.log(`  ${line}`);
  }
  if (waiting > 0)
    console.log(
      `${waiting} sample(s) wait, directly or through a reference, for kinds this build has no controller for yet (NoController).`,
    );
}

function printTryIt(sandbox: Sandbox): void {
  const { kubectl, kubeconfigPath } = sandbox.cluster;
  const ns = sandbox.namespace;
  const project = sandbox.plan.resources.find((r) => r.kind === 'Project') ?? sandbox.plan.resources[0];
  const describe = project
    ? `${kubectl} -n ${ns} describe ${project.kind.toLowerCase()} ${project.name}`
    : '';
  console.log('');
  console.log(`Kubeconfig: ${kubeconfigPath}`);
  const operatorLog = sandbox.operatorLogCommand ?? sandbox.operatorLogPath;
  console.log(`Devserver:  ${sandbox.devserver.url}   Operator log: ${operatorLog}`);
  console.log('Try:');
  console.log(`  export KUBECONFIG=${kubeconfigPath}`);
  console.log(`  ${kubectl} get coffer -A`);
  if (describe) console.log(`  ${describe}`);
  console.log(`  ${kubectl} -n ${ns} get secrets -l app.kubernetes.io/managed-by=coffer`);
}

function interruptSignal(): { signal: AbortSignal; dispose(): void } {
  const abort = new AbortController();
  const onSignal = (name: NodeJS.Signals): void => {
    if (abort.signal.aborted) process.exit(130);
    console.log(`\n${name}: stopping the sandbox (again to exit at once)`);
    abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: abort.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

async function runStarted(sandbox: Sandbox, parsed: SandboxArgs, signal: AbortSignal): Promise<number> {
  const display = new Display();
  const { ready, states } = await sandbox.waitUntilReady({
    timeoutMs: parsed.timeoutMs,
    onStates: (s) => display.show(s),
    signal,
  });
  if (signal.aborted) return 1;
  display.finish(states);
  printOutcome(sandbox, ready, states);
  printTryIt(sandbox);
  if (!parsed.exitWhenReady) {
    console.log('\nRunning; press Ctrl-C to stop and clean up.');
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
  }
  return ready ? 0 : 1;
}

/** Starts the sandbox `parsed` asks for: on a node, or with the operator in-process. */
function start(parsed: SandboxArgs, log: (line: string) => void, signal: AbortSignal): Promise<Sandbox> {
  if (!parsed.node) return startSandbox({ ...parsed.options, log, signal });
  return startNodeSandbox({
    log,
    ...(parsed.options.namespace ? { namespace: parsed.options.namespace } : {}),
    values: { operator: { logLevel: parsed.options.operatorLogLevel ?? 'info' } },
  });
}

/** What stopping `sandbox` stops. */
function stoppedParts(parsed: SandboxArgs, sandbox: Sandbox): string {
  const devserver =
    sandbox.dynamicSecrets?.provider === 'sqlDatabase' ? 'devserver, PostgreSQL' : 'devserver';
  if (parsed.node) return `operator, ${devserver}, control plane and node`;
  return sandbox.cluster.local ? `operator, ${devserver} and control plane` : `operator and ${devserver}`;
}

function startLine(parsed: SandboxArgs): string {
  if (parsed.node) return 'starting a local control plane with a node, and building the operator image';
  return parsed.options.kubeconfig
    ? `using the cluster of ${parsed.options.kubeconfig}`
    : 'starting a local control plane';
}

/** Runs the sandbox; resolves with the exit status. */
export async function runSandbox(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  let parsed: SandboxArgs;
  try {
    parsed = parseSandboxArgs(args);
  } catch (error) {
    console.error(`coffer sandbox: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const interrupt = interruptSignal();
  const log = (line: string) => console.log(line.startsWith('[') ? line : `[sandbox] ${line}`);
  let sandbox: Sandbox | undefined;
  try {
    log(startLine(parsed));
    sandbox = await start(parsed, log, interrupt.signal);
    if (interrupt.signal.aborted) return 1;
    return await runStarted(sandbox, parsed, interrupt.signal);
  } catch (error) {
    if (error instanceof InstallInterruptedError) console.error('[sandbox] control-plane build stopped');
    else console.error(`coffer sandbox: ${(error as Error).message}`);
    return 1;
  } finally {
    if (sandbox) {
      const stopped = stoppedParts(parsed, sandbox);
      const kept = sandbox.dataDir ? `; ${sandbox.dataDir} kept` : '';
      await sandbox.stop().then(
        () => console.log(`[sandbox] stopped ${stopped}; temporary files removed${kept}`),
        (error: unknown) => console.error(`coffer sandbox: ${(error as Error).message}`),
      );
    }
    interrupt.dispose();
  }
}
