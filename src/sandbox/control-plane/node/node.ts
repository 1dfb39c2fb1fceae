/**
 * An opt-in node for the local control plane: containerd with its own root, state and socket in
 * the run's directory, a CNI bridge with a private pod CIDR, a kubelet with a node credential,
 * kube-scheduler and kube-proxy (iptables mode), and a rule that drops whatever the pod network
 * sends outside the pod network and this node's own addresses. One node per machine (a
 * machine-wide lock); everything it changes on the machine is recorded first and undone on stop,
 * on exit and on signals, and — after a SIGKILL — by the next node's sweep (see host.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { issueClientCertificate, type PemPair } from '../certs.ts';
import { writeKubeconfig } from '../kubeconfig.ts';
import { freePort, ManagedProcess } from '../process.ts';
import { probeHttp, waitUntilReady } from '../readiness.ts';
import {
  containerdConfig,
  cniConfig,
  defaultNodeNetwork,
  kubeletConfig,
  kubeProxyConfig,
  nodeName,
  type NodeNetwork,
  type NodePorts,
} from './config.ts';
import {
  acquireNodeLock,
  assertNoOtherKubernetes,
  readLeftoverState,
  recordHostState,
  restoreHost,
  type NodeHostState,
} from './host.ts';
import { importNodeImages } from './images.ts';

/** The iptables chain (filter table) holding the pod network's egress drop rule. */
export const egressChain = 'COFFER-NODE-EGRESS';

const cniBinDirs = ['/usr/lib/cni', '/opt/cni/bin'];

/** The machine prepared for a node: lock held, previous run swept, state recorded, bridge and egress rule in place. */
export interface NodeHost {
  readonly network: NodeNetwork;
  readonly state: NodeHostState;
  readonly release: () => void;
}

/** Fails unless this process may change the machine and the node's tools are installed. */
function checkPrerequisites(): string {
  if (process.getuid?.() !== 0)
    throw new Error('cannot start a node: it needs root (it changes the machine)');
  for (const tool of ['containerd', 'ctr', 'runc', 'iptables', 'ip6tables', 'gcc', 'flock']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      throw new Error(`cannot start a node: ${tool} not found (npm run control-plane:install installs it)`);
    }
  }
  const cniBinDir = cniBinDirs.find((dir) => existsSync(join(dir, 'bridge')));
  if (!cniBinDir) throw new Error(`cannot start a node: no CNI bridge plugin in ${cniBinDirs.join(' or ')}`);
  return cniBinDir;
}

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: 'pipe' });
}

function iptables(...args: string[]): void {
  execFileSync('iptables', ['-w', ...args], { stdio: 'pipe' });
}

function ip6tables(...args: string[]): void {
  execFileSync('ip6tables', ['-w', ...args], { stdio: 'pipe' });
}

/**
 * Takes the machine-wide lock (waiting up to `waitMs` for another node to stop), sweeps what a killed previous node left, records the machine's
 * state for the node in `dir`, and creates the pod bridge (with the node's address, where the API
 * server can then listen) and the egress drop rule.
 */
export async function prepareNodeHost(
  dir: string,
  log: (line: string) => void,
  waitMs = 0,
): Promise<NodeHost> {
  checkPrerequisites();
  if (waitMs > 0) log('[node] waiting for the machine-wide node lock');
  const lock = await acquireNodeLock(waitMs);
  try {
    const leftover = readLeftoverState();
    if (leftover) {
      log(`[node] sweeping what a previous node (${leftover.dir}) left on this machine`);
      restoreHost(leftover);
    }
    assertNoOtherKubernetes();
    const network = defaultNodeNetwork;
    const state = recordHostState(dir, network.bridge);
    ip('link', 'add', network.bridge, 'type', 'bridge');
    ip('addr', 'add', `${network.nodeIp}/${network.podCidr.split('/')[1]}`, 'dev', network.bridge);
    ip('link', 'set', network.bridge, 'up');
    iptables('-N', egressChain);
    iptables('-A', egressChain, '!', '-d', network.podCidr, '-j', 'DROP');
    iptables('-I', 'FORWARD', '1', '-s', network.podCidr, '-j', egressChain);
    // The pod network is IPv4 only; whatever IPv6 a Pod could send through the bridge is dropped too.
    ip6tables('-N', egressChain);
    ip6tables('-A', egressChain, '-j', 'DROP');
    ip6tables('-I', 'FORWARD', '1', '-i', network.bridge, '-j', egressChain);
    return { network, state, release: lock.release };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** What the node needs from the control plane. */
export interface NodeControlPlane {
  readonly server: string;
  readonly ca: PemPair;
  readonly caPath: string;
  readonly kubernetesVersion: string;
  readonly binaries: { readonly kubelet: string; readonly kubeScheduler: string; readonly kubeProxy: string };
}

async function writeComponentKubeconfig(
  path: string,
  plane: NodeControlPlane,
  user: string,
  groups: string[],
): Promise<string> {
  const client = await issueClientCertificate(plane.ca, user, groups);
  writeKubeconfig(path, plane.server, plane.ca.certPem, { user, client });
  return path;
}

async function freePorts(): Promise<NodePorts> {
  const [kubelet, kubeletHealthz, proxyHealthz, proxyMetrics, scheduler] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  return { kubelet, kubeletHealthz, proxyHealthz, proxyMetrics, scheduler };
}

function containerdAnswers(socket: string): Promise<boolean> {
  try {
    execFileSync('ctr', ['--address', socket, 'version'], { stdio: 'ignore', timeout: 5_000 });
    return Promise.resolve(true);
  } catch {
    return Promise.resolve(false);
  }
}

/** A running node; see {@link startNode}. */
export class LocalNode {
  readonly name = nodeName;
  readonly network: NodeNetwork;
  readonly dir: string;
  readonly #host: NodeHost;
  readonly #processes: ManagedProcess[];
  #restored = false;

  constructor(host: NodeHost, dir: string, processes: ManagedProcess[]) {
    this.#host = host;
    this.network = host.network;
    this.dir = dir;
    this.#processes = processes;
  }

  /** Stops the node's processes, then restores the machine. Safe to call twice. */
  async stop(): Promise<void> {
    await this.stopProcesses();
    this.restoreMachine();
  }

  /**
   * Stops kube-proxy, kube-scheduler, the kubelet and containerd, leaving the machine as it is
   * (the API server still listens on the node's address until {@link restoreMachine}).
   */
  async stopProcesses(): Promise<void> {
    for (const proc of [...this.#processes].reverse()) await proc.stop();
  }

  /** For the exit handler: kills every process and restores the machine, synchronously. */
  killNow(): void {
    this.killProcesses();
    this.restoreMachine();
  }

  /** Kills every process of the node, synchronously. */
  killProcesses(): void {
    for (const proc of this.#processes) proc.killGroup();
  }

  /**
   * Restores the machine (see `restoreHost`: the bridge and the node's address go) and releases
   * the machine-wide lock. Safe to call twice.
   */
  restoreMachine(): void {
    if (this.#restored) return;
    this.#restored = true;
    restoreHost(this.#host.state);
    this.#host.release();
  }
}

/**
 * Starts containerd (and imports the pause and probe images), the kubelet, kube-scheduler and
 * kube-proxy against the control plane, on a machine prepared by {@link prepareNodeHost}. On
 * failure, stops what it started and restores the machine before rethrowing.
 */
export async function startNode(host: NodeHost, plane: NodeControlPlane): Promise<LocalNode> {
  const dir = host.state.dir;
  const processes: ManagedProcess[] = [];
  try {
    const cniBinDir = checkPrerequisites();
    mkdirSync(join(dir, 'cni', 'net.d'), { recursive: true });
    const ports = await freePorts();
    writeFileSync(join(dir, 'containerd.toml'), containerdConfig(dir, cniBinDir));
    writeFileSync(join(dir, 'cni', 'net.d', '10-coffer.conflist'), cniConfig(dir, host.network));
    const socket = join(dir, 'containerd.sock');
    const containerd = new ManagedProcess(
      'containerd',
      'containerd',
      ['--config', join(dir, 'containerd.toml')],
      join(dir, 'containerd.log'),
    );
    processes.push(containerd);
    await waitUntilReady(containerd, () => containerdAnswers(socket));
    importNodeImages(join(dir, 'images'), socket, plane.kubernetesVersion);

    const [kubeletKubeconfig, schedulerKubeconfig, proxyKubeconfig] = await Promise.all([
      writeComponentKubeconfig(join(dir, 'kubelet.kubeconfig'), plane, `system:node:${nodeName}`, [
        'system:nodes',
      ]),
      writeComponentKubeconfig(join(dir, 'scheduler.kubeconfig'), plane, 'system:kube-scheduler', []),
      writeComponentKubeconfig(join(dir, 'kube-proxy.kubeconfig'), plane, 'system:kube-proxy', []),
    ]);
    writeFileSync(
      join(dir, 'kubelet.json'),
      kubeletConfig({ dir, caPath: plane.caPath, network: host.network, ports }),
    );
    const kubelet = new ManagedProcess(
      'kubelet',
      plane.binaries.kubelet,
      [
        `--config=${join(dir, 'kubelet.json')}`,
        `--kubeconfig=${kubeletKubeconfig}`,
        `--root-dir=${join(dir, 'kubelet')}`,
        `--hostname-override=${nodeName}`,
        `--node-ip=${host.network.nodeIp}`,
      ],
      join(dir, 'kubelet.log'),
    );
    processes.push(kubelet);
    await waitUntilReady(kubelet, () => probeHttp(`http://127.0.0.1:${ports.kubeletHealthz}/healthz`));

    const scheduler = new ManagedProcess(
      'kube-scheduler',
      plane.binaries.kubeScheduler,
      [
        `--kubeconfig=${schedulerKubeconfig}`,
        `--authentication-kubeconfig=${schedulerKubeconfig}`,
        `--authorization-kubeconfig=${schedulerKubeconfig}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${ports.scheduler}`,
        '--leader-elect=false',
        '--profiling=false',
      ],
      join(dir, 'kube-scheduler.log'),
    );
    processes.push(scheduler);
    writeFileSync(
      join(dir, 'kube-proxy.json'),
      kubeProxyConfig({ kubeconfig: proxyKubeconfig, network: host.network, ports }),
    );
    const proxy = new ManagedProcess(
      'kube-proxy',
      plane.binaries.kubeProxy,
      [`--config=${join(dir, 'kube-proxy.json')}`],
      join(dir, 'kube-proxy.log'),
    );
    processes.push(proxy);
    await waitUntilReady(proxy, () => probeHttp(`http://127.0.0.1:${ports.proxyHealthz}/healthz`));
    return new LocalNode(host, dir, processes);
  } catch (error) {
    for (const proc of processes) proc.killGroup();
    restoreHost(host.state);
    host.release();
    throw error;
  }
}
