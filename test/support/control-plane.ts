// A real Kubernetes control plane for tests (etcd + kube-apiserver on loopback, like envtest;
// kube-controller-manager too when asked for).
// The implementation lives in src/sandbox/control-plane/ because `coffer sandbox` starts the same
// control plane; this module keeps the tests' entry point: progress on the console, the tests'
// field manager by default, and — as for the sandbox — missing binaries built on first use by
// scripts/control-plane/install.sh (its output shown), so `npm test` works on a fresh machine.
import {
  startControlPlane as startLocalControlPlane,
  type ControlPlane,
  type ControlPlaneOptions,
} from '../../src/sandbox/control-plane/control-plane.ts';
import { ensureBinaries, runInstallScript } from '../../src/sandbox/cluster-source.ts';
import { acquireNodeLock } from '../../src/sandbox/control-plane/node/host.ts';
import { testFieldManager } from './control-plane-cluster.ts';

export { ControlPlane, type ControlPlaneOptions } from '../../src/sandbox/control-plane/control-plane.ts';
export {
  TestCluster,
  statusCodeOf,
  testFieldManager,
  type ControlPlaneInfo,
} from './control-plane-cluster.ts';
export { locateBinaries, type ControlPlaneBinaries } from './control-plane-binaries.ts';

/**
 * Starts etcd and kube-apiserver — and kube-controller-manager with `controllerManager: true` —
 * (see `src/sandbox/control-plane/control-plane.ts`), building missing binaries first, logging
 * progress with `console.log` and applying as `coffer-tests` unless told otherwise.
 */
/**
 * How long a test file that starts a node waits for another file's node to stop: one node runs
 * per machine, and the files that start one run in the same worker pool as the others.
 */
export const nodeLockWaitMs = 20 * 60_000;

/**
 * Reserves the node for the whole of a test file (a second lock beside the node's own, so that no
 * other file's node starts between two nodes of this file); resolves to its release.
 */
export async function reserveNodeForFile(): Promise<() => void> {
  const lock = await acquireNodeLock(nodeLockWaitMs, 'test-file.lock');
  return lock.release;
}

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const log = (line: string): void => console.log(`[control-plane] ${line}`);
  const binaries = await ensureBinaries({ log, env: options.env });
  if (options.controllerManager && !binaries.kubeControllerManager) {
    log('kube-controller-manager not found: building it once with scripts/control-plane/install.sh');
    await runInstallScript(options.env ?? process.env, 'inherit');
  }
  return startLocalControlPlane({
    log: (line) => console.log(line),
    fieldManager: testFieldManager,
    dirPrefix: 'coffer-test-control-plane-',
    ...options,
  });
}
