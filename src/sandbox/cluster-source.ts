/**
 * The cluster the sandbox runs against: a local control plane (binaries built on first use by
 * `scripts/control-plane/install.sh`, its output streamed), or an existing cluster named by a
 * kubeconfig file.
 */
import type { StdioOptions } from 'node:child_process';
import type { KubeConfig } from '@kubernetes/client-node';
import { PooledKubeConfig } from '../runtime/kube-config.ts';
import { locateBinaries, MissingBinariesError, type ControlPlaneBinaries } from './control-plane/binaries.ts';
import { startControlPlane } from './control-plane/control-plane.ts';
import { runInstallScript } from './install-script.ts';

export { InstallInterruptedError, runInstallScript } from './install-script.ts';

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
  /** Aborting it stops a running first-run build (its whole process group). */
  readonly signal?: AbortSignal;
}

/**
 * The binaries, building them with install.sh when kube-apiserver or etcd is missing — or, with
 * `controllerManager`, kube-controller-manager. Rejects with an `InstallInterruptedError` when
 * `options.signal` aborts the build.
 */
export async function ensureBinaries(
  options: LocalClusterOptions & { readonly controllerManager?: boolean },
): Promise<ControlPlaneBinaries> {
  const env = options.env ?? process.env;
  const build = (what: string): Promise<void> => {
    options.log(
      `${what} not found: building once with scripts/control-plane/install.sh ` +
        '(needs Go; tens of minutes on a small machine; cached afterwards)',
    );
    return runInstallScript(env, options.installStdio ?? 'inherit', options.signal);
  };
  let binaries: ControlPlaneBinaries;
  try {
    binaries = locateBinaries(env);
  } catch (error) {
    if (!(error instanceof MissingBinariesError)) throw error;
    await build('control-plane binaries');
    binaries = locateBinaries(env);
  }
  if (options.controllerManager && !binaries.kubeControllerManager) {
    await build('kube-controller-manager');
    binaries = locateBinaries(env);
  }
  return binaries;
}

/**
 * Starts a local etcd + kube-apiserver + kube-controller-manager (see
 * `control-plane/control-plane.ts`): the controller manager's namespace controller and garbage
 * collector finish namespace deletion and remove owned objects (Secrets, Connections) with their
 * owner, as a real cluster does.
 */
export async function localCluster(options: LocalClusterOptions): Promise<SandboxCluster> {
  const binaries = await ensureBinaries({ ...options, controllerManager: true });
  const plane = await startControlPlane({
    log: options.log,
    env: options.env,
    fieldManager: 'coffer-sandbox',
    dirPrefix: 'coffer-sandbox-',
    controllerManager: true,
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
