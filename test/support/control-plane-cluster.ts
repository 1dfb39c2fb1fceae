// Access to a running control plane (src/sandbox/control-plane/cluster.ts), with the tests' field
// manager: `TestCluster` is the sandbox's `KubeCluster` applying as `coffer-tests`.
import { KubeCluster, type ControlPlaneInfo } from '../../src/sandbox/control-plane/cluster.ts';

export {
  KubeCluster,
  statusCodeOf,
  toClientModel,
  type ControlPlaneInfo,
} from '../../src/sandbox/control-plane/cluster.ts';

/** Field manager used by the harness for server-side apply. */
export const testFieldManager = 'coffer-tests';

/** A handle on the run's control plane, usable from the global setup or from a test worker. */
export class TestCluster extends KubeCluster {
  constructor(info: ControlPlaneInfo) {
    super(info, testFieldManager);
  }
}
