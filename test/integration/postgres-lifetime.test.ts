/**
 * The private PostgreSQL of the sandbox and the tests (src/sandbox/postgres.ts) never outlives
 * the process that started it: a child process starts one and is SIGKILLed (no exit handler
 * runs), and the postmaster is gone within the guard's bounded shutdown; the directory it leaves
 * is removed by the next start under the same parent, while a directory whose owner is alive is
 * left alone.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresBinDir, startPostgres, type PostgresServer } from '../../src/sandbox/postgres.ts';
import { alive } from '../../src/sandbox/postgres-leftovers.ts';
import { waitFor } from '../support/wait-for.ts';

/** `pg_isready`'s exit status for 127.0.0.1:`port`: 0 accepting, 2 no answer. */
function isReady(port: number): number | null {
  const bin = join(postgresBinDir(), 'pg_isready');
  return spawnSync(bin, ['-q', '-h', '127.0.0.1', '-p', String(port), '-d', 'postgres'], { timeout: 10_000 })
    .status;
}

interface Started {
  readonly port: number;
  readonly dir: string;
  readonly pid: number;
}

/** Runs test/support/postgres-child.ts under `parent`; resolves with the child and its server. */
async function startChild(parent: string) {
  const script = fileURLToPath(new URL('../support/postgres-child.ts', import.meta.url));
  const child = spawn(process.execPath, [script, parent], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += String(chunk)));
  const line = await waitFor(() => /^READY (\{.*\})$/m.exec(output)?.[1], {
    timeoutMs: 60_000,
    message: 'the child to start PostgreSQL',
  });
  return { child, started: JSON.parse(line) as Started };
}

describe('the private PostgreSQL', () => {
  // As root the server runs as `postgres`, which must reach its directory in here (search only).
  const parent = mkdtempSync(join(tmpdir(), 'coffer-test-postgres-'));
  chmodSync(parent, 0o711);
  const servers: PostgresServer[] = [];
  let left: Started | undefined;

  afterAll(() => {
    for (const server of servers) server.stop();
    rmSync(parent, { recursive: true, force: true });
  });

  it('is gone soon after its parent is killed with SIGKILL', async () => {
    const { child, started } = await startChild(parent);
    expect(alive(started.pid)).toBe(true);
    expect(isReady(started.port)).toBe(0);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    // The guard's bound: a fast shutdown, SIGKILL after 10 s.
    await waitFor(() => !alive(started.pid), { timeoutMs: 15_000, message: 'the postmaster to exit' });
    expect(isReady(started.port)).toBe(2);
    expect(existsSync(started.dir)).toBe(true);
    left = started;
  }, 90_000);

  it('removes the directory a killed parent left at the next start, and no one else’s', async () => {
    if (!left) throw new Error('the previous test left no directory');
    const first = await startPostgres({ parentDir: parent });
    servers.push(first);
    expect(existsSync(left.dir)).toBe(false);
    // A directory whose owner (this process) is alive stays, and so does its server.
    const second = await startPostgres({ parentDir: parent });
    servers.push(second);
    expect(existsSync(first.dir)).toBe(true);
    expect(isReady(first.port)).toBe(0);
    expect(isReady(second.port)).toBe(0);
  }, 90_000);
});
