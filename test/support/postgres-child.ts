/**
 * A process that starts a private PostgreSQL under the directory given as its argument, prints
 * `READY <json>` (the server's port, directory and postmaster pid; no password) and then waits: a
 * test SIGKILLs it to check the server does not outlive it. Run with
 * `node test/support/postgres-child.ts <parent dir>`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgres } from '../../src/sandbox/postgres.ts';

const db = await startPostgres({ parentDir: process.argv[2] ?? '' });
const pid = Number(readFileSync(join(db.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
console.log(`READY ${JSON.stringify({ port: db.port, dir: db.dir, pid })}`);
setInterval(() => undefined, 60_000);
