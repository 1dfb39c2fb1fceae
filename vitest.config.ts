import { defineConfig } from 'vitest/config';
import { NodeChainSequencer } from './test/support/sequencer.ts';

/**
 * Test files running at once, unit and integration alike. Integration files mostly wait on the
 * API server, the devserver and requeues, so three share two cores well; the global setup starts
 * one control plane per slot (test/support/global-setup.ts). The files that start a node
 * (node.test.ts, e2e-*.test.ts) wait for the machine-wide node lock (`nodeLockWaitMs`); the
 * sequencer starts the longest of them first (test/support/sequencer.ts).
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
