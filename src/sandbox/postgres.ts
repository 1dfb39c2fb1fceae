/**
 * A private PostgreSQL (the sandbox's database for the DynamicSecret sample, and the tests'):
 * Debian's PostgreSQL binaries (`/usr/lib/postgresql/15/bin`, or `COFFER_POSTGRES_BIN`), a fresh
 * cluster in a new directory (under `parentDir`, default the system's temporary directory), run as
 * the unprivileged `postgres` user when this process is root (the server refuses to run as root),
 * listening on 127.0.0.1 at a free port and on a socket in that directory only. The superuser
 * `admin` has a random password (password logins over TCP, trust over the socket).
 *
 * `stop()` stops the server (immediate shutdown) and removes its directory; it is synchronous and
 * also runs on process exit and on SIGINT/SIGTERM/SIGHUP (see `onProcessExit`), so a server never
 * outlives an orderly or interrupted stop. A parent killed with SIGKILL leaves it running.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, onProcessExit } from './control-plane/process.ts';

const RUN_AS = 'postgres';

/** A running private PostgreSQL. */
export interface PostgresServer {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** The superuser's name and password (never log the password). */
  readonly user: string;
  readonly password: string;
  readonly database: 'postgres';
  /** The server's directory (data, socket, log); removed by `stop()`. */
  readonly dir: string;
  /** Stops the server (immediate shutdown) and removes its directory. Safe to call twice. */
  stop(): void;
}

/** Options of {@link startPostgres}. */
export interface PostgresOptions {
  /** Where the server's directory is made (default the system's temporary directory). */
  readonly parentDir?: string;
  readonly env?: NodeJS.ProcessEnv;
}

/** The directory of the PostgreSQL binaries. */
export function postgresBinDir(env: NodeJS.ProcessEnv = process.env): string {
  return env['COFFER_POSTGRES_BIN'] ?? '/usr/lib/postgresql/15/bin';
}

/** Whether the PostgreSQL binaries {@link startPostgres} needs are installed. */
export function postgresInstalled(env: NodeJS.ProcessEnv = process.env): boolean {
  const bin = postgresBinDir(env);
  return ['initdb', 'pg_ctl', 'postgres'].every((name) => existsSync(join(bin, name)));
}

const asRoot = () => process.getuid?.() === 0;

function idOf(flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, RUN_AS], { encoding: 'utf8' }).trim());
}

/** The user and group the server runs as: `postgres` when this process is root, else unchanged. */
function runAs(): { uid?: number; gid?: number } {
  return asRoot() ? { uid: idOf('-u'), gid: idOf('-g') } : {};
}

/** How a PostgreSQL binary runs: as `postgres` when root, in `dir`, with a plain environment. */
function binaryOptions(dir: string) {
  return {
    ...runAs(),
    cwd: dir,
    encoding: 'utf8' as const,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
    timeout: 60_000,
  };
}

function failure(binary: string, status: unknown, stderr: string, dir: string): Error {
  const log = join(dir, 'server.log');
  const tail = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '';
  return new Error(`${binary} failed (${String(status)}): ${stderr}${tail}`);
}

/** Runs a PostgreSQL binary and waits for it (for exit handlers); throws with its output when it fails. */
function runBinary(bin: string, binary: string, args: string[], dir: string): void {
  const result = spawnSync(join(bin, binary), args, binaryOptions(dir));
  if (result.status !== 0) throw failure(binary, result.status, result.stderr, dir);
}

/** Runs a PostgreSQL binary without blocking; rejects with its output when it fails. */
function runBinaryAsync(bin: string, binary: string, args: string[], dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(join(bin, binary), args, binaryOptions(dir), (error, _stdout, stderr) => {
      if (error) reject(failure(binary, error.code ?? error.signal, stderr, dir));
      else resolve();
    });
  });
}

/** Whether the server's user can reach `dir` (every parent searchable); always true when not root. */
function reachable(dir: string): boolean {
  if (!asRoot()) return true;
  return spawnSync('test', ['-x', dir], { ...runAs(), timeout: 10_000 }).status === 0;
}

/** The postmaster's pid from its pid file, or undefined. */
function postmasterPid(data: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** A stop function for the server of `data` under `dir`: pg_ctl while the pid file is there, else SIGQUIT. */
function stopper(
  bin: string,
  dir: string,
  data: string,
): { stop: () => void; started: (pid: number) => void } {
  let pid: number | undefined;
  let stopped = false;
  const quit = () => {
    try {
      // SIGQUIT is PostgreSQL's immediate shutdown.
      if (pid !== undefined) process.kill(pid, 'SIGQUIT');
    } catch {
      // Already gone.
    }
  };
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      if (existsSync(join(data, 'postmaster.pid')))
        runBinary(bin, 'pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w'], dir);
      else quit();
    } catch {
      quit();
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return { stop, started: (p) => (pid = p) };
}

/**
 * Starts a private PostgreSQL (see the module comment); call `stop()` when done. Throws (having
 * removed what it made) when the binaries are missing or the server does not start.
 */
export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresServer> {
  const bin = postgresBinDir(options.env);
  const parent = options.parentDir && reachable(options.parentDir) ? options.parentDir : tmpdir();
  const dir = mkdtempSync(join(parent, 'coffer-postgres-'));
  chmodSync(dir, 0o700);
  const { uid, gid } = runAs();
  if (uid !== undefined && gid !== undefined) chownSync(dir, uid, gid);
  const data = join(dir, 'data');
  const { stop, started } = stopper(bin, dir, data);
  const unregister = onProcessExit(stop);
  const stopAndUnregister = () => {
    stop();
    unregister();
  };
  try {
    const password = randomBytes(18).toString('base64url');
    const pwfile = join(dir, 'pwfile');
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (uid !== undefined && gid !== undefined) chownSync(pwfile, uid, gid);
    await runBinaryAsync(bin, 'initdb', ['-D', data, '-U', 'admin', `--pwfile=${pwfile}`, '--auth-local=trust', '--auth-host=scram-sha-256', '--no-sync'], dir); // prettier-ignore
    rmSync(pwfile);
    const port = await freePort();
    const settings = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off`;
    await runBinaryAsync(
      bin,
      'pg_ctl',
      ['start', '-D', data, '-o', settings, '-l', join(dir, 'server.log'), '-w'],
      dir,
    );
    const pid = postmasterPid(data);
    if (pid !== undefined) started(pid);
    return {
      host: '127.0.0.1',
      port,
      user: 'admin',
      password,
      database: 'postgres',
      dir,
      stop: stopAndUnregister,
    };
  } catch (error) {
    stopAndUnregister();
    throw error;
  }
}
