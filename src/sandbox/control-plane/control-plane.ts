/**
 * A real, local Kubernetes control plane, the way controller-runtime's envtest does it: etcd and
 * kube-apiserver on free loopback ports, fresh certificates, RBAC, an admin kubeconfig. Used by
 * `coffer sandbox`, once per run by the tests' global setup, and standalone by a test that needs
 * its own (e.g. one that restarts the API server).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import { binaryVersion, locateBinaries, type ControlPlaneBinaries } from './binaries.ts';
import {
  createCertificateAuthority,
  createServiceAccountKey,
  issueClientCertificate,
  issueServingCertificate,
  type PemPair,
  type ServiceAccountKey,
} from './certs.ts';
import { KubeCluster, type ControlPlaneInfo } from './cluster.ts';
import { freePort, ManagedProcess, onProcessExit } from './process.ts';

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
}

const readyTimeoutMs = 60_000;
const adminUser = 'coffer-admin';
const clusterName = 'coffer-local';

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

/** GET `url`; true on HTTP 200. With `pki`, authenticates as the admin and trusts the test CA. */
function probe(url: string, pki?: Pki): Promise<boolean> {
  const tls = pki ? { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem } : {};
  return new Promise((resolve) => {
    const req = request(url, { ...tls, timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

async function probeHttp(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return response.ok;
  } catch {
    return false;
  }
}

async function waitUntilReady(proc: ManagedProcess, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (!proc.running) {
      const exit = await proc.exited;
      throw new Error(
        `cannot start ${proc.name}: it exited (code ${exit.code}, signal ${exit.signal}); last log lines:\n${proc.logTail()}`,
      );
    }
    if (await check()) return;
    if (Date.now() > deadline) {
      throw new Error(
        `cannot start ${proc.name}: not ready after ${readyTimeoutMs} ms; last log lines:\n${proc.logTail()}`,
      );
    }
    await sleep(50);
  }
}

function writeSecretFile(path: string, content: string): void {
  writeFileSync(path, content, { mode: 0o600 });
}

function writeKubeconfig(path: string, server: string, pki: Pki): void {
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: clusterName, cluster: { server, 'certificate-authority-data': b64(pki.ca.certPem) } }],
    users: [
      {
        name: adminUser,
        user: { 'client-certificate-data': b64(pki.admin.certPem), 'client-key-data': b64(pki.admin.keyPem) },
      },
    ],
    contexts: [{ name: clusterName, context: { cluster: clusterName, user: adminUser } }],
    'current-context': clusterName,
  };
  writeSecretFile(path, stringify(config));
}

function etcdArgs(dir: string, clientPort: number, peerPort: number): string[] {
  const client = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  return [
    '--name=default',
    `--data-dir=${join(dir, 'etcd')}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=default=${peer}`,
    // Throw-away data: durability buys nothing and costs seconds on a busy disk.
    '--unsafe-no-fsync',
    '--log-level=warn',
  ];
}

function apiServerArgs(dir: string, etcdPort: number, port: number, extra: readonly string[]): string[] {
  const file = (name: string): string => join(dir, name);
  return [
    `--etcd-servers=http://127.0.0.1:${etcdPort}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${port}`,
    `--cert-dir=${file('apiserver-certs')}`,
    `--tls-cert-file=${file('serving.crt')}`,
    `--tls-private-key-file=${file('serving.key')}`,
    `--client-ca-file=${file('ca.crt')}`,
    '--authorization-mode=RBAC',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${file('sa.pub')}`,
    `--service-account-signing-key-file=${file('sa.key')}`,
    '--service-cluster-ip-range=10.0.0.0/24',
    // No kube-controller-manager runs, so nothing creates the `default` service account that the
    // ServiceAccount admission plugin requires for pods.
    '--disable-admission-plugins=ServiceAccount',
    // Nothing in a cluster uses this API server: no Endpoints upkeep for the `kubernetes` service.
    '--endpoint-reconciler-type=none',
    '--allow-privileged=true',
    '--profiling=false',
    ...extra,
  ];
}

/** A running etcd + kube-apiserver pair; see {@link startControlPlane}. */
export class ControlPlane extends KubeCluster {
  readonly binaries: ControlPlaneBinaries;
  /** Temporary directory with certificates, etcd data and the process logs; removed by stop(). */
  readonly dir: string;
  readonly #etcd: ManagedProcess;
  #apiServer: ManagedProcess;
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
    apiServerArgs: readonly string[];
    pki: Pki;
    fieldManager?: string;
  }) {
    super(init.info, init.fieldManager);
    this.binaries = init.binaries;
    this.dir = init.dir;
    this.#etcd = init.etcd;
    this.#apiServer = init.apiServer;
    this.#apiServerArgs = init.apiServerArgs;
    this.#pki = init.pki;
    // Registered here, not per process, so an API server started by restartApiServer() is covered.
    this.#unregister = onProcessExit(() => this.killNow());
  }

  /**
   * Stops kube-apiserver (SIGTERM, waiting for exit) and starts it again on the same port with
   * the same etcd and certificates; resolves when `/readyz` answers 200 again. Clients keep working
   * after the restart; watches break and must be re-established, which is what this is for.
   */
  async restartApiServer(): Promise<void> {
    await this.#apiServer.stop();
    this.#apiServer = startApiServerProcess(this.binaries, this.#apiServerArgs, this.dir);
    await waitUntilReady(this.#apiServer, () => probe(`${this.server}/readyz`, this.#pki));
  }

  /** Stops kube-apiserver and etcd and removes the temporary directory. Safe to call twice. */
  async stop(): Promise<void> {
    await this.#apiServer.stop();
    await this.#etcd.stop();
    rmSync(this.dir, { recursive: true, force: true });
    this.#unregister();
    this.#unregister = () => undefined;
  }

  /** For the exit handler: kill both processes and remove the directory, synchronously. */
  killNow(): void {
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

/**
 * Starts etcd and kube-apiserver on free loopback ports with fresh certificates, RBAC
 * authorization and an admin identity (`coffer-admin` in `system:masters`), writes the admin
 * kubeconfig and resolves once `/readyz` answers 200. Logs the versions the binaries report.
 * Throws (never skips) when a binary is missing or a process fails to start; everything started
 * is stopped and removed on failure, on process exit and on SIGINT/SIGTERM/SIGHUP.
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const log = options.log ?? (() => undefined);
  const startedAt = Date.now();
  const binaries = locateBinaries(options.env);
  const dir = mkdtempSync(join(tmpdir(), options.dirPrefix ?? 'coffer-control-plane-'));
  const processes: ManagedProcess[] = [];
  const killAll = (): void => {
    for (const proc of processes) proc.killGroup();
    rmSync(dir, { recursive: true, force: true });
  };
  const unregister = onProcessExit(killAll);
  try {
    const [kubeApiserverVersion, etcdVersion, pki, etcdPort, peerPort, port] = await Promise.all([
      binaryVersion(binaries.kubeApiserver),
      binaryVersion(binaries.etcd),
      createPki(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    mkdirSync(join(dir, 'apiserver-certs'));
    writeFileSync(join(dir, 'ca.crt'), pki.ca.certPem);
    writeSecretFile(join(dir, 'ca.key'), pki.ca.keyPem);
    writeFileSync(join(dir, 'serving.crt'), pki.serving.certPem);
    writeSecretFile(join(dir, 'serving.key'), pki.serving.keyPem);
    writeSecretFile(join(dir, 'sa.key'), pki.serviceAccountKey.privateKeyPem);
    writeFileSync(join(dir, 'sa.pub'), pki.serviceAccountKey.publicKeyPem);

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
    await waitUntilReady(apiServer, () => probe(`${server}/readyz`, pki));

    const kubeconfigPath = join(dir, 'kubeconfig.yaml');
    writeKubeconfig(kubeconfigPath, server, pki);
    const info: ControlPlaneInfo = {
      server,
      kubeconfigPath,
      caCertPath: join(dir, 'ca.crt'),
      caKeyPath: join(dir, 'ca.key'),
      versions: { kubeApiserver: kubeApiserverVersion, etcd: etcdVersion },
    };
    const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
    log(
      `[control-plane] kube-apiserver ${kubeApiserverVersion}, etcd ${etcdVersion}: ready at ${server} in ${seconds} s`,
    );
    const plane = new ControlPlane({
      info,
      binaries,
      dir,
      etcd,
      apiServer,
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
