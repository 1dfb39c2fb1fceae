/**
 * From the typed operator configuration to the runtime: the kube client configuration, the root
 * logger and the manager options. The composition root (the `coffer operator` command) calls
 * these, then registers the kind controllers on the manager and runs it.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { PooledKubeConfig } from '../runtime/kube-config.ts';
import { createLogger, type Logger } from '../runtime/logger.ts';
import type { ManagerOptions } from '../runtime/manager.ts';
import type { OperatorConfig } from './operator-config.ts';

/**
 * Loads the Kubernetes client configuration, in controller-runtime's order: `--kubeconfig` (or
 * `$KUBECONFIG`, already folded into `config.kubeconfig`), then the in-cluster service account
 * when running in a pod, then `~/.kube/config`. All requests share one connection pool (see
 * {@link PooledKubeConfig}).
 */
export function loadKubeConfig(
  config: OperatorConfig,
  env: Readonly<Record<string, string | undefined>>,
): KubeConfig {
  const kubeConfig = new PooledKubeConfig();
  try {
    if (config.kubeconfig) kubeConfig.loadFromFile(config.kubeconfig);
    else if (env.KUBERNETES_SERVICE_HOST) kubeConfig.loadFromCluster();
    else kubeConfig.loadFromDefault();
  } catch (error) {
    throw new Error(`cannot load the Kubernetes client configuration: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (!kubeConfig.getCurrentCluster()) {
    throw new Error('cannot load the Kubernetes client configuration: no current cluster');
  }
  return kubeConfig;
}

/** The root logger at `--log-level`. */
export function operatorLogger(config: OperatorConfig): Logger {
  return createLogger({ level: config.logLevel, name: 'coffer' });
}

/** Manager options for `config`; leader election is included only with `--leader-elect`. */
export function managerOptions(config: OperatorConfig, kubeConfig: KubeConfig, log: Logger): ManagerOptions {
  const leaderElection =
    config.leaderElect && config.leaderElectionNamespace
      ? {
          namespace: config.leaderElectionNamespace,
          name: config.leaderElectionId,
          ...config.leaderElection,
        }
      : undefined;
  return {
    kubeConfig,
    log,
    namespaces: config.namespaces,
    metricsBindAddress: config.metricsBindAddress,
    healthProbeBindAddress: config.healthProbeBindAddress,
    leaderElection,
    gracefulShutdownTimeoutMs: config.gracefulShutdownTimeoutMs,
    maxConcurrentReconciles: config.maxConcurrentReconciles,
  };
}
