/**
 * What a test of the control plane's node (src/sandbox/control-plane/node/) reads on this machine
 * to prove a stopped or swept node left nothing behind: processes, mounts, the node's directory,
 * bridge and veth links, network namespaces, the host paths a kubelet or containerd uses, the
 * node's iptables chains, the sysctls it touches, its state file and kubepods cgroups. Also the
 * egress drop rule's packet counter and a `kubectl` runner for a control plane.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import {
  fixedHostPaths,
  nodeChains,
  nodeStateDir,
  touchedSysctls,
} from '../../src/sandbox/control-plane/node/host.ts';
import { egressChain } from '../../src/sandbox/control-plane/node/node.ts';

const execFileAsync = promisify(execFile);

/** What of the machine a node may change, as it was before the node started. */
export interface MachineState {
  readonly paths: readonly string[];
  readonly sysctls: Record<string, string>;
  readonly chains: readonly string[];
  readonly netns: readonly string[];
}

function sysctls(): Record<string, string> {
  return Object.fromEntries(
    touchedSysctls.map((name) => [
      name,
      readFileSync(`/proc/sys/${name.replaceAll('.', '/')}`, 'utf8').trim(),
    ]),
  );
}

function netns(): string[] {
  try {
    return readdirSync('/run/netns');
  } catch {
    return [];
  }
}

/** The machine as it is now (record it while this file holds the node lock, before its node starts). */
export function recordMachine(): MachineState {
  return {
    paths: fixedHostPaths.filter((path) => existsSync(path)),
    sysctls: sysctls(),
    chains: nodeChains(),
    netns: netns(),
  };
}

interface Link {
  readonly ifname: string;
  readonly master?: string;
  readonly linkinfo?: { readonly info_kind?: string };
}

/** The machine's network links as `ip -d -j link` lists them. */
export async function listLinks(): Promise<Link[]> {
  const { stdout } = await execFileAsync('ip', ['-d', '-j', 'link', 'show']);
  return JSON.parse(stdout) as Link[];
}

/** Packets the egress drop rule has dropped so far. */
export async function droppedPackets(): Promise<number> {
  const { stdout } = await execFileAsync('iptables', ['-w', '-L', egressChain, '-v', '-x', '-n']);
  const rule = stdout.split('\n').find((line) => line.includes('DROP'));
  if (!rule) throw new Error(`no DROP rule in ${egressChain}:\n${stdout}`);
  return Number(rule.trim().split(/\s+/)[0]);
}

function processesOf(dir: string): string[] {
  return readdirSync('/proc')
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
}

/** Asserts that no trace of the node of the control plane in `dir` is left on the machine. */
export async function expectNothingLeft(dir: string, before: MachineState): Promise<void> {
  expect(processesOf(dir)).toEqual([]);
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

/** `kubectl` against the control plane of `kubeconfigPath`: its exit code and its output (stdout then stderr). */
export function kubectlOf(
  kubectl: string,
  kubeconfigPath: string,
): (...args: string[]) => Promise<{ code: number; out: string }> {
  return async (...args) => {
    try {
      const { stdout, stderr } = await execFileAsync(kubectl, ['--kubeconfig', kubeconfigPath, ...args], {
        timeout: 30_000,
      });
      return { code: 0, out: stdout + stderr };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      return { code: failed.code ?? -1, out: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
    }
  };
}
