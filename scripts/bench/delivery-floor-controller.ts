/**
 * The least a delivering controller does per WorkloadSecret, for `npm run bench:delivery`: one
 * Secret created with 10 keys and one status patch writing `Ready=True` for the current
 * generation — no service calls, no reads. What kube-apiserver spends on these writes is the
 * floor for any operator delivering into Secrets and reporting status on the same machine.
 *
 * `node scripts/bench/delivery-floor-controller.ts --kubeconfig=PATH --namespace=NS [--workers=16]`;
 * prints `synced` once its informer has listed, then works until SIGTERM.
 */
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { group, version } from '../../src/api/v1alpha1/index.ts';
import { objectPath, type ResourceKind } from '../../src/managed/kube-objects.ts';
import { Informer, type KubeObject } from '../../src/runtime/informer.ts';
import { PooledKubeConfig } from '../../src/runtime/kube-config.ts';
import { collectionPath, kubeRequest } from '../../src/runtime/kube-request.ts';
import { parseCommandLine } from '../command-line.ts';

const usage = `usage: node scripts/bench/delivery-floor-controller.ts --kubeconfig=PATH --namespace=NS [--workers=16]

The minimal delivering controller of npm run bench:delivery: prints "synced" once its informer
has listed, then works until SIGTERM.`;

const { values } = parseCommandLine(usage, () => {
  const parsed = parseArgs({
    options: {
      kubeconfig: { type: 'string' },
      namespace: { type: 'string' },
      workers: { type: 'string', default: '16' },
    },
  });
  if (!parsed.values.kubeconfig || !parsed.values.namespace)
    throw new Error('--kubeconfig and --namespace are required');
  return parsed as typeof parsed & { values: { kubeconfig: string; namespace: string } };
});
const namespace = values.namespace;
const kubeConfig = new PooledKubeConfig();
kubeConfig.loadFromFile(values.kubeconfig);

const kind: ResourceKind = {
  group,
  version,
  plural: 'workloadsecrets',
  kind: 'WorkloadSecret',
  namespaced: true,
};
const secrets = collectionPath({ group: '', version: 'v1', plural: 'secrets' }, namespace);
const data = Object.fromEntries(
  Array.from({ length: 10 }, (_, k) => [`K${k}`, Buffer.from(`floor-value-${k}`).toString('base64')]),
);

const pending: KubeObject[] = [];
let wake: (() => void) | undefined;

function enqueue(obj: KubeObject): void {
  pending.push(obj);
  wake?.();
}

async function next(): Promise<KubeObject> {
  for (;;) {
    const item = pending.shift();
    if (item) return item;
    await new Promise<void>((resolve) => (wake = resolve));
  }
}

async function deliver(obj: KubeObject): Promise<void> {
  const name = obj.metadata?.name ?? '';
  const body = { apiVersion: 'v1', kind: 'Secret', metadata: { name }, type: 'Opaque', data };
  await kubeRequest(kubeConfig, { method: 'POST', path: secrets, body });
  const condition = {
    type: 'Ready',
    status: 'True',
    reason: 'Available',
    message: 'floor benchmark',
    lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    observedGeneration: obj.metadata?.generation ?? 1,
  };
  await kubeRequest(kubeConfig, {
    method: 'PATCH',
    path: `${objectPath(kind, { namespace, name })}/status`,
    body: { status: { conditions: [condition] } },
    contentType: 'application/merge-patch+json',
  });
}

async function worker(): Promise<void> {
  for (;;) {
    const obj = await next();
    try {
      await deliver(obj);
    } catch (error) {
      console.error(`cannot deliver ${obj.metadata?.name ?? ''}: ${String(error)}`);
      setTimeout(() => enqueue(obj), 1_000);
    }
  }
}

const informer = new Informer({
  name: kind.plural,
  kubeConfig,
  resource: kind,
  namespaces: [namespace],
  log: pino({ level: 'silent' }),
});
informer.on('add', (obj) => enqueue(obj));
informer.start();
await informer.waitForSync();
console.log('synced');
for (let i = 0; i < Number(values.workers); i++) void worker();
process.on('SIGTERM', () => process.exit(0));
