/**
 * Child processes of a local control plane (etcd, kube-apiserver) and of the sandbox (its
 * PostgreSQL) that never outlive their parent: stopped on request, killed on process exit and on
 * SIGINT/SIGTERM/SIGHUP, and — through a stdin pipe the parent holds — terminated even when the
 * parent dies without running any handler.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

// The guard runs the command in the background and signals it (its first argument, TERM unless the
// caller chose another) as soon as the parent's end of the stdin pipe closes: on stop(), and also
// when the parent is SIGKILLed. A command still running 10 s later is KILLed (a kube-apiserver
// whose etcd is gone may never finish its shutdown). When the command has exited, so does the
// watcher. The guard's exit status is the command's.
const guardScript = [
  'signal=$1; shift',
  'exec 3<&0',
  '"$@" </dev/null & child=$!',
  '( cat <&3 >/dev/null; kill -"$signal" "$child" 2>/dev/null',
  '  i=0; while kill -0 "$child" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done',
  '  kill -KILL "$child" 2>/dev/null ) & watcher=$!',
  'wait "$child"; status=$?',
  'kill "$watcher" 2>/dev/null',
  'exit "$status"',
].join('\n');

const cleanups = new Set<() => void>();
let handlersInstalled = false;

function runCleanups(): void {
  for (const cleanup of cleanups) {
    try {
      cleanup();
    } catch {
      // Best effort: a cleanup that fails must not stop the others.
    }
  }
  cleanups.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  runCleanups();
  // When nobody else listens (vitest may), restore the default action so the process still dies.
  if (process.listenerCount(signal) === 1) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
}

/**
 * Registers a synchronous cleanup run on process exit and on SIGINT/SIGTERM/SIGHUP.
 * Returns a function that unregisters it (call it after a normal, asynchronous stop).
 */
export function onProcessExit(cleanup: () => void): () => void {
  if (!handlersInstalled) {
    handlersInstalled = true;
    process.on('exit', runCleanups);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
  }
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

/** A free TCP port on 127.0.0.1, as the kernel hands it out right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('cannot find a free port: no address'));
      });
    });
  });
}

/** How a managed process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** How a {@link ManagedProcess} runs, beyond its command: where its output goes, and as whom. */
export interface ManagedProcessOptions {
  /** The file its stdout and stderr are appended to. */
  readonly logPath: string;
  /** Run as this user and group (the guard and the command; default this process's). */
  readonly uid?: number;
  readonly gid?: number;
  readonly cwd?: string;
  /** The command's environment (default this process's). */
  readonly env?: NodeJS.ProcessEnv;
  /** What the guard sends the command when the parent goes away or stops it (default `TERM`). */
  readonly stopSignal?: 'TERM' | 'INT' | 'QUIT';
}

/** A long-running child process with its output in a log file. */
export class ManagedProcess {
  readonly name: string;
  readonly logPath: string;
  /** Settles when the process has exited, however that happened. */
  readonly exited: Promise<ProcessExit>;
  #child: ChildProcess;
  #exit: ProcessExit | undefined;

  /**
   * Starts `command args...`, appending its stdout and stderr to `output` (a log path, or the
   * log path with how to run it).
   */
  constructor(
    name: string,
    command: string,
    args: readonly string[],
    output: string | ManagedProcessOptions,
  ) {
    const options = typeof output === 'string' ? { logPath: output } : output;
    this.name = name;
    this.logPath = options.logPath;
    const log = openSync(options.logPath, 'a');
    try {
      const { uid, gid, cwd, env } = options;
      // detached: the guard leads its own process group, so killGroup() reaches the command too.
      this.#child = spawn('sh', ['-c', guardScript, 'sh', options.stopSignal ?? 'TERM', command, ...args], {
        detached: true,
        stdio: ['pipe', log, log],
        ...(uid === undefined ? {} : { uid }),
        ...(gid === undefined ? {} : { gid }),
        ...(cwd === undefined ? {} : { cwd }),
        ...(env === undefined ? {} : { env }),
      });
    } finally {
      closeSync(log);
    }
    this.exited = new Promise((resolve) => {
      this.#child.once('exit', (code, signal) => {
        this.#exit = { code, signal };
        this.#child.stdin?.destroy();
        resolve(this.#exit);
      });
    });
    // Neither the child nor its pipe may keep the parent's event loop alive.
    this.#child.unref();
    (this.#child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  }

  /** True until the process has exited. */
  get running(): boolean {
    return this.#exit === undefined;
  }

  /** Asks the process to terminate (SIGTERM) and waits; after `timeoutMs`, kills its group. */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.#child.stdin?.end();
    const timer = setTimeout(() => this.killGroup(), timeoutMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** Synchronously SIGKILLs the guard and the command (usable from an exit handler). */
  killGroup(): void {
    const pid = this.#child.pid;
    if (!this.running || pid === undefined) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }

  /** The last `lines` lines of the log, for error messages. */
  logTail(lines = 25): string {
    try {
      return readFileSync(this.logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }
}
