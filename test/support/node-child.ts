/**
 * A process that starts a control plane with a node, runs a Pod on it, prints `READY <dir>` (the
 * control plane's directory) and then waits: a test SIGKILLs it to leave a node behind unswept.
 * Run with `node test/support/node-child.ts`.
 */
import { execFileSync } from 'node:child_process';
import { startControlPlane } from '../../src/sandbox/control-plane/control-plane.ts';
import { probeImage } from '../../src/sandbox/control-plane/node/images.ts';

const plane = await startControlPlane({ node: true, dirPrefix: 'coffer-test-node-child-' });
const kubectl = (args: string[], input?: string): string =>
  execFileSync(plane.binaries.kubectl ?? 'kubectl', ['--kubeconfig', plane.kubeconfigPath, ...args], {
    encoding: 'utf8',
    ...(input ? { input } : {}),
  });
const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'left-behind', namespace: 'default' },
  spec: {
    containers: [{ name: 'probe', image: probeImage, imagePullPolicy: 'Never' }],
    tolerations: [{ operator: 'Exists' }],
  },
};
kubectl(['apply', '-f', '-'], JSON.stringify(pod));
kubectl(['wait', '--for=condition=Ready', 'pod/left-behind', '--timeout=90s']);
console.log(`READY ${plane.dir}`);
setInterval(() => undefined, 60_000);
