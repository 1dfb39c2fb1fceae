// The operator as a whole: probes and metrics served while it runs, a graceful in-process stop
// (Lease released, servers closed), and `coffer operator` as a process that stops cleanly on
// SIGTERM.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterFromInjected, waitFor } from '../support/kube.ts';
import { cofferCrds, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

const loopback = { host: '127.0.0.1', port: 0 };
let h: OperatorHarness;
let leaseNamespace: string;

beforeAll(async () => {
  const namespace = await clusterFromInjected().createNamespace();
  leaseNamespace = namespace;
  h = await startOperatorHarness({
    operator: {
      kinds: [],
      metricsBindAddress: loopback,
      healthProbeBindAddress: loopback,
      leaderElection: { namespace, name: 'coffer-test-leader', identity: 'operator-test' },
    },
  });
});

afterAll(async () => {
  await h?.stop();
});

async function get(port: number | undefined, path: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, body: await response.text() };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || !address) throw new Error('cannot find a free port');
  return address.port;
}

describe('operator', () => {
  it('serves /healthz, /readyz and /metrics with reconcile and service-request metrics', async () => {
    const { health, metrics } = h.operator.ports;
    expect(await get(health, '/healthz')).toEqual({ status: 200, body: 'ok\n' });
    expect((await get(health, '/readyz')).status).toBe(200);
    const text = (await get(metrics, '/metrics')).body;
    expect(text).toMatch(/coffer_informer_synced\{informer="secrets"\} 1/);
    expect(text).toMatch(
      /coffer_reconcile_total\{controller="connection",kind="Connection",result="requeue_after"\} \d+/,
    );
    expect(text).toMatch(/coffer_service_requests_total\{operation="identities.get",status="200"\} \d+/);
    expect(text).toMatch(/coffer_leader_election_status\{name="coffer-test-leader"\} 1/);
  });

  it('stops gracefully: the Lease is released and the servers close', async () => {
    const { health } = h.operator.ports;
    expect(h.operator.manager.isLeader()).toBe(true);
    await h.operator.stop();
    expect(await h.operator.exited).toBe('stopped');
    await expect(fetch(`http://127.0.0.1:${health}/healthz`)).rejects.toThrow();
    const lease = await h.kubeConfig
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ namespace: leaseNamespace, name: 'coffer-test-leader' });
    expect(lease.spec?.holderIdentity ?? '').toBe('');
  });

  it('coffer operator exits 0 on SIGTERM after becoming ready', async () => {
    const cluster = clusterFromInjected();
    await cluster.installCRDs(cofferCrds());
    const namespace = await cluster.createNamespace();
    const [metricsPort, healthPort] = [await freePort(), await freePort()];
    const child = spawn(
      process.execPath,
      [
        join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts'),
        'operator',
        `--kubeconfig=${cluster.kubeconfigPath}`,
        `--namespaces=${namespace}`,
        `--metrics-bind-address=127.0.0.1:${metricsPort}`,
        `--health-probe-bind-address=127.0.0.1:${healthPort}`,
        '--leader-elect',
        `--leader-election-namespace=${namespace}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      // A fresh Node process loading the sources: slow while other test files share the CPU.
      await waitFor(async () => (await get(healthPort, '/readyz')).status === 200, {
        timeoutMs: 90_000,
        message: 'coffer operator to be ready',
      });
      await waitFor(() => output.includes('"operator ready"'), {
        timeoutMs: 30_000,
        message: 'the ready log line',
      });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    const lines = output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg?: string; level?: string });
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['shutting down', 'manager stopped']));
    const lease = await cluster
      .kubeConfig()
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ namespace, name: 'coffer-operator-leader' });
    expect(lease.spec?.holderIdentity ?? '').toBe('');
  }, 150_000);
});
