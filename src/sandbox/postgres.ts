/**
 * A private PostgreSQL (the sandbox's database for the DynamicSecret sample, and the tests'):
 * Debian's PostgreSQL binaries (`/usr/lib/postgresql/15/bin`, or `COFFER_POSTGRES_BIN`), a fresh
 * cluster in a new directory (under `parentDir`, default the system's temporary directory), run as
 * the unprivileged `postgres` user when this process is root (the server refuses to run as root),
 * listening on 127.0.0.1 at a free port and on a socket in that directory only. The superuser
 * `admin` has a random password (password logins over TCP, trust over the socket).
 *
 * The postmaster runs in the foreground under the guard of `control-plane/process.ts`, started
 * once `pg_isready` says it accepts connections: when this process goes away, even killed with
 * SIGKILL, the guard's stdin pipe closes and it asks the server for a fast shutdown (SIGINT;
 * SIGKILL 10 s later), so a server never outlives its parent. `stop()` shuts the server down at
 * once (immediate mode) and removes its directory; it is synchronous and also runs on process exit
 * and on SIGINT/SIGTERM/SIGHUP (see `onProcessExit`). The directory of a parent killed with
 * SIGKILL is removed by the next start under the same `parentDir` (`postgres-leftovers.ts`).
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ManagedProcess, onProcessExit } from './control-plane/process.ts';
import { waitUntilReady } from './control-plane/readiness.ts';
import { DIR_PREFIX, markOwner, removeLeftovers } from './postgres-leftovers.ts';

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
  return ['initdb', 'pg_ctl', 'pg_isready', 'postgres'].every((name) => existsSync(join(bin, name)));
}

const asRoot = () => process.getuid?.() === 0;

function idOf(flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, RUN_AS], { encoding: 'utf8' }).trim());
}

/** The user and group the server runs as: `postgres` when this process is root, else unchanged. */
function runAs(): { uid?: number; gid?: number } {
  return asRoot() ? { uid: idOf('-u'), gid: idOf('-g') } : {};
}

/** The plain environment PostgreSQL's binaries run with. */
function plainEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LANG: 'C.UTF-8' };
}

/** How a PostgreSQL binary runs: as `postgres` when root, in `dir`, with a plain environment. */
function binaryOptions(dir: string) {
  return { ...runAs(), cwd: dir, encoding: 'utf8' as const, env: plainEnv(), timeout: 60_000 };
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

/** Shuts down the server of `data` at once (`pg_ctl stop -m immediate`, which waits); synchronous. */
function stopImmediately(bin: string, dir: string, data: string): void {
  if (existsSync(join(data, 'postmaster.pid')))
    runBinary(bin, 'pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w'], dir);
}

/** A new directory for a server under `parent`, owned by the server's user, with its owner recorded. */
function serverDirectory(parent: string): string {
  const dir = mkdtempSync(join(parent, DIR_PREFIX));
  chmodSync(dir, 0o700);
  markOwner(dir);
  const { uid, gid } = runAs();
  if (uid !== undefined && gid !== undefined) chownSync(dir, uid, gid);
  return dir;
}

/** Makes the cluster in `dir`/data with the superuser `admin` and `password`. */
async function initCluster(bin: string, dir: string, password: string): Promise<void> {
  const pwfile = join(dir, 'pwfile');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  const { uid, gid } = runAs();
  if (uid !== undefined && gid !== undefined) chownSync(pwfile, uid, gid);
  await runBinaryAsync(bin, 'initdb', ['-D', join(dir, 'data'), '-U', 'admin', `--pwfile=${pwfile}`, '--auth-local=trust', '--auth-host=scram-sha-256', '--no-sync'], dir); // prettier-ignore
  rmSync(pwfile);
}

/** True when the server at `port` accepts connections (`pg_isready`). */
function accepting(bin: string, dir: string, port: number): Promise<boolean> {
  const args = ['-q', '-h', '127.0.0.1', '-p', String(port), '-d', 'postgres', '-U', 'admin'];
  return new Promise((resolve) => {
    execFile(join(bin, 'pg_isready'), args, binaryOptions(dir), (error) => resolve(!error));
  });
}

/** Runs the postmaster of `dir` in the foreground under the guard (see the module comment). */
function runServer(bin: string, dir: string, port: number): ManagedProcess {
  const settings = ['-c', 'listen_addresses=127.0.0.1', '-p', String(port), '-k', dir, '-c', 'fsync=off'];
  return new ManagedProcess('postgres', join(bin, 'postgres'), ['-D', join(dir, 'data'), ...settings], {
    logPath: join(dir, 'server.log'),
    ...runAs(),
    cwd: dir,
    env: plainEnv(),
    // PostgreSQL's fast shutdown: ends the sessions, then stops.
    stopSignal: 'INT',
  });
}

/**
 * Starts a private PostgreSQL (see the module comment); call `stop()` when done. Throws (having
 * removed what it made) when the binaries are missing or the server does not start.
 */
export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresServer> {
  const bin = postgresBinDir(options.env);
  const parent = options.parentDir && reachable(options.parentDir) ? options.parentDir : tmpdir();
  removeLeftovers(parent, (data) => stopImmediately(bin, parent, data));
  const dir = serverDirectory(parent);
  const data = join(dir, 'data');
  let server: ManagedProcess | undefined;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      stopImmediately(bin, dir, data);
    } catch {
      // The group kill below ends it.
    }
    // Whatever pg_ctl left (or a server that never wrote its pid file) goes with the guard's group.
    server?.killGroup();
    rmSync(dir, { recursive: true, force: true });
  };
  const unregister = onProcessExit(stop);
  const stopAndUnregister = () => {
    unregister();
    stop();
  };
  try {
    const password = randomBytes(18).toString('base64url');
    await initCluster(bin, dir, password);
    const port = await freePort();
    const running = runServer(bin, dir, port);
    server = running;
    await waitUntilReady(running, () => accepting(bin, dir, port));
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
