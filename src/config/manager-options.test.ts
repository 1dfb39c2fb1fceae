import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { loadKubeConfig, managerOptions } from './manager-options.ts';
import { parseOperatorConfig } from './operator-config.ts';
import { createLogger } from '../runtime/logger.ts';

const kubeconfigYaml = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: { server: https://10.0.0.1:6443 }
users:
- name: u
  user: {}
contexts:
- name: x
  context: { cluster: c, user: u }
current-context: x
`;

describe('loadKubeConfig', () => {
  it('loads --kubeconfig', () => {
    const dir = mkdtempSync(join(tmpdir(), 'coffer-config-'));
    const path = join(dir, 'kubeconfig');
    writeFileSync(path, kubeconfigYaml);
    const kc = loadKubeConfig(parseOperatorConfig([`--kubeconfig=${path}`]), {});
    expect(kc.getCurrentCluster()?.server).toBe('https://10.0.0.1:6443');
  });

  it('fails clearly for a missing file', () => {
    expect(() => loadKubeConfig(parseOperatorConfig(['--kubeconfig=/nonexistent/kc']), {})).toThrow(
      'cannot load the Kubernetes client configuration',
    );
  });
});

describe('managerOptions', () => {
  const log = createLogger({ level: 'silent' });
  const kc = new KubeConfig();

  it('maps flags to manager options without leader election by default', () => {
    const config = parseOperatorConfig([
      '--namespaces=a,b',
      '--metrics-bind-address=0',
      '--max-concurrent-reconciles=3',
    ]);
    const options = managerOptions(config, kc, log);
    expect(options.kubeConfig).toBe(kc);
    expect(options).toMatchObject({
      namespaces: ['a', 'b'],
      metricsBindAddress: null,
      healthProbeBindAddress: { port: 8081 },
      maxConcurrentReconciles: 3,
      gracefulShutdownTimeoutMs: 30_000,
    });
    expect(options.leaderElection).toBeUndefined();
  });

  it('includes leader election with its timings', () => {
    const config = parseOperatorConfig([
      '--leader-elect',
      '--leader-election-namespace=ops',
      '--leader-election-id=lead',
    ]);
    expect(managerOptions(config, kc, log).leaderElection).toEqual({
      namespace: 'ops',
      name: 'lead',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    });
  });
});
