/**
 * The memory of a container on the local node, as the kubelet counts it: the working set (usage
 * minus inactive file pages) and anonymous memory, read from the container's memory cgroup (v1:
 * `memory.usage_in_bytes`, `total_inactive_file`, `total_rss`; v2: `memory.current`,
 * `inactive_file`, `anon`), and the kubelet's own figures from `/stats/summary` through the API
 * server's node proxy.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Bytes of one container's memory. */
export interface ContainerMemory {
  readonly workingSet: number;
  readonly anon: number;
}

/** The host PID of container `containerId` (`containerd://<id>`) from the node's containerd at `socket`. */
export async function containerPid(socket: string, containerId: string): Promise<number> {
  const id = containerId.replace(/^containerd:\/\//, '');
  const { stdout } = await execFileAsync('ctr', ['--address', socket, '-n', 'k8s.io', 'tasks', 'ls']);
  const row = stdout.split('\n').find((line) => line.startsWith(id));
  if (!row) throw new Error(`cannot find the task of container ${id}`);
  return Number(row.trim().split(/\s+/)[1]);
}

function statField(stat: string, name: string): number {
  const value = new RegExp(`^${name} (\\d+)$`, 'm').exec(stat)?.[1];
  if (value === undefined) throw new Error(`cannot read ${name} from memory.stat`);
  return Number(value);
}

/** Working set and anonymous memory of the memory cgroup process `pid` is in. */
export function cgroupMemory(pid: number): ContainerMemory {
  const lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n');
  const v2 = existsSync('/sys/fs/cgroup/cgroup.controllers');
  const line = lines.find((l) => (v2 ? l.startsWith('0::') : /^\d+:([^:]*,)?memory(,[^:]*)?:/.test(l)));
  const path = line?.split(':')[2];
  if (path === undefined) throw new Error(`cannot find the memory cgroup of process ${pid}`);
  const dir = v2 ? join('/sys/fs/cgroup', path) : join('/sys/fs/cgroup/memory', path);
  const stat = readFileSync(join(dir, 'memory.stat'), 'utf8');
  const usage = Number(readFileSync(join(dir, v2 ? 'memory.current' : 'memory.usage_in_bytes'), 'utf8'));
  const inactiveFile = statField(stat, v2 ? 'inactive_file' : 'total_inactive_file');
  return { workingSet: Math.max(0, usage - inactiveFile), anon: statField(stat, v2 ? 'anon' : 'total_rss') };
}

interface Summary {
  pods?: {
    podRef: { name: string; namespace: string };
    containers?: { name: string; memory?: { workingSetBytes?: number; rssBytes?: number; time?: string } }[];
  }[];
}

/**
 * The kubelet's working set and RSS (anonymous memory) of `container` in Pod `namespace/pod`, from
 * `/api/v1/nodes/<node>/proxy/stats/summary`, with the time the kubelet sampled it.
 */
export async function kubeletMemory(
  kubectl: string,
  kubeconfig: string,
  where: { node: string; namespace: string; pod: string; container: string },
): Promise<ContainerMemory & { time: string }> {
  const { stdout } = await execFileAsync(kubectl, [
    '--kubeconfig',
    kubeconfig,
    'get',
    '--raw',
    `/api/v1/nodes/${where.node}/proxy/stats/summary`,
  ]);
  const summary = JSON.parse(stdout) as Summary;
  const pod = summary.pods?.find(
    (p) => p.podRef.name === where.pod && p.podRef.namespace === where.namespace,
  );
  const memory = pod?.containers?.find((c) => c.name === where.container)?.memory;
  if (!memory?.workingSetBytes) throw new Error(`the kubelet has no memory figures for ${where.pod} yet`);
  return { workingSet: memory.workingSetBytes, anon: memory.rssBytes ?? 0, time: memory.time ?? '' };
}
