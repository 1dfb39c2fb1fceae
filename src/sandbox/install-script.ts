/**
 * Runs `scripts/control-plane/install.sh` (builds whatever control-plane binary the cache lacks)
 * so that it never outlives its caller: the script leads a process group of its own, and that
 * whole group — the script, `go build` and the compilers it runs — is terminated when the caller
 * aborts, and on the caller's exit or SIGINT/SIGTERM/SIGHUP.
 */
import { spawn, type StdioOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { installScript } from './control-plane/binaries.ts';
import { onProcessExit } from './control-plane/process.ts';

/** After an abort, how long the group gets to exit on SIGTERM before it is SIGKILLed. */
const killGraceMs = 5_000;

/** Thrown by {@link runInstallScript} when its signal aborted the build. */
export class InstallInterruptedError extends Error {}

/** The script never reads stdin; in a background process group it must not touch the terminal's. */
function withoutStdin(stdio: StdioOptions): StdioOptions {
  if (typeof stdio === 'string') return ['ignore', stdio, stdio];
  return ['ignore', ...stdio.slice(1)];
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

/**
 * Runs install.sh with `env` and `stdio` (stdin is always ignored); resolves when it exits 0.
 * Rejects with the exit code otherwise, or with an {@link InstallInterruptedError} once `signal`
 * aborted it: its process group then gets SIGTERM (the script removes its temporary files) and,
 * after a grace period, SIGKILL. The group also gets SIGTERM when this process exits or receives
 * SIGINT/SIGTERM/SIGHUP while the script runs.
 */
export function runInstallScript(
  env: NodeJS.ProcessEnv,
  stdio: StdioOptions,
  signal?: AbortSignal,
): Promise<void> {
  if (signal?.aborted)
    return Promise.reject(new InstallInterruptedError('interrupted before install.sh ran'));
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [fileURLToPath(installScript)], {
      env,
      stdio: withoutStdin(stdio),
      detached: true,
    });
    // One SIGTERM only, whichever asks first (an interrupt both aborts and runs the exit
    // handlers): a second one reaching the script while its TERM trap starts would end the
    // script before its cleanup removed the build directories.
    let terminated = false;
    const terminate = (): void => {
      if (terminated) return;
      terminated = true;
      signalGroup(child.pid, 'SIGTERM');
    };
    const unregister = onProcessExit(terminate);
    let killTimer: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      terminate();
      killTimer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), killGraceMs);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = (): void => {
      unregister();
      signal?.removeEventListener('abort', onAbort);
      clearTimeout(killTimer);
    };
    child.once('error', (error) => {
      settle();
      reject(new Error(`cannot run install.sh: ${error.message}`, { cause: error }));
    });
    child.once('exit', (code, exitSignal) => {
      settle();
      // Whatever the script left running in its group (it should be nothing) goes with it.
      signalGroup(child.pid, 'SIGKILL');
      if (code === 0) resolve();
      else if (signal?.aborted)
        reject(new InstallInterruptedError('interrupted: the control-plane build was stopped'));
      else
        reject(
          new Error(
            `cannot build the control-plane binaries: install.sh exited (code ${code}, signal ${exitSignal})`,
          ),
        );
    });
  });
}
