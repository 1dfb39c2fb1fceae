/**
 * The least a conventional controller does per resource, run by `npm run bench:floor`: for every
 * Project, Identity and SecretBatch of one namespace, one patch adding a finalizer and one status
 * patch writing `Ready=True` for the current generation — no service calls, no reads, no events.
 * What kube-apiserver spends on these writes is a floor for any operator with finalizers and
 * status on the same machine.
 *
 * `node scripts/bench/floor-controller.ts --kubeconfig=PATH --namespace=NS [--workers=16]`;
 * prints `synced` once its informers have listed, then works until SIGTERM.
 */
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { group, version } from '../../src/api/v1alpha1/index.ts';
import { objectPath, type ResourceKind } from '../../src/managed/kube-objects.ts';
import { PooledKubeConfig } from '../../src/runtime/kube-config.ts';
import { kubeRequest } from '../../src/runtime/kube-request.ts';
import { Informer, type KubeObject } from '../../src/runtime/informer.ts';
import { parseCommandLine } from '../command-line.ts';

const usage = `usage: node scripts/bench/floor-controller.ts --kubeconfig=PATH --namespace=NS [--workers=16]

The minimal controller of npm run bench:floor: prints "synced" once its informers have listed,
then works until SIGTERM.`;

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

const kinds: ResourceKind[] = [
  { group, version, plural: 'projects', kind: 'Project', namespaced: true },
  { group, version, plural: 'identities', kind: 'Identity', namespaced: true },
  { group, version, plural: 'secretbatches', kind: 'SecretBatch', namespaced: true },
];

/** Objects waiting for their two writes, in arrival order. */
const pending: { kind: ResourceKind; obj: KubeObject }[] = [];
let wake: (() => void) | undefined;

function enqueue(kind: ResourceKind, obj: KubeObject): void {
  pending.push({ kind, obj });
  wake?.();
}

async function next(): Promise<{ kind: ResourceKind; obj: KubeObject }> {
  for (;;) {
    const item = pending.shift();
    if (item) return item;
    await new Promise<void>((resolve) => (wake = resolve));
  }
}

async function settle(kind: ResourceKind, obj: KubeObject): Promise<void> {
  const ref = { namespace, name: obj.metadata?.name ?? '' };
  const path = objectPath(kind, ref);
  const contentType = 'application/merge-patch+json';
  const finalizers = { metadata: { finalizers: ['coffer.dev/finalizer'] } };
  await kubeRequest(kubeConfig, { method: 'PATCH', path, body: finalizers, contentType });
  const condition = {
    type: 'Ready',
    status: 'True',
    reason: 'Available',
    message: 'floor benchmark',
    lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    observedGeneration: obj.metadata?.generation ?? 1,
  };
  const status = { status: { conditions: [condition] } };
  await kubeRequest(kubeConfig, { method: 'PATCH', path: `${path}/status`, body: status, contentType });
}

async function worker(): Promise<void> {
  for (;;) {
    const { kind, obj } = await next();
    try {
      await settle(kind, obj);
    } catch (error) {
      console.error(`cannot settle ${kind.kind} ${obj.metadata?.name ?? ''}: ${String(error)}`);
      setTimeout(() => enqueue(kind, obj), 1_000);
    }
  }
}

const log = pino({ level: 'silent' });
const informers = kinds.map((kind) => {
  const informer = new Informer({
    name: kind.plural,
    kubeConfig,
    resource: kind,
    namespaces: [namespace],
    log,
  });
  informer.on('add', (obj) => enqueue(kind, obj));
  informer.start();
  return informer;
});
await Promise.all(informers.map((informer) => informer.waitForSync()));
console.log('synced');
for (let i = 0; i < Number(values.workers); i++) void worker();
process.on('SIGTERM', () => process.exit(0));
