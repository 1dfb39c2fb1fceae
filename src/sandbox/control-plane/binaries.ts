/**
 * Locates the control-plane binaries (kube-apiserver, etcd, kube-controller-manager, kubectl,
 * helm, and the node's kubelet, kube-scheduler and kube-proxy) and reports the
 * versions they really are. Envtest conventions come first, then the cache that
 * `scripts/control-plane/install.sh` fills (keyed by the versions in `versions.env`).
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageFile } from '../../runtime/package-root.ts';

const execFileAsync = promisify(execFile);

const versionsFile = packageFile('scripts/control-plane/versions.env');

/** The script that builds missing binaries into the cache (`npm run control-plane:install`). */
export const installScript = packageFile('scripts/control-plane/install.sh');

/** Versions pinned in scripts/control-plane/versions.env. */
export interface PinnedVersions {
  readonly kubernetes: string;
  readonly etcd: string;
  readonly helm: string;
}

/**
 * Absolute paths of the binaries; all but kube-apiserver and etcd are absent when neither env nor
 * cache has them (only kube-apiserver and etcd are always required). The node's binaries come
 * from the cache only (envtest has none).
 */
export interface ControlPlaneBinaries {
  readonly kubeApiserver: string;
  readonly etcd: string;
  readonly kubeControllerManager: string | undefined;
  readonly kubectl: string | undefined;
  readonly helm: string | undefined;
  readonly kubelet: string | undefined;
  readonly kubeScheduler: string | undefined;
  readonly kubeProxy: string | undefined;
}

/** Reads versions.env (KEY=VALUE lines, `#` comments), the single source of the pinned versions. */
export function readPinnedVersions(): PinnedVersions {
  const values = new Map<string, string>();
  for (const line of readFileSync(versionsFile, 'utf8').split('\n')) {
    const match = /^\s*([A-Z_]+)=(\S+)\s*$/.exec(line);
    if (match?.[1] && match[2]) values.set(match[1], match[2]);
  }
  const get = (key: string): string => {
    const value = values.get(key);
    if (!value) throw new Error(`cannot read pinned versions: ${key} missing in ${versionsFile.pathname}`);
    return value;
  };
  return { kubernetes: get('KUBERNETES_VERSION'), etcd: get('ETCD_VERSION'), helm: get('HELM_VERSION') };
}

/** The cache root: `$COFFER_CACHE_DIR`, else `~/.cache/coffer`. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env['COFFER_CACHE_DIR'] || join(homedir(), '.cache', 'coffer');
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** First candidate that is set; an explicitly named file that is not executable is an error. */
function pick(name: string, explicit: string | undefined, candidates: string[]): string | undefined {
  if (explicit) {
    if (!isExecutable(explicit)) throw new Error(`cannot use ${name}: ${explicit} is not an executable file`);
    return explicit;
  }
  return candidates.find(isExecutable);
}

/**
 * Thrown by {@link locateBinaries} when kube-apiserver or etcd is neither provided nor cached,
 * and by {@link requireControllerManager} for kube-controller-manager.
 */
export class MissingBinariesError extends Error {}

const installHint = 'run `npm run control-plane:install` or set KUBEBUILDER_ASSETS to envtest binaries';

/**
 * Finds the binaries: `TEST_ASSET_KUBE_APISERVER` / `TEST_ASSET_ETCD` /
 * `TEST_ASSET_KUBE_CONTROLLER_MANAGER` / `TEST_ASSET_KUBECTL`, then `$KUBEBUILDER_ASSETS/<name>`,
 * then the version-keyed cache. Throws a clear error naming
 * what is missing and how to get it; there is never a fallback to a fake API server.
 */
export function locateBinaries(env: NodeJS.ProcessEnv = process.env): ControlPlaneBinaries {
  const versions = readPinnedVersions();
  const bin = join(cacheDir(env), 'bin');
  const assets = env['KUBEBUILDER_ASSETS'];
  const fromAssets = (name: string): string[] => (assets ? [join(assets, name)] : []);
  const k8sDir = join(bin, `k8s-${versions.kubernetes}`);
  const kubeApiserver = pick('kube-apiserver', env['TEST_ASSET_KUBE_APISERVER'], [
    ...fromAssets('kube-apiserver'),
    join(k8sDir, 'kube-apiserver'),
  ]);
  const etcd = pick('etcd', env['TEST_ASSET_ETCD'], [
    ...fromAssets('etcd'),
    join(bin, `etcd-${versions.etcd}`, 'etcd'),
  ]);
  const kubeControllerManager = pick('kube-controller-manager', env['TEST_ASSET_KUBE_CONTROLLER_MANAGER'], [
    ...fromAssets('kube-controller-manager'),
    join(k8sDir, 'kube-controller-manager'),
  ]);
  const kubectl = pick('kubectl', env['TEST_ASSET_KUBECTL'], [
    ...fromAssets('kubectl'),
    join(k8sDir, 'kubectl'),
  ]);
  const helm = pick('helm', undefined, [join(bin, `helm-${versions.helm}`, 'helm')]);
  const missing = [kubeApiserver ? '' : 'kube-apiserver', etcd ? '' : 'etcd'].filter(Boolean);
  if (!kubeApiserver || !etcd) {
    throw new MissingBinariesError(
      `cannot start the control plane: ${missing.join(' and ')} not found ` +
        `(looked at TEST_ASSET_*, KUBEBUILDER_ASSETS and ${bin}); ${installHint}`,
    );
  }
  const node = (name: string): string | undefined => pick(name, undefined, [join(k8sDir, name)]);
  return {
    kubeApiserver,
    etcd,
    kubeControllerManager,
    kubectl,
    helm,
    kubelet: node('kubelet'),
    kubeScheduler: node('kube-scheduler'),
    kubeProxy: node('kube-proxy'),
  };
}

/**
 * The kube-controller-manager path of `binaries` (as {@link locateBinaries} found them with
 * `env`); throws a {@link MissingBinariesError} naming
 * where it was looked for when there is none.
 */
export function requireControllerManager(
  binaries: ControlPlaneBinaries,
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (binaries.kubeControllerManager) return binaries.kubeControllerManager;
  throw new MissingBinariesError(
    'cannot start kube-controller-manager: not found (looked at TEST_ASSET_KUBE_CONTROLLER_MANAGER, ' +
      `KUBEBUILDER_ASSETS and ${join(cacheDir(env), 'bin', `k8s-${readPinnedVersions().kubernetes}`)}); ` +
      'run `npm run control-plane:install` (it builds it)',
  );
}

/** Runs `<binary> --version` and returns e.g. `v1.37.1` / `v3.7.3`, as the binary says it. */
export async function binaryVersion(path: string): Promise<string> {
  const { stdout } = await execFileAsync(path, ['--version'], { timeout: 10_000 });
  // kube-apiserver prints "Kubernetes v1.37.1"; etcd prints "etcd Version: 3.7.3".
  const match = /v?(\d+\.\d+\.\d+\S*)/.exec(stdout);
  if (!match?.[1])
    throw new Error(`cannot read the version of ${path}: unexpected output ${JSON.stringify(stdout)}`);
  return `v${match[1]}`;
}
