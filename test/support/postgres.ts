// A private PostgreSQL for tests: Debian's postgresql-15 binaries, a fresh cluster in a temporary
// directory, run as the unprivileged `postgres` user (the server refuses to run as root), listening
// on 127.0.0.1 at a free port and on a socket in that directory only. The superuser `admin` has a
// random password (password logins over TCP, trust over the socket). `stop()` stops the server and
// removes the directory; the process's exit does the same when a test file forgot to.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN_DIR = process.env['COFFER_POSTGRES_BIN'] ?? '/usr/lib/postgresql/15/bin';
const RUN_AS = 'postgres';

/** A running private PostgreSQL. */
export interface PostgresServer {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** The superuser's name and password (never log the password). */
  readonly user: string;
  readonly password: string;
  readonly database: 'postgres';
  /** Stops the server (immediate shutdown) and removes its directory. */
  stop(): void;
}

/** Whether the PostgreSQL binaries this helper needs are installed. */
export function postgresInstalled(): boolean {
  return existsSync(join(BIN_DIR, 'initdb')) && existsSync(join(BIN_DIR, 'pg_ctl'));
}

function idOf(flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, RUN_AS], { encoding: 'utf8' }).trim());
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Runs a PostgreSQL binary as the `postgres` user; throws with its output when it fails. */
function runAsPostgres(binary: string, args: string[], dir: string): void {
  const uid = idOf('-u');
  const gid = idOf('-g');
  const result = spawnSync(join(BIN_DIR, binary), args, {
    uid: process.getuid?.() === 0 ? uid : undefined,
    gid: process.getuid?.() === 0 ? gid : undefined,
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
    timeout: 60_000,
  });
  if (result.status !== 0) {
    const log = join(dir, 'server.log');
    const tail = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '';
    throw new Error(`${binary} failed (${result.status}): ${result.stderr}${tail}`);
  }
}

/** Starts a private PostgreSQL; call `stop()` when done (also on failure paths). */
export async function startPostgres(): Promise<PostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-postgres-'));
  chmodSync(dir, 0o700);
  if (process.getuid?.() === 0) chownSync(dir, idOf('-u'), idOf('-g'));
  const password = randomBytes(18).toString('base64url');
  const data = join(dir, 'data');
  const stop = () => {
    process.off('exit', stop);
    if (existsSync(join(data, 'postmaster.pid'))) {
      try {
        runAsPostgres('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w'], dir);
      } catch {
        // Already gone; the directory is removed below either way.
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // A worker that ends without calling stop() still takes its server down.
  process.once('exit', stop);
  try {
    const pwfile = join(dir, 'pwfile');
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (process.getuid?.() === 0) chownSync(pwfile, idOf('-u'), idOf('-g'));
    runAsPostgres('initdb', ['-D', data, '-U', 'admin', `--pwfile=${pwfile}`, '--auth-local=trust', '--auth-host=scram-sha-256', '--no-sync'], dir); // prettier-ignore
    rmSync(pwfile);
    const port = await freePort();
    const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off`;
    runAsPostgres('pg_ctl', ['start', '-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w'], dir);
    return { host: '127.0.0.1', port, user: 'admin', password, database: 'postgres', stop };
  } catch (error) {
    stop();
    throw error;
  }
}

/** The statements a lease's role is created, renewed and revoked with (the service's template variables). */
export const roleStatements = {
  creationStatement: `CREATE ROLE "{{username}}" WITH LOGIN PASSWORD '{{password}}' VALID UNTIL '{{expiration}}';`,
  renewStatement: `ALTER ROLE "{{username}}" VALID UNTIL '{{expiration}}';`,
  revocationStatement: `DROP ROLE IF EXISTS "{{username}}";`,
} as const;

/**
 * The `inputs` of a `sql-database` dynamic secret on `db`: the superuser as admin and
 * `roleStatements`, with `overrides` on top.
 */
export function sqlDatabaseInputs(db: PostgresServer, overrides: Record<string, unknown> = {}) {
  return {
    client: 'postgres',
    host: db.host,
    port: db.port,
    database: db.database,
    username: db.user,
    password: db.password,
    ...roleStatements,
    ...overrides,
  };
}
