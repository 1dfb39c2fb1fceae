/**
 * A real, local Kubernetes control plane, the way controller-runtime's envtest does it: etcd and
 * kube-apiserver on free loopback ports, fresh certificates, RBAC, an admin kubeconfig; on
 * request also kube-controller-manager (namespace controller and garbage collector). Used by
 * `coffer sandbox`, once per run by the tests' global setup, and standalone by a test that needs
 * its own (e.g. one that restarts the API server or deletes namespaces).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  binaryVersion,
  locateBinaries,
  requireControllerManager,
  type ControlPlaneBinaries,
} from './binaries.ts';
import {
  createCertificateAuthority,
  createServiceAccountKey,
  issueClientCertificate,
  issueServingCertificate,
  type PemPair,
  type ServiceAccountKey,
} from './certs.ts';
import { KubeCluster, type ControlPlaneInfo } from './cluster.ts';
import { startControllerManager } from './controller-manager.ts';
import { writeKubeconfig, writeSecretFile } from './kubeconfig.ts';
import { freePort, ManagedProcess, onProcessExit } from './process.ts';
import { probeHttp, probeHttps, waitUntilReady } from './readiness.ts';
import { apiServerArgs, etcdArgs } from './args.ts';

/** Options of {@link startControlPlane}. */
export interface ControlPlaneOptions {
  /** Where progress lines go (default: nowhere); the versions started are reported there. */
  readonly log?: (line: string) => void;
  /** Extra kube-apiserver flags, appended last (so they win). */
  readonly apiServerArgs?: readonly string[];
  /** Environment used to locate binaries (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /** Field manager of the handle's server-side applies (default `coffer`). */
  readonly fieldManager?: string;
  /** Prefix of the temporary directory's name (default `coffer-control-plane-`). */
  readonly dirPrefix?: string;
  /**
   * Also start kube-controller-manager (default false): namespace deletion then finishes and
   * ownerReferences are garbage-collected, as in a real cluster. Its binary must be available
   * (see `locateBinaries`); without it the start fails with a `MissingBinariesError`.
   */
  readonly controllerManager?: boolean;
  /** With `controllerManager`: the controllers to run (default namespace and garbage collector). */
  readonly controllers?: readonly string[];
  /** With `controllerManager`: extra kube-controller-manager flags, appended last. */
  readonly controllerManagerArgs?: readonly string[];
}

const adminUser = 'coffer-admin';

interface Pki {
  readonly ca: PemPair;
  readonly serving: PemPair;
  readonly admin: PemPair;
  readonly serviceAccountKey: ServiceAccountKey;
}

async function createPki(): Promise<Pki> {
  const ca = await createCertificateAuthority('coffer-local-ca');
  const [serving, admin] = await Promise.all([
    issueServingCertificate(ca),
    issueClientCertificate(ca, adminUser, ['system:masters']),
  ]);
  return { ca, serving, admin, serviceAccountKey: createServiceAccountKey() };
}

/** `/readyz` of the API server answers 200 (as the admin, trusting the local CA). */
function apiServerReady(server: string, pki: Pki): Promise<boolean> {
  return probeHttps(`${server}/readyz`, {
    ca: pki.ca.certPem,
    cert: pki.admin.certPem,
    key: pki.admin.keyPem,
  });
}

/** A running etcd + kube-apiserver pair (plus kube-controller-manager on request); see {@link startControlPlane}. */
export class ControlPlane extends KubeCluster {
  readonly binaries: ControlPlaneBinaries;
  /** Temporary directory with certificates, etcd data and the process logs; removed by stop(). */
  readonly dir: string;
  readonly #etcd: ManagedProcess;
  #apiServer: ManagedProcess;
  readonly #controllerManager: ManagedProcess | undefined;
  readonly #apiServerArgs: readonly string[];
  readonly #pki: Pki;
  #unregister: () => void;

  /** Use {@link startControlPlane}. */
  constructor(init: {
    info: ControlPlaneInfo;
    binaries: ControlPlaneBinaries;
    dir: string;
    etcd: ManagedProcess;
    apiServer: ManagedProcess;
    controllerManager?: ManagedProcess;
    apiServerArgs: readonly string[];
    pki: Pki;
    fieldManager?: string;
  }) {
    super(init.info, init.fieldManager);
    this.binaries = init.binaries;
    this.dir = init.dir;
    this.#etcd = init.etcd;
    this.#apiServer = init.apiServer;
    this.#controllerManager = init.controllerManager;
    this.#apiServerArgs = init.apiServerArgs;
    this.#pki = init.pki;
    // Registered here, not per process, so an API server started by restartApiServer() is covered.
    this.#unregister = onProcessExit(() => this.killNow());
  }

  /** Log file of kube-controller-manager, or undefined when it was not started. */
  get controllerManagerLogPath(): string | undefined {
    return this.#controllerManager?.logPath;
  }

  /**
   * Stops kube-apiserver (SIGTERM, waiting for exit) and starts it again on the same port with
   * the same etcd and certificates; resolves when `/readyz` answers 200 again. Clients keep working
   * after the restart; watches break and must be re-established, which is what this is for.
   * A kube-controller-manager keeps running and reconnects by itself.
   */
  async restartApiServer(): Promise<void> {
    await this.#apiServer.stop();
    this.#apiServer = startApiServerProcess(this.binaries, this.#apiServerArgs, this.dir);
    await waitUntilReady(this.#apiServer, () => apiServerReady(this.server, this.#pki));
  }

  /** Stops every process (controller manager first, etcd last) and removes the directory. Safe to call twice. */
  async stop(): Promise<void> {
    await this.#controllerManager?.stop();
    await this.#apiServer.stop();
    await this.#etcd.stop();
    rmSync(this.dir, { recursive: true, force: true });
    this.#unregister();
    this.#unregister = () => undefined;
  }

  /** For the exit handler: kill every process and remove the directory, synchronously. */
  killNow(): void {
    this.#controllerManager?.killGroup();
    this.#apiServer.killGroup();
    this.#etcd.killGroup();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function startApiServerProcess(
  binaries: ControlPlaneBinaries,
  args: readonly string[],
  dir: string,
): ManagedProcess {
  return new ManagedProcess('kube-apiserver', binaries.kubeApiserver, args, join(dir, 'kube-apiserver.log'));
}

function writePki(dir: string, pki: Pki): void {
  mkdirSync(join(dir, 'apiserver-certs'));
  writeFileSync(join(dir, 'ca.crt'), pki.ca.certPem);
  writeSecretFile(join(dir, 'ca.key'), pki.ca.keyPem);
  writeFileSync(join(dir, 'serving.crt'), pki.serving.certPem);
  writeSecretFile(join(dir, 'serving.key'), pki.serving.keyPem);
  writeSecretFile(join(dir, 'sa.key'), pki.serviceAccountKey.privateKeyPem);
  writeFileSync(join(dir, 'sa.pub'), pki.serviceAccountKey.publicKeyPem);
}

/** Starts kube-controller-manager against the running API server (see controller-manager.ts). */
function startKubeControllerManager(
  binary: string,
  plane: { dir: string; server: string; pki: Pki },
  options: ControlPlaneOptions,
): Promise<ManagedProcess> {
  const { dir, server, pki } = plane;
  return startControllerManager({
    binary,
    dir,
    server,
    ca: pki.ca,
    serving: { certPath: join(dir, 'serving.crt'), keyPath: join(dir, 'serving.key') },
    rootCaPath: join(dir, 'ca.crt'),
    serviceAccountKeyPath: join(dir, 'sa.key'),
    ...(options.controllers ? { controllers: options.controllers } : {}),
    ...(options.controllerManagerArgs ? { extraArgs: options.controllerManagerArgs } : {}),
  });
}

function readyLine(info: ControlPlaneInfo, startedAt: number): string {
  const { kubeApiserver, etcd, kubeControllerManager } = info.versions;
  const manager = kubeControllerManager ? `, kube-controller-manager ${kubeControllerManager}` : '';
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
  return `[control-plane] kube-apiserver ${kubeApiserver}, etcd ${etcd}${manager}: ready at ${info.server} in ${seconds} s`;
}

/**
 * Starts etcd and kube-apiserver on free loopback ports with fresh certificates, RBAC
 * authorization and an admin identity (`coffer-admin` in `system:masters`), writes the admin
 * kubeconfig and resolves once `/readyz` answers 200; with `options.controllerManager`, also
 * kube-controller-manager, once its `/healthz` answers 200. Logs the versions the binaries report.
 * Throws (never skips) when a binary is missing or a process fails to start; everything started
 * is stopped and removed on failure, on process exit and on SIGINT/SIGTERM/SIGHUP.
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const startedAt = Date.now();
  const binaries = locateBinaries(options.env);
  const managerBinary = options.controllerManager
    ? requireControllerManager(binaries, options.env)
    : undefined;
  const dir = mkdtempSync(join(tmpdir(), options.dirPrefix ?? 'coffer-control-plane-'));
  const processes: ManagedProcess[] = [];
  const killAll = (): void => {
    for (const proc of processes) proc.killGroup();
    rmSync(dir, { recursive: true, force: true });
  };
  const unregister = onProcessExit(killAll);
  try {
    const [kubeApiserverVersion, etcdVersion, managerVersion, pki, etcdPort, peerPort, port] =
      await Promise.all([
        binaryVersion(binaries.kubeApiserver),
        binaryVersion(binaries.etcd),
        managerBinary ? binaryVersion(managerBinary) : undefined,
        createPki(),
        freePort(),
        freePort(),
        freePort(),
      ]);
    writePki(dir, pki);

    const etcd = new ManagedProcess(
      'etcd',
      binaries.etcd,
      etcdArgs(dir, etcdPort, peerPort),
      join(dir, 'etcd.log'),
    );
    processes.push(etcd);
    await waitUntilReady(etcd, () => probeHttp(`http://127.0.0.1:${etcdPort}/health`));

    const args = apiServerArgs(dir, etcdPort, port, options.apiServerArgs ?? []);
    const apiServer = startApiServerProcess(binaries, args, dir);
    processes.push(apiServer);
    const server = `https://127.0.0.1:${port}`;
    await waitUntilReady(apiServer, () => apiServerReady(server, pki));

    const controllerManager = managerBinary
      ? await startKubeControllerManager(managerBinary, { dir, server, pki }, options)
      : undefined;
    if (controllerManager) processes.push(controllerManager);

    const kubeconfigPath = join(dir, 'kubeconfig.yaml');
    writeKubeconfig(kubeconfigPath, server, pki.ca.certPem, { user: adminUser, client: pki.admin });
    const info: ControlPlaneInfo = {
      server,
      kubeconfigPath,
      caCertPath: join(dir, 'ca.crt'),
      caKeyPath: join(dir, 'ca.key'),
      etcdServer: `http://127.0.0.1:${etcdPort}`,
      versions: {
        kubeApiserver: kubeApiserverVersion,
        etcd: etcdVersion,
        ...(managerVersion ? { kubeControllerManager: managerVersion } : {}),
      },
    };
    (options.log ?? (() => undefined))(readyLine(info, startedAt));
    const plane = new ControlPlane({
      info,
      binaries,
      dir,
      etcd,
      apiServer,
      ...(controllerManager ? { controllerManager } : {}),
      apiServerArgs: args,
      pki,
      fieldManager: options.fieldManager,
    });
    unregister();
    return plane;
  } catch (error) {
    killAll();
    unregister();
    throw error;
  }
}
