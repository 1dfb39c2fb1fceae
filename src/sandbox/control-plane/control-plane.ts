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
  MissingBinariesError,
  readPinnedVersions,
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
import { defaultControllers, startControllerManager } from './controller-manager.ts';
import { writeKubeconfig, writeSecretFile } from './kubeconfig.ts';
import { freePort, ManagedProcess, onProcessExit } from './process.ts';
import { probeHttp, probeHttps, waitUntilReady } from './readiness.ts';
import { apiServerArgs, etcdArgs, nodeApiServerArgs } from './args.ts';
import { restoreHost } from './node/host.ts';
import {
  prepareNodeHost,
  startNode,
  type LocalNode,
  type NodeControlPlane,
  type NodeHost,
} from './node/node.ts';

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
  /**
   * Also start a node (default false; see node/node.ts): containerd, kubelet, kube-scheduler and
   * kube-proxy. Needs root, the node's binaries and packages, and no other node on the machine.
   * The API server then listens on the node's address, where Pods reach it; kube-controller-manager
   * runs (with the node lifecycle controller among the default controllers).
   */
  readonly node?: boolean;
  /**
   * With `node`: how long to wait for another node on this machine to stop (default 0: refuse at
   * once). Test files that each start a node wait for one another this way.
   */
  readonly waitForNodeMs?: number;
}

const adminUser = 'coffer-admin';

interface Pki {
  readonly ca: PemPair;
  readonly serving: PemPair;
  readonly admin: PemPair;
  readonly serviceAccountKey: ServiceAccountKey;
}

/** Addresses and names of the `kubernetes` Service in the API server's serving certificate (node only). */
const serviceNames = [
  'kubernetes',
  'kubernetes.default',
  'kubernetes.default.svc',
  'kubernetes.default.svc.cluster.local',
];
const serviceIp = '10.0.0.1';

async function createPki(nodeIp?: string): Promise<Pki> {
  const ca = await createCertificateAuthority('coffer-local-ca');
  const [serving, admin] = await Promise.all([
    nodeIp ? issueServingCertificate(ca, [nodeIp, serviceIp], serviceNames) : issueServingCertificate(ca),
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
  /** The node, when started with `node: true`. */
  readonly node: LocalNode | undefined;
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
    node?: LocalNode;
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
    this.node = init.node;
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
    await this.node?.stopProcesses();
    await this.#controllerManager?.stop();
    await this.#apiServer.stop();
    await this.#etcd.stop();
    // Only now: the API server listens on the node's address, which goes with the bridge.
    this.node?.restoreMachine();
    rmSync(this.dir, { recursive: true, force: true });
    this.#unregister();
    this.#unregister = () => undefined;
  }

  /** For the exit handler: kill every process and remove the directory, synchronously. */
  killNow(): void {
    this.node?.killProcesses();
    this.#controllerManager?.killGroup();
    this.#apiServer.killGroup();
    this.#etcd.killGroup();
    this.node?.restoreMachine();
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

/** The binaries `options` need; throws a {@link MissingBinariesError} when one is missing. */
function requiredBinaries(options: ControlPlaneOptions): {
  binaries: ControlPlaneBinaries;
  managerBinary: string | undefined;
  nodeBinaries: NodeControlPlane['binaries'] | undefined;
} {
  const binaries = locateBinaries(options.env);
  const needsManager = options.controllerManager === true || options.node === true;
  return {
    binaries,
    managerBinary: needsManager ? requireControllerManager(binaries, options.env) : undefined,
    nodeBinaries: options.node ? requireNodeBinaries(binaries) : undefined,
  };
}

function controlPlaneInfo(
  plane: { dir: string; server: string; etcdPort: number },
  [kubeApiserver, etcd, kubeControllerManager]: [string, string, string | undefined],
): ControlPlaneInfo {
  const { dir, server, etcdPort } = plane;
  return {
    server,
    kubeconfigPath: join(dir, 'kubeconfig.yaml'),
    caCertPath: join(dir, 'ca.crt'),
    caKeyPath: join(dir, 'ca.key'),
    etcdServer: `http://127.0.0.1:${etcdPort}`,
    versions: { kubeApiserver, etcd, ...(kubeControllerManager ? { kubeControllerManager } : {}) },
  };
}

/** The node's binaries from `binaries`; throws a {@link MissingBinariesError} naming those missing. */
function requireNodeBinaries(binaries: ControlPlaneBinaries): {
  kubelet: string;
  kubeScheduler: string;
  kubeProxy: string;
} {
  const { kubelet, kubeScheduler, kubeProxy } = binaries;
  if (kubelet && kubeScheduler && kubeProxy) return { kubelet, kubeScheduler, kubeProxy };
  throw new MissingBinariesError(
    'cannot start a node: kubelet, kube-scheduler or kube-proxy not found; run `npm run control-plane:install` (it builds them)',
  );
}

function writePki(dir: string, pki: Pki): void {
  mkdirSync(join(dir, 'apiserver-certs'));
  writeFileSync(join(dir, 'ca.crt'), pki.ca.certPem);
  writeSecretFile(join(dir, 'ca.key'), pki.ca.keyPem);
  writeFileSync(join(dir, 'serving.crt'), pki.serving.certPem);
  writeSecretFile(join(dir, 'serving.key'), pki.serving.keyPem);
  writeSecretFile(join(dir, 'sa.key'), pki.serviceAccountKey.privateKeyPem);
  writeFileSync(join(dir, 'sa.pub'), pki.serviceAccountKey.publicKeyPem);
  // The API server's identity towards a node's kubelet (logs, exec): the admin's.
  writeFileSync(join(dir, 'kubelet-client.crt'), pki.admin.certPem);
  writeSecretFile(join(dir, 'kubelet-client.key'), pki.admin.keyPem);
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
    // The node lifecycle controller lifts the not-ready taint a kubelet registers its node with.
    ...(!options.controllers && options.node
      ? { controllers: [...defaultControllers, 'node-lifecycle-controller'] }
      : {}),
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
  const { binaries, managerBinary, nodeBinaries } = requiredBinaries(options);
  const launched = new Launched(options.dirPrefix);
  const { dir, processes } = launched;
  const unregister = onProcessExit(() => launched.killAll());
  try {
    const nodeIp = nodeBinaries ? await launched.prepareNode(options) : undefined;
    const [kubeApiserverVersion, etcdVersion, managerVersion, pki, etcdPort, peerPort, port] =
      await Promise.all([
        binaryVersion(binaries.kubeApiserver),
        binaryVersion(binaries.etcd),
        managerBinary ? binaryVersion(managerBinary) : undefined,
        createPki(nodeIp),
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

    const { apiServer, args, server } = await launched.startApiServer(binaries, {
      etcdPort,
      port,
      nodeIp,
      pki,
      extraArgs: options.apiServerArgs ?? [],
    });

    const controllerManager = managerBinary
      ? await startKubeControllerManager(managerBinary, { dir, server, pki }, options)
      : undefined;
    if (controllerManager) processes.push(controllerManager);
    const node = nodeBinaries ? await launched.startNode(nodeBinaries, { server, pki }) : undefined;

    const kubeconfigPath = join(dir, 'kubeconfig.yaml');
    writeKubeconfig(kubeconfigPath, server, pki.ca.certPem, { user: adminUser, client: pki.admin });
    const info = controlPlaneInfo({ dir, server, etcdPort }, [
      kubeApiserverVersion,
      etcdVersion,
      managerVersion,
    ]);
    (options.log ?? (() => undefined))(readyLine(info, startedAt));
    const plane = new ControlPlane({
      info,
      binaries,
      dir,
      etcd,
      apiServer,
      ...(controllerManager ? { controllerManager } : {}),
      ...(node ? { node } : {}),
      apiServerArgs: args,
      pki,
      fieldManager: options.fieldManager,
    });
    unregister();
    return plane;
  } catch (error) {
    launched.killAll();
    unregister();
    throw error;
  }
}

/** What {@link startControlPlane} has launched so far: undone on failure and on exit before it returns. */
class Launched {
  readonly dir: string;
  readonly processes: ManagedProcess[] = [];
  nodeHost: NodeHost | undefined;
  node: LocalNode | undefined;

  /** Creates the temporary directory, named `<prefix>XXXXXX` (default prefix `coffer-control-plane-`). */
  constructor(prefix = 'coffer-control-plane-') {
    this.dir = mkdtempSync(join(tmpdir(), prefix));
  }

  /**
   * Starts kube-apiserver on `port` (on the node's address `nodeIp` when there is a node, else on
   * loopback) and waits until it is ready.
   */
  async startApiServer(
    binaries: ControlPlaneBinaries,
    plane: {
      etcdPort: number;
      port: number;
      nodeIp: string | undefined;
      pki: Pki;
      extraArgs: readonly string[];
    },
  ): Promise<{ apiServer: ManagedProcess; args: string[]; server: string }> {
    const { etcdPort, port, nodeIp, pki } = plane;
    const nodeArgs = nodeIp ? nodeApiServerArgs(this.dir, nodeIp) : [];
    const args = apiServerArgs(this.dir, etcdPort, port, [...nodeArgs, ...plane.extraArgs]);
    const apiServer = startApiServerProcess(binaries, args, this.dir);
    this.processes.push(apiServer);
    const server = `https://${nodeIp ?? '127.0.0.1'}:${port}`;
    await waitUntilReady(apiServer, () => apiServerReady(server, pki));
    return { apiServer, args, server };
  }

  /** Prepares the machine for a node (see `prepareNodeHost`); resolves to the node's address. */
  async prepareNode(options: Pick<ControlPlaneOptions, 'log' | 'waitForNodeMs'>): Promise<string> {
    const log = options.log ?? (() => undefined);
    this.nodeHost = await prepareNodeHost(join(this.dir, 'node'), log, options.waitForNodeMs ?? 0);
    return this.nodeHost.network.nodeIp;
  }

  /** Starts the node on the prepared machine against the API server at `server`. */
  async startNode(
    binaries: NodeControlPlane['binaries'],
    plane: { server: string; pki: Pki },
  ): Promise<LocalNode> {
    if (!this.nodeHost) throw new Error('cannot start a node: the machine was not prepared');
    this.node = await startNode(this.nodeHost, {
      server: plane.server,
      ca: plane.pki.ca,
      caPath: join(this.dir, 'ca.crt'),
      kubernetesVersion: readPinnedVersions().kubernetes,
      binaries,
    });
    return this.node;
  }

  /** Kills every process, restores the machine after a node, and removes the directory. */
  killAll(): void {
    this.node?.killNow();
    for (const proc of this.processes) proc.killGroup();
    if (this.nodeHost && !this.node) {
      restoreHost(this.nodeHost.state);
      this.nodeHost.release();
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
