/**
 * Devserver throughput benchmark (not a test): starts `coffer devserver` in a child process,
 * bootstraps it, then drives a mix of simple API calls over several keep-alive connections
 * and prints requests per second.
 *
 *   node scripts/bench/devserver.ts [--seconds 5] [--connections 16] [--url http://HOST:PORT]
 *
 * With `--url` it targets an already running devserver (which must not be bootstrapped yet).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { parseCommandLine } from '../command-line.ts';

const usage = `usage: npm run bench:devserver -- [--seconds 5] [--connections 16] [--url http://HOST:PORT]

Devserver throughput: requests per second of a mix of simple API calls over keep-alive
connections. With --url, targets a running devserver that is not bootstrapped yet.`;

const { values } = parseCommandLine(usage, () =>
  parseArgs({
    options: {
      seconds: { type: 'string', default: '5' },
      connections: { type: 'string', default: '16' },
      url: { type: 'string' },
    },
  }),
);
const seconds = Number(values.seconds);
const connections = Number(values.connections);

async function startChild(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['src/cli/main.ts', 'devserver', '--port', '0', '--enable-admin'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  for await (const chunk of child.stdout) {
    out += String(chunk);
    const match = /devserver listening on (\S+)/.exec(out);
    if (match?.[1]) return { url: match[1], child };
  }
  throw new Error('cannot start devserver: it exited before listening');
}

interface Call {
  name: string;
  method: 'GET' | 'PATCH';
  path: string;
  body?: unknown;
}

async function request(pool: Pool, token: string, call: Call): Promise<{ status: number; body: unknown }> {
  const res = await pool.request({
    method: call.method,
    path: call.path,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? (JSON.parse(text) as unknown) : undefined };
}

async function setup(pool: Pool): Promise<{ token: string; calls: Call[] }> {
  const boot = await pool.request({
    method: 'POST',
    path: '/api/v1/admin/bootstrap',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', password: 'bench-password', organization: 'Bench' }),
  });
  const b = (await boot.body.json()) as { identity: { id: string; credentials: { token: string } } };
  const token = b.identity.credentials.token;
  const created = await pool.request({
    method: 'POST',
    path: '/api/v2/workspace',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ projectName: 'bench' }),
  });
  const projectId = ((await created.body.json()) as { project: { id: string } }).project.id;
  const secrets = Array.from({ length: 20 }, (_, i) => ({
    secretKey: `KEY_${i}`,
    secretValue: `value-${i}`,
  }));
  await pool.request({
    method: 'POST',
    path: '/api/v3/secrets/batch/raw',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ workspaceId: projectId, environment: 'dev', secrets }),
  });
  const calls: Call[] = [
    { name: 'get identity', method: 'GET', path: `/api/v1/identities/${b.identity.id}` },
    { name: 'get project', method: 'GET', path: `/api/v1/workspace/${projectId}` },
    { name: 'get role', method: 'GET', path: `/api/v2/workspace/${projectId}/roles/slug/viewer` },
    { name: 'get token auth', method: 'GET', path: `/api/v1/auth/token-auth/identities/${b.identity.id}` },
    {
      name: 'list secrets',
      method: 'GET',
      path: `/api/v3/secrets/raw?workspaceId=${projectId}&environment=dev`,
    },
    {
      name: 'get secret',
      method: 'GET',
      path: `/api/v3/secrets/raw/KEY_1?workspaceId=${projectId}&environment=dev`,
    },
    {
      name: 'batch update',
      method: 'PATCH',
      path: '/api/v3/secrets/batch/raw',
      body: {
        workspaceId: projectId,
        environment: 'dev',
        secrets: [{ secretKey: 'KEY_2', secretValue: 'changed' }],
      },
    },
  ];
  return { token, calls };
}

async function drive(pool: Pool, token: string, calls: Call[], duration: number) {
  const deadline = performance.now() + duration * 1000;
  const counts = new Map<string, number>();
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      const call = calls[next++ % calls.length]!;
      const t0 = performance.now();
      const { status } = await request(pool, token, call);
      latencies.push(performance.now() - t0);
      if (status !== 200) errors++;
      counts.set(call.name, (counts.get(call.name) ?? 0) + 1);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, worker));
  return { counts, latencies, errors, elapsed: (performance.now() - started) / 1000 };
}

/** CPU seconds (user + system) used so far by process `pid`, from /proc; undefined elsewhere. */
function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const started = values.url ? { url: values.url, child: undefined } : await startChild();
const pool = new Pool(started.url, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
try {
  const { token, calls } = await setup(pool);
  await drive(pool, token, calls, 1); // warm-up (JIT, connection set-up)
  const cpuBefore = cpuSeconds(started.child?.pid);
  const result = await drive(pool, token, calls, seconds);
  const cpuAfter = cpuSeconds(started.child?.pid);
  const total = [...result.counts.values()].reduce((a, b) => a + b, 0);
  const sorted = result.latencies.sort((a, b) => a - b);
  console.log(`devserver benchmark: ${connections} keep-alive connections, ${result.elapsed.toFixed(1)} s`);
  for (const [name, n] of result.counts)
    console.log(`  ${name.padEnd(16)} ${(n / result.elapsed).toFixed(0).padStart(7)} req/s`);
  console.log(
    `  ${'total'.padEnd(16)} ${(total / result.elapsed).toFixed(0).padStart(7)} req/s (${total} requests, ${result.errors} non-200)`,
  );
  if (cpuBefore !== undefined && cpuAfter !== undefined && cpuAfter > cpuBefore) {
    const cpu = cpuAfter - cpuBefore;
    console.log(
      `  server CPU ${cpu.toFixed(2)} s: ${(total / cpu).toFixed(0)} requests per CPU-second (one core)`,
    );
  }
  console.log(
    `  latency p50 ${percentile(sorted, 50).toFixed(2)} ms, p99 ${percentile(sorted, 99).toFixed(2)} ms`,
  );
} finally {
  await pool.close();
  if (started.child) {
    started.child.kill('SIGTERM');
    await once(started.child, 'exit');
  }
}
