/**
 * kube-controller-manager next to a local kube-apiserver, for tests that need what its
 * controllers do — above all the namespace controller, without which a deleted namespace stays
 * `Terminating` forever (nothing empties it and removes the `kubernetes` finalizer).
 *
 * It runs as `system:kube-controller-manager` (a client certificate from the control plane's CA;
 * RBAC's bootstrap policy binds that user) and, as in a real cluster, each controller runs with
 * its own service-account credentials (TokenRequest against the API server's signing key).
 */
import { join } from 'node:path';
import { issueClientCertificate, type PemPair } from './certs.ts';
import { writeKubeconfig } from './kubeconfig.ts';
import { freePort, ManagedProcess } from './process.ts';
import { probeHttps, waitUntilReady } from './readiness.ts';

/**
 * The controllers started by default: the namespace controller empties a deleted namespace and
 * finishes it; the garbage collector removes dependents by ownerReferences (foreground and
 * orphan deletion, and what a background deletion leaves behind); the token controller fills
 * Secrets of type kubernetes.io/service-account-token.
 */
export const defaultControllers: readonly string[] = [
  'namespace-controller',
  'garbage-collector-controller',
  // Fills kubernetes.io/service-account-token Secrets (the samples' Kubernetes-auth token reviewer).
  'serviceaccount-token-controller',
];

/** What {@link startControllerManager} needs from the control plane it joins. */
export interface ControllerManagerSetup {
  /** Path of the kube-controller-manager binary. */
  readonly binary: string;
  /** The control plane's directory: the kubeconfig and the log are written there. */
  readonly dir: string;
  /** The API server URL, `https://127.0.0.1:<port>`. */
  readonly server: string;
  /** The control plane's CA (signs the client certificate; trusted for the API server). */
  readonly ca: PemPair;
  /** Serving certificate for 127.0.0.1 (signed by `ca`), used for the health endpoint. */
  readonly serving: { readonly certPath: string; readonly keyPath: string };
  /** The root CA file and service-account signing key the controllers hand out and use. */
  readonly rootCaPath: string;
  readonly serviceAccountKeyPath: string;
  /** Controllers to run (default {@link defaultControllers}). */
  readonly controllers?: readonly string[];
  /** Extra flags, appended last (so they win). */
  readonly extraArgs?: readonly string[];
}

/** The user kube-controller-manager authenticates as (RBAC bootstrap policy knows it). */
export const controllerManagerUser = 'system:kube-controller-manager';

function controllerManagerArgs(setup: ControllerManagerSetup, kubeconfig: string, port: number): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    // Delegated authentication/authorization of its own endpoints, as kubeadm configures it;
    // /healthz is on --authorization-always-allow-paths by default.
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--tls-cert-file=${setup.serving.certPath}`,
    `--tls-private-key-file=${setup.serving.keyPath}`,
    `--root-ca-file=${setup.rootCaPath}`,
    `--service-account-private-key-file=${setup.serviceAccountKeyPath}`,
    '--use-service-account-credentials=true',
    `--controllers=${(setup.controllers ?? defaultControllers).join(',')}`,
    // One instance, started and stopped with the test: no lease to wait for or to hand over.
    '--leader-elect=false',
    '--profiling=false',
    ...(setup.extraArgs ?? []),
  ];
}

/**
 * Starts kube-controller-manager against `setup.server` on a free loopback port and resolves
 * once its `/healthz` answers 200. The process logs to `<dir>/kube-controller-manager.log`.
 * Throws `cannot start kube-controller-manager` with the log's last lines when it exits or is
 * not healthy in time (the process is stopped then). The caller stops the returned process.
 */
export async function startControllerManager(setup: ControllerManagerSetup): Promise<ManagedProcess> {
  const [port, client] = await Promise.all([
    freePort(),
    issueClientCertificate(setup.ca, controllerManagerUser, []),
  ]);
  const kubeconfig = join(setup.dir, 'kube-controller-manager.kubeconfig');
  writeKubeconfig(kubeconfig, setup.server, setup.ca.certPem, { user: controllerManagerUser, client });
  const proc = new ManagedProcess(
    'kube-controller-manager',
    setup.binary,
    controllerManagerArgs(setup, kubeconfig, port),
    join(setup.dir, 'kube-controller-manager.log'),
  );
  try {
    await waitUntilReady(proc, () =>
      probeHttps(`https://127.0.0.1:${port}/healthz`, { ca: setup.ca.certPem }),
    );
  } catch (error) {
    proc.killGroup();
    throw error;
  }
  return proc;
}
