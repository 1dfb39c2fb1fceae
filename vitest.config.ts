import { defineConfig } from 'vitest/config';
import { NodeChainSequencer } from './test/support/sequencer.ts';

/**
 * Test files running at once, unit and integration alike. Integration files mostly wait on the
 * API server, the devserver and requeues, so four share two cores; the global setup starts one
 * control plane per slot (test/support/global-setup.ts). The file that starts a node
 * (e2e-chart-node.test.ts, mostly waiting for the kubelet to rotate a token) holds one slot for
 * most of the run: the sequencer starts it first (test/support/sequencer.ts).
 */
const workers = 4;

// Two projects: the colocated unit tests (a longer timeout than vitest's 5 s: they share the
// cores with integration files), and the integration tests against real kube-apiservers + etcd
// and devservers on loopback.
export default defineConfig({
  test: {
    sequence: { sequencer: NodeChainSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/unit/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          maxWorkers: workers,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          maxWorkers: workers,
        },
      },
    ],
  },
});
