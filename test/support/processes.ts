// The operator and the devserver as separate processes (`node src/cli/main.ts operator|devserver`),
// for crash, failover and benchmark runs: they can be SIGKILLed like a pod, their memory is their
// own, and they never outlive the test (ManagedProcess: killed on exit and when the parent dies).
// Output goes to a log file per process; helpers read the operator's /metrics and /readyz and the
// devserver's admin routes (stats, faults).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, ManagedProcess } from './control-plane-process.ts';

const mainScript = join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts');

/** A directory for process logs; removed by `removeProcessDir`. */
export function newProcessDir(prefix = 'coffer-processes-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeProcessDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Polls `check` every `intervalMs` until it returns true; throws `message` after `timeoutMs`. */
async function until(check: () => Promise<boolean> | boolean, timeoutMs: number, message: string) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${message}`);
    await sleep(100);
  }
}

async function httpGet(url: string): Promise<{ status: number; body: string } | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return { status: response.status, body: await response.text() };
  } catch {
    return undefined;
  }
}

/** A `coffer` child process with its log. */
class CofferProcess {
  readonly proc: ManagedProcess;

  constructor(proc: ManagedProcess) {
    this.proc = proc;
  }

  /** Everything the process wrote so far (stdout and stderr). */
  log(): string {
    try {
      return readFileSync(this.proc.logPath, 'utf8');
    } catch {
      return '';
    }
  }

  get running(): boolean {
    return this.proc.running;
  }

  /** SIGKILL, as when a node dies: no shutdown code runs. Resolves once the process is gone. */
  async kill(): Promise<void> {
    this.proc.killGroup();
    await this.proc.exited;
  }

  /** SIGTERM (graceful), SIGKILL after `timeoutMs`. */
  stop(timeoutMs = 15_000): Promise<void> {
    return this.proc.stop(timeoutMs);
  }

  /** Throws (with the log tail) when the process has exited. */
  async assertRunning(what: string): Promise<void> {
    if (this.proc.running) return;
    const exit = await this.proc.exited;
    throw new Error(
      `cannot ${what}: ${this.proc.name} exited (code ${exit.code}, signal ${exit.signal}); log tail:\n${this.proc.logTail()}`,
    );
  }
}

/** Options of {@link startOperatorProcess}. */
export interface OperatorProcessOptions {
  readonly kubeconfigPath: string;
  /** Where the log file goes (see `newProcessDir`). */
  readonly dir: string;
  /** Names the log file and the leader-election identity's log lines (default `operator`). */
  readonly name?: string;
  readonly namespaces?: readonly string[];
  readonly logLevel?: 'debug' | 'info' | 'warn';
  /** `--leader-elect` with these Lease settings (Go durations). */
  readonly leaderElection?: {
    readonly namespace: string;
    readonly id?: string;
    readonly leaseDuration: string;
    readonly renewDeadline: string;
    readonly retryPeriod: string;
  };
  readonly extraArgs?: readonly string[];
  /** The CLI entry to run (default: the TypeScript source; the benchmark runs the compiled `dist`). */
  readonly entry?: string;
  /** Node.js options placed before the entry (e.g. `--max-semi-space-size=8`). */
  readonly nodeArgs?: readonly string[];
  /**
   * The program that runs node, with its leading arguments (default: this process's node); the
   * benchmark starts the operator in a memory cgroup of its own this way.
   */
  readonly launcher?: readonly string[];
}

/** `coffer operator` in a child process, with its metrics and health ports. */
export class OperatorProcess extends CofferProcess {
  readonly metricsPort: number;
  readonly healthPort: number;

  constructor(proc: ManagedProcess, ports: { metrics: number; health: number }) {
    super(proc);
    this.metricsPort = ports.metrics;
    this.healthPort = ports.health;
  }

  /** The Prometheus text of `/metrics`. */
  async metrics(): Promise<string> {
    const reply = await httpGet(`http://127.0.0.1:${this.metricsPort}/metrics`);
    if (reply?.status !== 200)
      throw new Error(`cannot read the operator's metrics: ${reply?.status ?? 'no answer'}`);
    return reply.body;
  }

  /** Sum of every sample of `name` whose labels contain all of `labels` (`key="value"` pairs). */
  async metric(name: string, labels: Record<string, string> = {}): Promise<number> {
    return sumMetric(await this.metrics(), name, labels);
  }

  /** True while `/readyz` answers 200 (informers synced; leadership not required). */
  async isReady(): Promise<boolean> {
    return (await httpGet(`http://127.0.0.1:${this.healthPort}/readyz`))?.status === 200;
  }

  /** True while this replica holds the Lease (or runs without leader election and is ready). */
  async isLeader(): Promise<boolean> {
    try {
      return (await this.metric('coffer_leader_election_status')) === 1;
    } catch {
      return false;
    }
  }

  /** Resolves once `/readyz` answers 200; throws if the process exits first. */
  async waitReady(timeoutMs = 60_000): Promise<void> {
    await until(
      async () => {
        await this.assertRunning('wait for the operator');
        return this.isReady();
      },
      timeoutMs,
      'the operator to be ready',
    );
  }

  /** Resolves once the log contains `text`. */
  async waitForLog(text: string, timeoutMs = 60_000): Promise<void> {
    await until(
      async () => {
        await this.assertRunning(`wait for "${text}"`);
        return this.log().includes(text);
      },
      timeoutMs,
      `"${text}" in the operator log`,
    );
  }
}

/** Sums the samples of metric `name` (exact name) whose label set includes `labels`. */
export function sumMetric(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || line.startsWith('#')) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== '{' && rest[0] !== ' ') continue;
    if (!wanted.every((pair) => rest.includes(pair))) continue;
    sum += Number(rest.slice(rest.lastIndexOf(' ') + 1));
  }
  return sum;
}

function leaderArgs(le: OperatorProcessOptions['leaderElection']): string[] {
  if (!le) return [];
  return [
    '--leader-elect',
    `--leader-election-namespace=${le.namespace}`,
    ...(le.id ? [`--leader-election-id=${le.id}`] : []),
    `--leader-election-lease-duration=${le.leaseDuration}`,
    `--leader-election-renew-deadline=${le.renewDeadline}`,
    `--leader-election-retry-period=${le.retryPeriod}`,
  ];
}

/** Starts `coffer operator` against the kubeconfig; resolves once its HTTP servers answer. */
export async function startOperatorProcess(options: OperatorProcessOptions): Promise<OperatorProcess> {
  const [metrics, health] = [await freePort(), await freePort()];
  const name = options.name ?? 'operator';
  const args = [
    ...(options.nodeArgs ?? []),
    options.entry ?? mainScript,
    'operator',
    `--kubeconfig=${options.kubeconfigPath}`,
    `--metrics-bind-address=127.0.0.1:${metrics}`,
    `--health-probe-bind-address=127.0.0.1:${health}`,
    `--log-level=${options.logLevel ?? 'info'}`,
    ...(options.namespaces?.length ? [`--namespaces=${options.namespaces.join(',')}`] : []),
    ...leaderArgs(options.leaderElection),
    ...(options.extraArgs ?? []),
  ];
  const [command = process.execPath, ...launcherArgs] = options.launcher ?? [];
  const proc = new ManagedProcess(
    name,
    command,
    [...launcherArgs, ...args],
    join(options.dir, `${name}.log`),
  );
  const operator = new OperatorProcess(proc, { metrics, health });
  await until(
    async () => {
      await operator.assertRunning('start the operator');
      return (await httpGet(`http://127.0.0.1:${health}/healthz`)) !== undefined;
    },
    60_000,
    'the operator to serve /healthz',
  );
  return operator;
}

/** Options of {@link startDevServerProcess}: extra `coffer devserver` flags. */
export interface DevServerProcessOptions {
  readonly dir: string;
  readonly name?: string;
  /** e.g. `secrets=120` (see `coffer devserver --help`). */
  readonly rateLimit?: string;
  readonly extraArgs?: readonly string[];
}

/** `coffer devserver --enable-admin` in a child process. */
export class DevServerProcess extends CofferProcess {
  readonly url: string;

  constructor(proc: ManagedProcess, url: string) {
    super(proc);
    this.url = url;
  }

  /** The request and write counters (`GET /__devserver/stats`). */
  async stats(): Promise<DevServerStatsSnapshot> {
    const reply = await httpGet(`${this.url}/__devserver/stats`);
    if (reply?.status !== 200)
      throw new Error(`cannot read devserver stats: ${reply?.status ?? 'no answer'}`);
    return JSON.parse(reply.body) as DevServerStatsSnapshot;
  }

  async resetStats(): Promise<void> {
    await fetch(`${this.url}/__devserver/stats/reset`, { method: 'POST' });
  }

  /** Changes fault injection (`PUT /__devserver/faults`). */
  async setFaults(faults: { errorRatio?: number; latencyMs?: number; dropRatio?: number }): Promise<void> {
    const response = await fetch(`${this.url}/__devserver/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(faults),
    });
    if (!response.ok) throw new Error(`cannot set devserver faults: ${response.status}`);
  }
}

/** The parts of the devserver's stats snapshot the tests read. */
export interface DevServerStatsSnapshot {
  readonly requests: {
    total: number;
    byMethod: Record<string, number>;
    byRoute: Record<string, number>;
    byStatus: Record<string, number>;
  };
  readonly writes: { total: number; byRoute: Record<string, number> };
  readonly rateLimited: number;
}

/** Starts `coffer devserver` on a free loopback port; resolves once it listens. */
export async function startDevServerProcess(options: DevServerProcessOptions): Promise<DevServerProcess> {
  const port = await freePort();
  const name = options.name ?? 'devserver';
  const args = [
    mainScript,
    'devserver',
    '--host=127.0.0.1',
    `--port=${port}`,
    '--enable-admin',
    ...(options.rateLimit ? [`--rate-limit=${options.rateLimit}`] : []),
    ...(options.extraArgs ?? []),
  ];
  const proc = new ManagedProcess(name, process.execPath, args, join(options.dir, `${name}.log`));
  const server = new DevServerProcess(proc, `http://127.0.0.1:${port}`);
  await until(
    async () => {
      await server.assertRunning('start the devserver');
      return server.log().includes('devserver listening on');
    },
    30_000,
    'the devserver to listen',
  );
  return server;
}
