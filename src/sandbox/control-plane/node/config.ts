/** Configuration files of the local node: containerd, CNI, kubelet and kube-proxy. */
import { pauseImage } from './images.ts';

/** Addresses of the node's network. */
export interface NodeNetwork {
  /** The pod bridge, created before anything starts. */
  readonly bridge: string;
  /** The private pod CIDR (a /24). */
  readonly podCidr: string;
  /** The node's address: the bridge's, first of the pod CIDR; the API server and kubelet listen there. */
  readonly nodeIp: string;
}

export const defaultNodeNetwork: NodeNetwork = {
  bridge: 'coffer0',
  podCidr: '10.244.0.0/24',
  nodeIp: '10.244.0.1',
};

/** The node's name as it registers. */
export const nodeName = 'coffer-node';

/** containerd (v1.6, config version 2) with root, state, socket and CNI config in `dir`. */
export function containerdConfig(dir: string, cniBinDir: string): string {
  return `version = 2
root = "${dir}/containerd/root"
state = "${dir}/containerd/state"
[grpc]
  address = "${dir}/containerd.sock"
[ttrpc]
  address = "${dir}/containerd-ttrpc.sock"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "${dir}/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${pauseImage}"
  # Root here lacks CAP_SYS_RESOURCE: without this every sandbox fails in runc.
  restrict_oom_score_adj = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "${cniBinDir}"
    conf_dir = "${dir}/cni/net.d"
`;
}

/** The CNI bridge network: pods on the bridge with host-local addresses, no masquerading. */
export function cniConfig(dir: string, network: NodeNetwork): string {
  return JSON.stringify({
    cniVersion: '0.4.0',
    name: 'coffer-pods',
    plugins: [
      {
        type: 'bridge',
        bridge: network.bridge,
        isGateway: true,
        ipMasq: false,
        hairpinMode: true,
        ipam: {
          type: 'host-local',
          ranges: [[{ subnet: network.podCidr, gateway: network.nodeIp }]],
          routes: [{ dst: '0.0.0.0/0' }],
          dataDir: `${dir}/cni/ipam`,
        },
      },
    ],
  });
}

/** Ports the node's components listen on (all free, chosen by the caller). */
export interface NodePorts {
  readonly kubelet: number;
  readonly kubeletHealthz: number;
  readonly proxyHealthz: number;
  readonly proxyMetrics: number;
  readonly scheduler: number;
}

/** KubeletConfiguration for a node in `dir` on a cgroup v1 machine without swap limits. */
export function kubeletConfig(init: {
  dir: string;
  caPath: string;
  network: NodeNetwork;
  ports: NodePorts;
}): string {
  const { dir, caPath, network, ports } = init;
  return JSON.stringify({
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: network.nodeIp,
    port: ports.kubelet,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: ports.kubeletHealthz,
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true },
      x509: { clientCAFile: caPath },
    },
    authorization: { mode: 'Webhook' },
    containerRuntimeEndpoint: `unix://${dir}/containerd.sock`,
    cgroupDriver: 'cgroupfs',
    failCgroupV1: false,
    failSwapOn: false,
    podLogsDir: `${dir}/pod-logs`,
    clusterDomain: 'cluster.local',
    resolvConf: '/etc/resolv.conf',
    evictionHard: { 'memory.available': '50Mi', 'nodefs.available': '1%', 'imagefs.available': '1%' },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    serializeImagePulls: false,
  });
}

/** KubeProxyConfiguration: iptables mode, touching no conntrack sysctl and no localhost NodePorts. */
export function kubeProxyConfig(init: {
  kubeconfig: string;
  network: NodeNetwork;
  ports: NodePorts;
}): string {
  const { kubeconfig, network, ports } = init;
  return JSON.stringify({
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    clientConnection: { kubeconfig },
    mode: 'iptables',
    hostnameOverride: nodeName,
    bindAddress: network.nodeIp,
    clusterCIDR: network.podCidr,
    healthzBindAddress: `127.0.0.1:${ports.proxyHealthz}`,
    metricsBindAddress: `127.0.0.1:${ports.proxyMetrics}`,
    nodePortAddresses: [`${network.nodeIp}/32`],
    conntrack: {
      maxPerCore: 0,
      min: 0,
      tcpEstablishedTimeout: '0s',
      tcpCloseWaitTimeout: '0s',
      udpTimeout: '0s',
      udpStreamTimeout: '0s',
    },
    iptables: { localhostNodePorts: false, masqueradeAll: false },
  });
}
