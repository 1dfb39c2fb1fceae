/**
 * What a local node changes on the whole machine, recorded before it changes it and undone after:
 * sysctls (kubelet, the CNI bridge plugin), iptables chains (kubelet, kube-proxy, the egress rule),
 * the pod bridge, network namespaces, mounts, kubepods cgroups and left-over processes
 * (containerd shims, containers). The record lives in a state file under a fixed path, so that a
 * run killed with SIGKILL is swept by the next one. All of it is synchronous, so that it can run
 * from an exit handler. Only one node runs per machine: see {@link acquireNodeLock}.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Fixed, machine-wide directory of the node's lock and state file. */
export const nodeStateDir = '/run/coffer-node';
const statePath = join(nodeStateDir, 'state.json');

/** Sysctls the kubelet, kube-proxy or the bridge plugin may set; restored to their recorded values. */
export const touchedSysctls = [
  'vm.overcommit_memory',
  'vm.panic_on_oom',
  'kernel.panic',
  'kernel.panic_on_oops',
  'kernel.keys.root_maxkeys',
  'kernel.keys.root_maxbytes',
  'net.ipv4.ip_forward',
  'net.ipv4.conf.all.route_localnet',
] as const;

/** Host paths the kubelet or containerd use whatever their configuration; removed when they were absent. */
export const fixedHostPaths = [
  '/var/lib/kubelet',
  '/var/lib/cni',
  '/var/log/pods',
  '/var/log/containers',
  '/run/containerd',
  '/run/netns',
];

/** Prefixes of the iptables chains a node creates (kubelet and kube-proxy, CNI, the egress rule). */
const chainPattern = /^(KUBE-|CNI-|COFFER-)/;
const iptablesTables = ['filter', 'nat', 'mangle'] as const;
const iptablesCommands = ['iptables', 'ip6tables'] as const;

/** The machine as it was before a node started, and what the node owns. */
export interface NodeHostState {
  /** The run's directory (containerd root and state, kubelet root, logs). */
  readonly dir: string;
  readonly bridge: string;
  readonly sysctls: Record<string, string>;
  /** `<command> <table> <chain>` of the matching chains that existed before. */
  readonly chains: readonly string[];
  /** Network namespaces (`/run/netns`) that existed before. */
  readonly netns: readonly string[];
  /** Fixed host paths that did not exist before. */
  readonly createdPaths: readonly string[];
}

function run(command: string, args: readonly string[]): string {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function tryRun(command: string, args: readonly string[]): void {
  try {
    run(command, args);
  } catch {
    // Best effort: already gone, or never there.
  }
}

function readSysctl(name: string): string | undefined {
  try {
    return readFileSync(`/proc/sys/${name.replaceAll('.', '/')}`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function writeSysctl(name: string, value: string): void {
  writeFileSync(`/proc/sys/${name.replaceAll('.', '/')}`, value);
}

/** The chains of `table` matching the node's prefixes (none when the table cannot be read). */
function chainsIn(command: string, table: string): string[] {
  let dump: string;
  try {
    dump = run(`${command}-save`, ['-t', table]);
  } catch {
    return [];
  }
  return [...dump.matchAll(/^:(\S+) /gm)]
    .map((match) => match[1] ?? '')
    .filter((chain) => chainPattern.test(chain));
}

/** `<command> <table> <chain>` of every chain matching the node's prefixes. */
export function nodeChains(): string[] {
  return iptablesCommands.flatMap((command) =>
    iptablesTables.flatMap((table) =>
      chainsIn(command, table).map((chain) => `${command} ${table} ${chain}`),
    ),
  );
}

function listNetns(): string[] {
  try {
    return readdirSync('/run/netns');
  } catch {
    return [];
  }
}

/** Records the machine's state for a node with directory `dir` and bridge `bridge`, in memory and on disk. */
export function recordHostState(dir: string, bridge: string): NodeHostState {
  const sysctls: Record<string, string> = {};
  for (const name of touchedSysctls) {
    const value = readSysctl(name);
    if (value !== undefined) sysctls[name] = value;
  }
  const state: NodeHostState = {
    dir,
    bridge,
    sysctls,
    chains: nodeChains(),
    netns: listNetns(),
    createdPaths: fixedHostPaths.filter((path) => !existsSync(path)),
  };
  mkdirSync(nodeStateDir, { recursive: true });
  writeFileSync(statePath, JSON.stringify(state));
  return state;
}

/** The state file of a node that never finished its teardown (killed with SIGKILL), if any. */
export function readLeftoverState(): NodeHostState | undefined {
  try {
    return JSON.parse(readFileSync(statePath, 'utf8')) as NodeHostState;
  } catch {
    return undefined;
  }
}

/** Pids of processes whose command line mentions `dir`, or that sit in a kubepods cgroup. */
function nodeProcesses(dir: string): number[] {
  const pids = new Set<number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      const cgroup = readFileSync(`/proc/${name}/cgroup`, 'utf8');
      if (cmdline.includes(dir) || /:\/kubepods/m.test(cgroup)) pids.add(Number(name));
    } catch {
      // Gone while we looked.
    }
  }
  return [...pids];
}

function killNodeProcesses(dir: string): void {
  for (let round = 0; round < 50; round++) {
    const pids = nodeProcesses(dir);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    execFileSync('sleep', ['0.1']);
  }
}

/** Mount points under any of `roots`, deepest first. */
function mountsUnder(roots: readonly string[]): string[] {
  const points = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .map((point) => point.replaceAll('\\040', ' '))
    .filter((point) => roots.some((root) => point === root || point.startsWith(`${root}/`)));
  return [...new Set(points)].sort((a, b) => b.length - a.length);
}

function unmountAll(state: NodeHostState): void {
  const newNetns = listNetns()
    .filter((name) => !state.netns.includes(name))
    .map((name) => `/run/netns/${name}`);
  const roots = [state.dir, ...newNetns, ...state.createdPaths];
  for (let round = 0; round < 5; round++) {
    const points = mountsUnder(roots);
    if (points.length === 0) break;
    for (const point of points) tryRun('umount', ['-l', point]);
  }
  for (const path of newNetns) rmSync(path, { force: true });
}

function deleteLinks(bridge: string): void {
  let links: { ifname: string; master?: string }[] = [];
  try {
    links = JSON.parse(run('ip', ['-j', 'link', 'show'])) as typeof links;
  } catch {
    return;
  }
  for (const link of links) if (link.master === bridge) tryRun('ip', ['link', 'delete', link.ifname]);
  if (links.some((link) => link.ifname === bridge)) tryRun('ip', ['link', 'delete', bridge]);
}

/** Removes the chains matching the node's prefixes that did not exist before, with every jump to them. */
function deleteChains(state: NodeHostState): void {
  const added = nodeChains().filter((chain) => !state.chains.includes(chain));
  const byTable = new Map<string, string[]>();
  for (const entry of added) {
    const [command = '', table = '', chain = ''] = entry.split(' ');
    byTable.set(`${command} ${table}`, [...(byTable.get(`${command} ${table}`) ?? []), chain]);
  }
  for (const [key, chains] of byTable) {
    const [command = '', table = ''] = key.split(' ');
    const rules = run(`${command}-save`, ['-t', table])
      .split('\n')
      .filter((line) => line.startsWith('-A ') && chains.some((chain) => line.includes(` -j ${chain}`)));
    for (const rule of rules) tryRun(command, ['-w', '-t', table, ...splitRule(rule.replace(/^-A /, '-D '))]);
    for (const chain of chains) tryRun(command, ['-w', '-t', table, '-F', chain]);
    for (const chain of chains) tryRun(command, ['-w', '-t', table, '-X', chain]);
  }
}

/** Splits an iptables-save rule into arguments (quoted comments stay one argument). */
function splitRule(rule: string): string[] {
  return [...rule.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((match) => match[1] ?? match[2] ?? '');
}

/** The kubepods cgroups (v1: under every hierarchy; v2: at the root) that exist. */
function kubepodsCgroups(): string[] {
  const roots = ['/sys/fs/cgroup'];
  try {
    for (const entry of readdirSync('/sys/fs/cgroup')) roots.push(join('/sys/fs/cgroup', entry));
  } catch {
    return [];
  }
  return roots
    .flatMap((root) => ['kubepods', 'kubepods.slice'].map((name) => join(root, name)))
    .filter(existsSync);
}

/**
 * The CNI firewall plugin's chains that podman and buildah create on a machine that ran a
 * container with CNI networking, and keep: not a Kubernetes. They are recorded as existing before
 * the node, so its teardown leaves them.
 */
const containerToolChains = /^iptables filter (CNI-FORWARD|CNI-ADMIN)$/;

/**
 * Fails when something else runs Kubernetes on this machine (kubepods cgroups or KUBE-/CNI-
 * chains, other than {@link containerToolChains}, without a node's state file): a node here
 * would take over what is not its own.
 */
export function assertNoOtherKubernetes(): void {
  const found = [...kubepodsCgroups(), ...nodeChains().filter((chain) => !containerToolChains.test(chain))];
  if (found.length > 0) {
    throw new Error(
      `cannot start a node: this machine already runs Kubernetes or a container network (found ${found.slice(0, 3).join(', ')})`,
    );
  }
}

/** Removes the kubepods cgroups, deepest first. */
function removeKubepodsCgroups(): void {
  for (const cgroup of kubepodsCgroups()) removeCgroupTree(cgroup);
}

function removeCgroupTree(path: string): void {
  let entries: string[];
  try {
    entries = readdirSync(path, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return;
  }
  for (const entry of entries) removeCgroupTree(join(path, entry));
  try {
    rmdirSync(path);
  } catch {
    // Still busy, or not a cgroup directory we can remove.
  }
}

function restoreSysctls(state: NodeHostState): void {
  for (const [name, value] of Object.entries(state.sysctls)) {
    try {
      if (readSysctl(name) !== value) writeSysctl(name, value);
    } catch {
      // Read-only here: nothing was changed either.
    }
  }
}

/**
 * Undoes everything a node recorded in `state` changed: kills its processes and containers,
 * unmounts and removes its directory, deletes its network namespaces, bridge and veths, the
 * iptables chains that appeared, the kubepods cgroups and the fixed host paths it created,
 * restores the sysctls and removes the state file.
 */
export function restoreHost(state: NodeHostState): void {
  killNodeProcesses(state.dir);
  unmountAll(state);
  for (const netns of listNetns()) if (!state.netns.includes(netns)) tryRun('ip', ['netns', 'delete', netns]);
  deleteLinks(state.bridge);
  deleteChains(state);
  removeKubepodsCgroups();
  for (const path of state.createdPaths) {
    if (mountsUnder([path]).length === 0) rmSync(path, { recursive: true, force: true });
  }
  if (mountsUnder([state.dir]).length === 0) rmSync(state.dir, { recursive: true, force: true });
  restoreSysctls(state);
  rmSync(statePath, { force: true });
}

/**
 * Takes the machine-wide node lock (flock on `/run/coffer-node/<name>`, default `lock`, held by a
 * `flock` child until `release()` or until this process dies), waiting up to `waitMs` for it.
 * Rejects when another holds it.
 */
export async function acquireNodeLock(waitMs = 0, name = 'lock'): Promise<{ release: () => void }> {
  mkdirSync(nodeStateDir, { recursive: true });
  const wait = waitMs > 0 ? ['-w', String(Math.ceil(waitMs / 1000))] : ['-n'];
  const child: ChildProcess = spawn(
    'flock',
    [...wait, '-E', '75', join(nodeStateDir, name), 'sh', '-c', 'echo locked; exec cat >/dev/null'],
    { stdio: ['pipe', 'pipe', 'ignore'] },
  );
  const locked = await new Promise<boolean>((resolve) => {
    child.stdout?.once('data', () => resolve(true));
    child.once('exit', () => resolve(false));
    child.once('error', () => resolve(false));
  });
  if (!locked)
    throw new Error(`cannot start a node: another node runs on this machine (lock ${nodeStateDir}/${name})`);
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
  return {
    release: () => {
      child.stdin?.end();
      child.kill('SIGKILL');
    },
  };
}
