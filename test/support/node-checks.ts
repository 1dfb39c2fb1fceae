/**
 * The checks of the control plane's node itself (src/sandbox/control-plane/node/), made on the node
 * the chart test runs (test/integration/e2e-chart-node.test.ts) while it waits for the kubelet to
 * rotate a projected token: the node is Ready; a second node on this machine is refused; a Pod
 * from an image built and imported locally runs, with logs and exec through the API server, and
 * reaches the API server through the `kubernetes` Service; what it sends outside the pod network
 * and this node is dropped (the drop rule's counter grows; IPv6 from the bridge is dropped too).
 * `nodeChecks` registers them as tests of the calling `describe`. Also the two processes the file
 * runs around its own node: a node killed with SIGKILL (for the next node to sweep) and
 * `npm run sandbox -- --node` as the README runs it (for Ctrl-C).
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import type { ControlPlane } from '../../src/sandbox/control-plane/control-plane.ts';
import { egressChain } from '../../src/sandbox/control-plane/node/node.ts';
import { probeImage } from '../../src/sandbox/control-plane/node/images.ts';
import { startControlPlane } from './control-plane.ts';
import { droppedPackets, kubectlOf } from './node-machine.ts';
import { waitFor } from './wait-for.ts';

const execFileAsync = promisify(execFile);

/** Registers the checks of the module comment, run against the node of `plane()`. */
export function nodeChecks(plane: () => ControlPlane): void {
  const kubectl = (...args: string[]) =>
    kubectlOf(plane().binaries.kubectl ?? 'kubectl', plane().kubeconfigPath)(...args);

  it('registers a node that becomes Ready', async () => {
    await waitFor(
      async () => {
        const { out } = await kubectl(
          'get',
          'node',
          'coffer-node',
          '-o',
          'jsonpath={.status.conditions[?(@.type=="Ready")].status}',
        );
        return out === 'True';
      },
      { timeoutMs: 60_000, intervalMs: 250, message: 'node coffer-node to be Ready' },
    );
  }, 70_000);

  it('refuses a second node on the same machine', async () => {
    await expect(startControlPlane({ node: true })).rejects.toThrow(/another node runs on this machine/);
  }, 60_000);

  it('runs a Pod from a locally built image, with logs and exec, that reaches the API server through its Service', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'probe', namespace: 'default' },
      spec: {
        containers: [{ name: 'probe', image: probeImage, imagePullPolicy: 'Never' }],
        terminationGracePeriodSeconds: 1,
      },
    };
    execFileSync(
      plane().binaries.kubectl ?? 'kubectl',
      ['--kubeconfig', plane().kubeconfigPath, 'apply', '-f', '-'],
      { input: JSON.stringify(pod) },
    );
    const ready = await kubectl('wait', '--for=condition=Ready', 'pod/probe', '--timeout=60s');
    expect(ready.code, ready.out).toBe(0);

    const logs = await kubectl('logs', 'probe');
    expect(logs.out).toContain('coffer-probe ready');
    // 10.0.0.1:443 is the `kubernetes` Service: kube-proxy forwards it to the API server on this node.
    const service = await kubectl('exec', 'probe', '--', '/probe', 'connect', '10.0.0.1', '443');
    expect(service.out).toContain('connected');
    expect(service.code).toBe(0);
  }, 90_000);

  it('drops what a Pod sends to an address outside the pod network and this node', async () => {
    const droppedBefore = await droppedPackets();
    // 192.0.2.1 (TEST-NET-1) is off this machine.
    const outside = await kubectl('exec', 'probe', '--', '/probe', 'connect', '192.0.2.1', '80');
    expect(outside.out).toContain('failed: timeout');
    expect(outside.code).not.toBe(0);
    expect(await droppedPackets()).toBeGreaterThan(droppedBefore);
    // The pod network is IPv4 only, and IPv6 forwarded from its bridge is dropped as well.
    const { stdout: forward6 } = await execFileAsync('ip6tables', ['-w', '-S', 'FORWARD']);
    expect(forward6).toContain(`-A FORWARD -i ${plane().node?.network.bridge} -j ${egressChain}`);
    const { stdout: chain6 } = await execFileAsync('ip6tables', ['-w', '-S', egressChain]);
    expect(chain6).toContain(`-A ${egressChain} -j DROP`);
  }, 60_000);
}

/**
 * Runs test/support/node-child.ts (a control plane with a node running a Pod) and kills it with
 * SIGKILL once its Pod runs, leaving the node unswept; resolves to the killed control plane's
 * directory.
 */
export async function killedNode(): Promise<string> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('node-child.ts', import.meta.url))], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += String(chunk)));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    return await waitFor(() => /^READY (\S+)$/m.exec(output)?.[1], {
      timeoutMs: 150_000,
      intervalMs: 250,
      message: 'the child to run a node with a Pod',
    });
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
}

/** A process group started as a terminal starts a command, with its output collected. */
export interface ProcessGroup {
  readonly child: ChildProcess;
  /** The negative process group id, for `process.kill`. */
  readonly group: number;
  /** stdout and stderr so far. */
  output(): string;
  /** Resolves once every process holding its output has exited. */
  readonly closed: Promise<unknown>;
}

/**
 * Starts `npm run sandbox -- --node` as the README runs it, in a process group of its own (Ctrl-C
 * in a terminal signals the group).
 */
export function sandboxOnNode(): ProcessGroup {
  const repo = fileURLToPath(new URL('../..', import.meta.url));
  const child = spawn('npm', ['run', 'sandbox', '--', '--node'], {
    cwd: repo,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => (output += String(chunk));
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const closed = new Promise((resolve) => child.once('close', resolve));
  return { child, group: -(child.pid ?? 0), output: () => output, closed };
}
