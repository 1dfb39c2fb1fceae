import { defineConfig } from 'vitest/config';

/**
 * Integration files that run alone, after all others (project `integration-serial`):
 * - node.test.ts: the node holds a machine-wide lock and runs real Pods (containerd, kubelet);
 * - chaos-*.test.ts: they measure rates and takeover times over wall-clock windows (service faults,
 *   Lease expiry, operator crashes, API server restarts) that a busy CPU would stretch.
 */
const serialIntegration = [
  'test/integration/node.test.ts',
  'test/integration/chaos-apiserver.test.ts',
  'test/integration/chaos-crash.test.ts',
  'test/integration/chaos-failover.test.ts',
  'test/integration/chaos-service.test.ts',
];

/**
 * Files running at once in the first group (unit and integration alike). Integration files mostly
 * wait on the API server, the devserver and requeues, so three share two cores well; the global
 * setup starts one control plane per slot (see test/support/global-setup.ts).
 */
const parallelWorkers = 3;

const integration = {
  environment: 'node',
  globalSetup: ['test/support/global-setup.ts'],
  testTimeout: 60_000,
  hookTimeout: 120_000,
} as const;

// Three projects in two groups: fast colocated unit tests and the integration files that can share
// the machine run first, side by side; then the files that need the machine to themselves, one at a
// time. Integration tests run against real kube-apiservers + etcd (one per worker slot, started by
// the global setup) and devservers on loopback.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/unit/**/*.test.ts'],
          environment: 'node',
          maxWorkers: parallelWorkers,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...integration,
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: serialIntegration,
          maxWorkers: parallelWorkers,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...integration,
          name: 'integration-serial',
          include: serialIntegration,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
