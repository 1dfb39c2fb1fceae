/**
 * The cluster the sandbox runs against: a local control plane (binaries built on first use by
 * `scripts/control-plane/install.sh`, its output streamed), or an existing cluster named by a
 * kubeconfig file.
 */
import { spawn, type StdioOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import { PooledKubeConfig } from '../runtime/kube-config.ts';
import {
  installScript,
  locateBinaries,
  MissingBinariesError,
  type ControlPlaneBinaries,
} from './control-plane/binaries.ts';
import { startControlPlane } from './control-plane/control-plane.ts';

/** The cluster the sandbox uses. */
export interface SandboxCluster {
  /** True for the sandbox's own control plane (stopped with the sandbox). */
  readonly local: boolean;
  readonly kubeconfigPath: string;
  /** The kubectl to suggest: the cached one when available, else `kubectl` from PATH. */
  readonly kubectl: string;
  /** Temporary directory of the local control plane (removed by `stop`). */
  readonly dir?: string;
  kubeConfig(): KubeConfig;
  /** Stops the local control plane (no-op for an existing cluster). */
  stop(): Promise<void>;
}

/** Options of {@link localCluster}. */
export interface LocalClusterOptions {
  readonly log: (line: string) => void;
  readonly env?: NodeJS.ProcessEnv;
  /** Where install.sh's output goes (default: inherited, so the build shows its progress). */
  readonly installStdio?: StdioOptions;
}

/** Runs scripts/control-plane/install.sh, which builds whatever binary the cache lacks. */
export function runInstallScript(env: NodeJS.ProcessEnv, stdio: StdioOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [fileURLToPath(installScript)], { env, stdio });
    child.once('error', (error) =>
      reject(new Error(`cannot run install.sh: ${error.message}`, { cause: error })),
    );
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(
            `cannot build the control-plane binaries: install.sh exited (code ${code}, signal ${signal})`,
          ),
        );
    });
  });
}

/** The binaries, building them with install.sh when kube-apiserver or etcd is missing. */
export async function ensureBinaries(options: LocalClusterOptions): Promise<ControlPlaneBinaries> {
  const env = options.env ?? process.env;
  try {
    return locateBinaries(env);
  } catch (error) {
    if (!(error instanceof MissingBinariesError)) throw error;
    options.log(
      'control-plane binaries not found: building them once with scripts/control-plane/install.sh ' +
        '(needs Go; tens of minutes on a small machine; cached afterwards)',
    );
    await runInstallScript(env, options.installStdio ?? 'inherit');
    return locateBinaries(env);
  }
}

/** Starts a local etcd + kube-apiserver (see `control-plane/control-plane.ts`). */
export async function localCluster(options: LocalClusterOptions): Promise<SandboxCluster> {
  const binaries = await ensureBinaries(options);
  const plane = await startControlPlane({
    log: options.log,
    env: options.env,
    fieldManager: 'coffer-sandbox',
    dirPrefix: 'coffer-sandbox-',
  });
  return {
    local: true,
    kubeconfigPath: plane.kubeconfigPath,
    kubectl: binaries.kubectl ?? 'kubectl',
    dir: plane.dir,
    kubeConfig: () => plane.kubeConfig(),
    stop: () => plane.stop(),
  };
}

function cachedKubectl(env: NodeJS.ProcessEnv): string {
  try {
    return locateBinaries(env).kubectl ?? 'kubectl';
  } catch {
    return 'kubectl';
  }
}

/** An existing cluster: the current context of the kubeconfig at `path`. */
export function existingCluster(path: string, env: NodeJS.ProcessEnv = process.env): SandboxCluster {
  const load = (): KubeConfig => {
    const kc = new PooledKubeConfig();
    try {
      kc.loadFromFile(path);
    } catch (error) {
      throw new Error(`cannot load kubeconfig ${path}: ${(error as Error).message}`, { cause: error });
    }
    return kc;
  };
  load();
  return {
    local: false,
    kubeconfigPath: path,
    kubectl: cachedKubectl(env),
    kubeConfig: load,
    stop: () => Promise.resolve(),
  };
}
