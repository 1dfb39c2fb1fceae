/**
 * The control plane's opt-in node on this machine: containerd, kubelet, kube-scheduler and
 * kube-proxy join a control plane of their own; the node becomes Ready, runs a Pod from an image
 * built and imported locally (logs and exec through the API server), the Pod reaches the API
 * server through the `kubernetes` Service, and what it sends outside the pod network and this
 * node is dropped (the drop rule's counter grows; IPv6 from the bridge is dropped too). Only one
 * node runs per machine. Stopped, the node leaves no process, mount, network namespace, bridge,
 * veth, iptables chain, kubepods cgroup or changed sysctl behind: after `stop()`, after a SIGKILL
 * (the next node sweeps), and after Ctrl-C of `npm run sandbox -- --node` as the README runs it.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { nodeChains, nodeStateDir, touchedSysctls } from '../../src/sandbox/control-plane/node/host.ts';
import { egressChain } from '../../src/sandbox/control-plane/node/node.ts';
import { probeImage } from '../../src/sandbox/control-plane/node/images.ts';
import {
  nodeLockWaitMs,
  reserveNodeForFile,
  startControlPlane,
  type ControlPlane,
} from '../support/control-plane.ts';
import { waitFor } from '../support/wait-for.ts';

const execFileAsync = promisify(execFile);

function sysctls(): Record<string, string> {
  return Object.fromEntries(
    touchedSysctls.map((name) => [
      name,
      readFileSync(`/proc/sys/${name.replaceAll('.', '/')}`, 'utf8').trim(),
    ]),
  );
}

interface Link {
  readonly ifname: string;
  readonly master?: string;
  readonly linkinfo?: { readonly info_kind?: string };
}

/** The machine's network links as `ip -d -j link` lists them. */
async function listLinks(): Promise<Link[]> {
  const { stdout } = await execFileAsync('ip', ['-d', '-j', 'link', 'show']);
  return JSON.parse(stdout) as Link[];
}

function netns(): string[] {
  try {
    return readdirSync('/run/netns');
  } catch {
    return [];
  }
}

/** Packets the egress drop rule has dropped so far. */
async function droppedPackets(): Promise<number> {
  const { stdout } = await execFileAsync('iptables', ['-w', '-L', egressChain, '-v', '-x', '-n']);
  const rule = stdout.split('\n').find((line) => line.includes('DROP'));
  if (!rule) throw new Error(`no DROP rule in ${egressChain}:\n${stdout}`);
  return Number(rule.trim().split(/\s+/)[0]);
}

/** Asserts that no trace of the node of the control plane in `dir` is left on the machine. */
async function expectNothingLeft(dir: string, before: MachineState): Promise<void> {
  const processes = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        const cgroup = readFileSync(`/proc/${pid}/cgroup`, 'utf8');
        return cmdline.includes(dir) || cgroup.includes(':/kubepods');
      } catch {
        return false;
      }
    });
  expect(processes).toEqual([]);
  const mounts = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .filter(
      (point) => point.startsWith(dir) || point.includes('/kubelet') || point.startsWith('/run/netns/'),
    );
  expect(mounts).toEqual([]);
  expect(existsSync(dir)).toBe(false);
  const left = (await listLinks()).filter(
    (link) => link.ifname === 'coffer0' || link.master === 'coffer0' || link.linkinfo?.info_kind === 'veth',
  );
  expect(left).toEqual([]);
  expect(netns()).toEqual(before.netns);
  expect(fixedHostPaths.filter((path) => existsSync(path))).toEqual(before.paths);
  expect(nodeChains()).toEqual(before.chains);
  expect(sysctls()).toEqual(before.sysctls);
  expect(existsSync(join(nodeStateDir, 'state.json'))).toBe(false);
  const cgroupRoots = [
    '/sys/fs/cgroup',
    ...readdirSync('/sys/fs/cgroup').map((name) => join('/sys/fs/cgroup', name)),
  ];
  expect(
    cgroupRoots.filter(
      (root) => existsSync(join(root, 'kubepods')) || existsSync(join(root, 'kubepods.slice')),
    ),
  ).toEqual([]);
}

/** Host paths a kubelet or containerd uses whatever its configuration. */
const fixedHostPaths = [
  '/var/lib/kubelet',
  '/var/lib/cni',
  '/var/log/pods',
  '/var/log/containers',
  '/run/containerd',
  '/run/netns',
];

interface MachineState {
  readonly paths: readonly string[];
  readonly sysctls: Record<string, string>;
  readonly chains: readonly string[];
  readonly netns: readonly string[];
}

describe('a local node', () => {
  let plane: ControlPlane;
  // The machine as it is once this file holds the node (another file's node may run before).
  let before: MachineState;
  let releaseNode: (() => void) | undefined;
  const recordMachine = (): void => {
    before = {
      paths: fixedHostPaths.filter((path) => existsSync(path)),
      sysctls: sysctls(),
      chains: nodeChains(),
      netns: netns(),
    };
  };

  const kubectl = async (...args: string[]): Promise<{ code: number; out: string }> => {
    try {
      const { stdout, stderr } = await execFileAsync(
        plane.binaries.kubectl ?? 'kubectl',
        ['--kubeconfig', plane.kubeconfigPath, ...args],
        { timeout: 30_000 },
      );
      return { code: 0, out: stdout + stderr };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      return { code: failed.code ?? -1, out: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
    }
  };

  beforeAll(async () => {
    releaseNode = await reserveNodeForFile();
    recordMachine();
    plane = await startControlPlane({ node: true });
  }, nodeLockWaitMs + 180_000);

  afterAll(async () => {
    await plane?.stop();
    releaseNode?.();
  }, 60_000);

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
      plane.binaries.kubectl ?? 'kubectl',
      ['--kubeconfig', plane.kubeconfigPath, 'apply', '-f', '-'],
      {
        input: JSON.stringify(pod),
      },
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
    expect(forward6).toContain(`-A FORWARD -i ${plane.node?.network.bridge} -j ${egressChain}`);
    const { stdout: chain6 } = await execFileAsync('ip6tables', ['-w', '-S', egressChain]);
    expect(chain6).toContain(`-A ${egressChain} -j DROP`);
  }, 60_000);

  it('leaves nothing behind on the machine when stopped', async () => {
    expect(plane.node?.dir.startsWith(plane.dir)).toBe(true);
    await plane.stop();
    await expectNothingLeft(plane.dir, before);
  }, 60_000);

  it('sweeps what a node killed with SIGKILL left, when the next node starts', async () => {
    const child = spawn(
      process.execPath,
      [fileURLToPath(new URL('../support/node-child.ts', import.meta.url))],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += String(chunk)));
    const killedDir = await waitFor(() => /^READY (\S+)$/m.exec(output)?.[1], {
      timeoutMs: 150_000,
      intervalMs: 250,
      message: 'the child to run a node with a Pod',
    });
    // The killed control plane's own files (etcd data, certificates) are not the node's to sweep.
    onTestFinished(() => rmSync(killedDir, { recursive: true, force: true }));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    // Left behind: the state file, the container's shim, the bridge.
    expect(existsSync(join(nodeStateDir, 'state.json'))).toBe(true);
    expect((await listLinks()).some((link) => link.ifname === 'coffer0')).toBe(true);

    const lines: string[] = [];
    const next = await startControlPlane({ node: true, log: (line) => lines.push(line) });
    try {
      expect(lines.join('\n')).toContain(`sweeping what a previous node (${killedDir}/node) left`);
      expect(existsSync(join(killedDir, 'node'))).toBe(false);
    } finally {
      await next.stop();
    }
    await expectNothingLeft(next.dir, before);
  }, 240_000);

  it('stops `npm run sandbox -- --node` on Ctrl-C, leaving nothing behind', async () => {
    // As the README runs it, in a process group of its own: Ctrl-C in a terminal signals the group.
    const repo = fileURLToPath(new URL('../..', import.meta.url));
    const child = spawn('npm', ['run', 'sandbox', '--', '--node'], {
      cwd: repo,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const group = -(child.pid ?? 0);
    let output = '';
    const collect = (chunk: Buffer) => (output += String(chunk));
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    // Closed once every process holding its output (npm, the sandbox) has exited.
    const closed = new Promise((resolve) => child.once('close', resolve));
    onTestFinished(() => {
      try {
        process.kill(group, 'SIGKILL');
      } catch {
        // The group is gone.
      }
    });
    await waitFor(() => output.includes('Running; press Ctrl-C to stop and clean up.'), {
      timeoutMs: 360_000,
      intervalMs: 250,
      message: 'the sandbox to be ready',
    });
    expect(output).toContain('All ');
    const dir = dirname(/^Kubeconfig: (\S+)$/m.exec(output)?.[1] ?? '');
    expect(dir).toMatch(/coffer-sandbox-/);
    process.kill(group, 'SIGINT');
    await closed;
    expect(() => process.kill(group, 0)).toThrow(/ESRCH/);
    expect(output).toContain('SIGINT: stopping the sandbox');
    expect(output).toContain(
      '[sandbox] stopped operator, devserver, PostgreSQL, control plane and node; temporary files removed',
    );
    await expectNothingLeft(dir, before);
  }, 480_000);
});
