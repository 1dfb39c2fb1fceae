// A real Kubernetes control plane for tests (etcd + kube-apiserver on loopback, like envtest).
// The implementation lives in src/sandbox/control-plane/ because `coffer sandbox` starts the same
// control plane; this module keeps the tests' entry point: progress on the console, the tests'
// field manager by default, and — as for the sandbox — missing binaries built on first use by
// scripts/control-plane/install.sh (its output shown), so `npm test` works on a fresh machine.
import {
  startControlPlane as startLocalControlPlane,
  type ControlPlane,
  type ControlPlaneOptions,
} from '../../src/sandbox/control-plane/control-plane.ts';
import { ensureBinaries } from '../../src/sandbox/cluster-source.ts';
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
 * Starts etcd and kube-apiserver (see `src/sandbox/control-plane/control-plane.ts`), building
 * them first when they are missing, logging progress with `console.log` and applying as
 * `coffer-tests` unless told otherwise.
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  await ensureBinaries({ log: (line) => console.log(`[control-plane] ${line}`), env: options.env });
  return startLocalControlPlane({
    log: (line) => console.log(line),
    fieldManager: testFieldManager,
    dirPrefix: 'coffer-test-control-plane-',
    ...options,
  });
}
