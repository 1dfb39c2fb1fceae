import { defineConfig } from 'vitest/config';

/**
 * Integration files that run alone, after all others (project `integration-serial`): the chaos
 * files measure rates and takeover times over wall-clock windows (service faults, Lease expiry,
 * operator crashes, API server restarts) that a busy CPU would stretch. The files that start a
 * node (node.test.ts, e2e-*.test.ts) run with the others: one node runs per machine at a time, so
 * each waits for the machine-wide node lock (`nodeLockWaitMs`) while the other slots go on.
 */
const serialIntegration = [
  'test/integration/chaos-apiserver.test.ts',
  'test/integration/chaos-crash.test.ts',
  'test/integration/chaos-failover.test.ts',
  'test/integration/chaos-service.test.ts',
];

/**
 * Integration files running at once. They mostly wait on the API server, the devserver and
 * requeues, so three share two cores well; the global setup starts one control plane per slot
 * (see test/support/global-setup.ts).
 */
const integrationWorkers = 3;

const integration = {
  environment: 'node' as const,
  globalSetup: ['test/support/global-setup.ts'],
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

// Three projects, run one after another (`sequence.groupOrder`): the colocated unit tests (CPU-bound,
// one at a time as before: several keep the default 5 s test timeout with little to spare on a busy
// machine), the integration files that can share the machine (three at a time), then the files that
// need the machine to themselves, one at a time.
// Integration tests run against real kube-apiservers + etcd (one per worker slot, started by the
// global setup) and devservers on loopback.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/unit/**/*.test.ts'],
          environment: 'node',
          maxWorkers: 1,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...integration,
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: serialIntegration,
          maxWorkers: integrationWorkers,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...integration,
          name: 'integration-serial',
          include: serialIntegration,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
