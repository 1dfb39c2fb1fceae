// A real Kubernetes control plane for tests (etcd + kube-apiserver on loopback, like envtest).
// The implementation lives in src/sandbox/control-plane/ because `coffer sandbox` starts the same
// control plane; this module keeps the tests' entry point: progress on the console and the tests'
// field manager by default.
import {
  startControlPlane as startLocalControlPlane,
  type ControlPlane,
  type ControlPlaneOptions,
} from '../../src/sandbox/control-plane/control-plane.ts';
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
 * Starts etcd and kube-apiserver (see `src/sandbox/control-plane/control-plane.ts`), logging
 * progress with `console.log` and applying as `coffer-tests` unless told otherwise.
 */
export function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  return startLocalControlPlane({
    log: (line) => console.log(line),
    fieldManager: testFieldManager,
    dirPrefix: 'coffer-test-control-plane-',
    ...options,
  });
}
