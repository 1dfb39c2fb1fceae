/**
 * What a test of the chart on the node reads on the host about the containers the node runs: the
 * node's containerd (`ctr` in the kubelet's namespace) and the kernel's view of a container's
 * process (`/proc/<pid>`).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';

const execFileAsync = promisify(execFile);

/** The Pods of `namespace` matching `labelSelector` that are not being deleted. */
export async function livePods(core: CoreV1Api, namespace: string, labelSelector: string): Promise<V1Pod[]> {
  const pods = await core.listNamespacedPod({ namespace, labelSelector });
  return pods.items.filter((pod) => !pod.metadata?.deletionTimestamp);
}

/** The output of `ctr … args` against the containerd of the node in `nodeDir`, in the kubelet's namespace. */
export async function ctr(nodeDir: string, ...args: string[]): Promise<string> {
  const socket = join(nodeDir, 'containerd.sock');
  const { stdout } = await execFileAsync('ctr', ['--address', socket, '-n', 'k8s.io', ...args]);
  return stdout;
}

/** The host PID of the container `containerId` (`containerd://<id>`), from the node's containerd. */
export async function hostPid(nodeDir: string, containerId: string): Promise<number> {
  const id = containerId.replace(/^containerd:\/\//, '');
  const line = (await ctr(nodeDir, 'tasks', 'ls')).split('\n').find((row) => row.startsWith(id));
  if (!line) throw new Error(`no task for container ${id}`);
  return Number(line.trim().split(/\s+/)[1]);
}

/** What the kernel says about process `pid`: its user ids, effective capabilities, and whether its `/` is mounted read-only. */
export function processFacts(pid: number): {
  uids: string[];
  effectiveCapabilities: string;
  rootReadOnly: boolean;
} {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const root = readFileSync(`/proc/${pid}/mountinfo`, 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .find((fields) => fields[4] === '/');
  return {
    uids: /^Uid:\s+(.*)$/m.exec(status)?.[1]?.split(/\s+/) ?? [],
    effectiveCapabilities: /^CapEff:\s+(\S+)$/m.exec(status)?.[1] ?? '',
    rootReadOnly: (root?.[5] ?? '').split(',').includes('ro'),
  };
}
