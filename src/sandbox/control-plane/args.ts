/** Command-line flags of the local control plane's etcd and kube-apiserver. */
import { join } from 'node:path';

/** Flags of a throw-away, single-member etcd on loopback with its data in `<dir>/etcd`. */
export function etcdArgs(dir: string, clientPort: number, peerPort: number): string[] {
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

/**
 * Flags of kube-apiserver on 127.0.0.1:`port` backed by etcd on `etcdPort`, with the files
 * `writePki` leaves in `dir` (CA, serving certificate, service-account keys); `extra` last.
 */
export function apiServerArgs(
  dir: string,
  etcdPort: number,
  port: number,
  extra: readonly string[],
): string[] {
  const file = (name: string): string => join(dir, name);
  // List flags: given twice, kube-apiserver would append (and refuse a repeated mode), so the
  // last one of `extra` wins and the others are dropped.
  const last = (name: string) => extra.findLast((flag) => flag.startsWith(`--${name}=`));
  const authorization = last('authorization-mode') ?? '--authorization-mode=RBAC';
  const admission = last('enable-admission-plugins');
  const listFlag = /^--(authorization-mode|enable-admission-plugins)=/;
  const serviceAccountAdmission = admission?.split('=')[1]?.split(',').includes('ServiceAccount') ?? false;
  return [
    `--etcd-servers=http://127.0.0.1:${etcdPort}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${port}`,
    `--cert-dir=${file('apiserver-certs')}`,
    `--tls-cert-file=${file('serving.crt')}`,
    `--tls-private-key-file=${file('serving.key')}`,
    `--client-ca-file=${file('ca.crt')}`,
    authorization,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${file('sa.pub')}`,
    `--service-account-signing-key-file=${file('sa.key')}`,
    '--service-cluster-ip-range=10.0.0.0/24',
    // Unless enabled in `extra` (a cluster whose serviceaccount controller runs; Pods then get
    // their ServiceAccount's token mounted), off: nothing would create the `default` service
    // account the ServiceAccount admission plugin requires for pods.
    ...(serviceAccountAdmission ? [] : ['--disable-admission-plugins=ServiceAccount']),
    // Nothing in a cluster uses this API server: no Endpoints upkeep for the `kubernetes` service.
    '--endpoint-reconciler-type=none',
    '--allow-privileged=true',
    '--profiling=false',
    ...extra.filter((flag) => !listFlag.test(flag)),
    ...(admission ? [admission] : []),
  ];
}

/**
 * kube-apiserver flags for a control plane with a node (appended after {@link apiServerArgs}'
 * own, so they win): listening on the node's address `nodeIp`, where Pods reach it through the
 * `kubernetes` Service (whose endpoints it then keeps); Node authorization and NodeRestriction for
 * the kubelet's node credential; the admin's client certificate for logs and exec on the kubelet.
 */
export function nodeApiServerArgs(dir: string, nodeIp: string): string[] {
  return [
    `--bind-address=${nodeIp}`,
    `--advertise-address=${nodeIp}`,
    '--endpoint-reconciler-type=lease',
    '--authorization-mode=Node,RBAC',
    '--enable-admission-plugins=NodeRestriction',
    `--kubelet-client-certificate=${join(dir, 'kubelet-client.crt')}`,
    `--kubelet-client-key=${join(dir, 'kubelet-client.key')}`,
    '--kubelet-preferred-address-types=InternalIP',
  ];
}
