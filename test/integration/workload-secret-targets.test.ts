// WorkloadSecret targets against the real control plane and a devserver: a Secret and a
// ConfigMap; creationPolicy Owner (controller reference, removed by the garbage collector with
// the resource) and Orphan (no reference of ours, left in place); an existing object Coffer does
// not own is refused (TargetConflict) and never modified — taken over only with its consent
// annotation and adoptExisting, then never garbage-collected and released on deletion; a conflict
// on one target writes no other; a target edited by hand is restored; an up-to-date target is not
// written again; no target can make the token controller mint a ServiceAccount token, neither
// through the CRD nor from an object stored before the CRD refused its type.
//
// The shared test control plane runs no kube-controller-manager, so this file starts one against
// it with the garbage collector and the token controller (the sandbox test proves the same binary
// and flags).
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectController } from '../../src/controllers/project/index.ts';
import { locateBinaries } from '../../src/sandbox/control-plane/binaries.ts';
import { createServiceAccountKey, issueServingCertificate } from '../../src/sandbox/control-plane/certs.ts';
import { startControllerManager } from '../../src/sandbox/control-plane/controller-manager.ts';
import type { ManagedProcess } from '../../src/sandbox/control-plane/process.ts';
import { apiVersion } from '../../src/api/v1alpha1/index.ts';
import { applyObject, injectedControlPlane, statusCodeOf, waitFor } from '../support/kube.ts';
import {
  HARNESS_CONNECTION,
  startOperatorHarness,
  type CofferObject,
  type OperatorHarness,
} from '../support/operator.ts';

let h: OperatorHarness;
let gc: ManagedProcess | undefined;
let gcDir = '';
let projectId = '';
const connectionRef = { name: HARNESS_CONNECTION };
const marker = `wst${randomBytes(6).toString('hex')}`;
const value = (name: string) => `${marker}-${name}`;

/** kube-controller-manager with the garbage collector and the token controller, against the shared API server. */
async function startGarbageCollector(): Promise<ManagedProcess> {
  const info = injectedControlPlane();
  const binary = locateBinaries().kubeControllerManager;
  if (!binary) throw new Error('kube-controller-manager is not installed (scripts/control-plane/install.sh)');
  gcDir = mkdtempSync(join(tmpdir(), 'coffer-ws-gc-'));
  const ca = { certPem: readFileSync(info.caCertPath, 'utf8'), keyPem: readFileSync(info.caKeyPath, 'utf8') };
  const serving = await issueServingCertificate(ca);
  const file = (name: string, text: string) => {
    const path = join(gcDir, name);
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  };
  return startControllerManager({
    binary,
    dir: gcDir,
    server: info.server,
    ca,
    serving: { certPath: file('serving.crt', serving.certPem), keyPath: file('serving.key', serving.keyPem) },
    rootCaPath: info.caCertPath,
    serviceAccountKeyPath: file('sa.key', createServiceAccountKey().privateKeyPem),
    // With its own ServiceAccount's credentials (RBAC's bootstrap policy lets it delete anything).
    // The token controller fills kubernetes.io/service-account-token Secrets, as in a real cluster.
    controllers: ['garbage-collector-controller', 'serviceaccount-token-controller'],
  });
}

/**
 * Waits until the garbage collector acts (it first syncs a monitor per resource type, which takes
 * a while on a loaded machine): an owned ConfigMap goes once its owner is deleted.
 */
async function garbageCollectorWorking(): Promise<void> {
  const namespace = h.namespace;
  const owner = await h.core.createNamespacedConfigMap({
    namespace,
    body: { metadata: { name: 'gc-owner' } },
  });
  const ownerReferences = [
    { apiVersion: 'v1', kind: 'ConfigMap', name: 'gc-owner', uid: owner.metadata?.uid ?? '' },
  ];
  await h.core.createNamespacedConfigMap({
    namespace,
    body: { metadata: { name: 'gc-owned', ownerReferences } },
  });
  await h.core.deleteNamespacedConfigMap({ namespace, name: 'gc-owner' });
  await waitFor(async () => (await readConfigMap('gc-owned')) === undefined, {
    timeoutMs: 150_000,
    message: 'the garbage collector to start working',
  });
}

beforeAll(async () => {
  h = await startOperatorHarness({ operator: { kinds: [projectController] } });
  projectId = await h.createDevProject('shop', 'Shop');
  await h.service.secrets.batchCreate({
    workspaceId: projectId,
    environment: 'dev',
    secretPath: '/',
    secrets: [
      { secretKey: 'DB_USER', secretValue: 'app' },
      { secretKey: 'DB_PASSWORD', secretValue: value('db') },
    ],
  });
  gc = await startGarbageCollector();
  await garbageCollectorWorking();
}, 180_000);

afterAll(async () => {
  await gc?.stop();
  if (gcDir) rmSync(gcDir, { recursive: true, force: true });
  await h?.stop();
});

const sources = [{ projectRef: { name: 'shop' }, environment: 'dev' }];
const expected = () => ({ DB_USER: 'app', DB_PASSWORD: value('db') });

async function readConfigMap(name: string): Promise<Record<string, string> | undefined> {
  try {
    return (await h.core.readNamespacedConfigMap({ namespace: h.namespace, name })).data ?? {};
  } catch (error) {
    if (statusCodeOf(error) === 404) return undefined;
    throw error;
  }
}

async function secretMeta(name: string) {
  return (await h.core.readNamespacedSecret({ namespace: h.namespace, name })).metadata;
}

async function gone(read: () => Promise<unknown>, what: string): Promise<void> {
  await waitFor(async () => (await read()) === undefined, { timeoutMs: 60_000, message: what });
}

/** The message of the API server's refusal; fails when it accepted. */
async function rejection(write: Promise<unknown>): Promise<string> {
  try {
    await write;
  } catch (error) {
    const body = (error as { body?: unknown }).body;
    const status = (typeof body === 'string' ? JSON.parse(body) : body) as { message?: string } | undefined;
    return status?.message ?? 'refused without a message';
  }
  throw new Error('the API server accepted an object it should refuse');
}

function syncedMessage(obj: CofferObject): string {
  return obj.status?.conditions?.find((c) => c.type === 'Synced')?.message ?? '';
}

/** Sets annotations on a Secret, as its owner would (`kubectl annotate`). */
async function annotateSecret(name: string, annotations: Record<string, string>): Promise<void> {
  const current = (await secretMeta(name))?.annotations ?? {};
  await h.core.patchNamespacedSecret({
    namespace: h.namespace,
    name,
    body: [{ op: 'add', path: '/metadata/annotations', value: { ...current, ...annotations } }],
  });
}

/**
 * Stores a WorkloadSecret straight into etcd, past the API server's validation: what an object
 * stored before its CRD refused a value looks like (the API server does not validate what it reads).
 */
async function storeUnvalidated(name: string, spec: Record<string, unknown>): Promise<void> {
  const etcd = injectedControlPlane().etcdServer;
  if (!etcd) throw new Error('the control plane does not say where etcd listens');
  const object = {
    apiVersion,
    kind: 'WorkloadSecret',
    metadata: {
      name,
      namespace: h.namespace,
      uid: randomUUID(),
      generation: 1,
      creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    },
    spec,
  };
  const base64 = (text: string) => Buffer.from(text).toString('base64');
  const key = `/registry/coffer.dev/workloadsecrets/${h.namespace}/${name}`;
  const response = await fetch(`${etcd}/v3/kv/put`, {
    method: 'POST',
    body: JSON.stringify({ key: base64(key), value: base64(JSON.stringify(object)) }),
  });
  if (!response.ok) throw new Error(`etcd answered ${response.status}`);
}

describe('WorkloadSecret targets', () => {
  it('Owner: Secret and ConfigMap controlled by the resource, garbage-collected with it', async () => {
    const created = await h.create('WorkloadSecret', 'owned', {
      connectionRef,
      sources,
      target: {
        secret: { name: 'owned-secret', labels: { team: 'a' }, annotations: { note: 'kept' } },
        configMap: { name: 'owned-cm' },
      },
    });
    await h.waitForReady('WorkloadSecret', 'owned');
    expect(await h.readSecret('owned-secret')).toEqual(expected());
    expect(await readConfigMap('owned-cm')).toEqual(expected());
    const meta = await secretMeta('owned-secret');
    expect(meta?.ownerReferences).toEqual([
      expect.objectContaining({
        kind: 'WorkloadSecret',
        name: 'owned',
        uid: created.metadata.uid,
        controller: true,
      }),
    ]);
    expect(meta?.labels).toMatchObject({ team: 'a', 'app.kubernetes.io/managed-by': 'coffer' });
    expect(meta?.annotations).toMatchObject({
      note: 'kept',
      'coffer.dev/delivered-by': 'WorkloadSecret/owned',
    });
    await h.delete('WorkloadSecret', 'owned');
    await h.waitForDeletion('WorkloadSecret', 'owned');
    await gone(() => h.readSecret('owned-secret'), 'the garbage collector to delete the owned Secret');
    await gone(() => readConfigMap('owned-cm'), 'the garbage collector to delete the owned ConfigMap');
  });

  it('writes nothing while up to date, and restores a target edited by hand', async () => {
    await h.create('WorkloadSecret', 'steady', { connectionRef, sources, target: { secret: {} } });
    await h.waitForReady('WorkloadSecret', 'steady');
    const version = (await secretMeta('steady'))?.resourceVersion;
    await h.patch('WorkloadSecret', 'steady', { spec: { resyncInterval: '12m' } });
    await h.waitForReady('WorkloadSecret', 'steady');
    expect((await secretMeta('steady'))?.resourceVersion).toBe(version);
    await h.core.patchNamespacedSecret({
      namespace: h.namespace,
      name: 'steady',
      body: [{ op: 'replace', path: '/data/DB_USER', value: 'aGFja2Vk' }],
    });
    await waitFor(async () => (await h.readSecret('steady'))?.DB_USER === 'app', {
      timeoutMs: 20_000,
      message: 'the edited target to be restored',
    });
  });

  it('replaces an immutable Secret (delete and create) when the content changes', async () => {
    await h.create('WorkloadSecret', 'frozen', {
      connectionRef,
      sources: [{ projectRef: { name: 'shop' }, environment: 'dev', include: ['DB_USER'] }],
      target: { secret: { immutable: true } },
    });
    await h.waitForReady('WorkloadSecret', 'frozen');
    const first = await h.core.readNamespacedSecret({ namespace: h.namespace, name: 'frozen' });
    expect(first.immutable).toBe(true);
    await h.patch('WorkloadSecret', 'frozen', {
      spec: { template: { data: { USER: 'user={{ DB_USER }}' } } },
    });
    const replaced = await waitFor(
      async () => {
        const now = await h.core
          .readNamespacedSecret({ namespace: h.namespace, name: 'frozen' })
          .catch(() => undefined);
        return now && now.metadata?.uid !== first.metadata?.uid ? now : undefined;
      },
      { timeoutMs: 20_000, message: 'the immutable Secret to be replaced' },
    );
    expect(replaced.immutable).toBe(true);
    expect(await h.readSecret('frozen')).toEqual({ USER: 'user=app' });
  });

  it('Orphan: no owner reference of ours; the targets stay when the resource is deleted', async () => {
    await h.create('WorkloadSecret', 'orphan', {
      connectionRef,
      sources,
      target: {
        secret: { name: 'orphan-secret' },
        configMap: { name: 'orphan-cm' },
        creationPolicy: 'Orphan',
      },
    });
    await h.waitForReady('WorkloadSecret', 'orphan');
    expect((await secretMeta('orphan-secret'))?.ownerReferences ?? []).toEqual([]);
    // Switching policy follows on the next write: Owner adds the reference, Orphan removes it again.
    await h.patch('WorkloadSecret', 'orphan', { spec: { target: { creationPolicy: 'Owner' } } });
    await waitFor(async () => ((await secretMeta('orphan-secret'))?.ownerReferences ?? []).length === 1, {
      timeoutMs: 20_000,
      message: 'the owner reference after switching to Owner',
    });
    await h.patch('WorkloadSecret', 'orphan', { spec: { target: { creationPolicy: 'Orphan' } } });
    await waitFor(async () => ((await secretMeta('orphan-secret'))?.ownerReferences ?? []).length === 0, {
      timeoutMs: 20_000,
      message: 'no owner reference after switching back to Orphan',
    });
    await h.delete('WorkloadSecret', 'orphan');
    await h.waitForDeletion('WorkloadSecret', 'orphan');
    // The garbage collector runs (the Owner test above): give it time to act on anything it would.
    await h.create('WorkloadSecret', 'gc-probe', { connectionRef, sources, target: { secret: {} } });
    await h.waitForReady('WorkloadSecret', 'gc-probe');
    await h.delete('WorkloadSecret', 'gc-probe');
    await gone(() => h.readSecret('gc-probe'), 'the garbage collector to delete the probe Secret');
    expect(await h.readSecret('orphan-secret')).toEqual(expected());
    expect(await readConfigMap('orphan-cm')).toEqual(expected());
  });

  it('takes over an existing Secret only with its consent, never garbage-collects it, releases it on deletion', async () => {
    await h.createSecret('foreign', { mine: 'hands-off' });
    // adoptExisting is the WorkloadSecret's word only: without the Secret's consent nothing is touched.
    await h.create('WorkloadSecret', 'taker', {
      connectionRef,
      sources,
      target: { secret: { name: 'foreign' }, configMap: { name: 'taker-cm' }, adoptExisting: true },
    });
    const failed = await h.waitForCondition('WorkloadSecret', 'taker', {
      type: 'Synced',
      status: 'False',
      reason: 'TargetConflict',
    });
    expect(syncedMessage(failed)).toContain('annotate it coffer.dev/adopt-by: WorkloadSecret/taker');
    expect(await h.readSecret('foreign')).toEqual({ mine: 'hands-off' });
    expect((await secretMeta('foreign'))?.labels?.['app.kubernetes.io/managed-by']).toBeUndefined();
    expect(await readConfigMap('taker-cm')).toBeUndefined();

    // Whoever may write the Secret consents: it is taken over, with no owner reference.
    await annotateSecret('foreign', { 'coffer.dev/adopt-by': 'WorkloadSecret/taker' });
    await h.waitForReady('WorkloadSecret', 'taker');
    expect(await h.readSecret('foreign')).toEqual(expected());
    const adopted = await secretMeta('foreign');
    expect(adopted?.ownerReferences ?? []).toEqual([]);
    expect(adopted?.annotations).toMatchObject({
      'coffer.dev/adopted': 'true',
      'coffer.dev/delivered-by': 'WorkloadSecret/taker',
    });
    const created = await h.core.readNamespacedConfigMap({ namespace: h.namespace, name: 'taker-cm' });
    expect(created.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'WorkloadSecret', name: 'taker', controller: true }),
    ]);
    expect((await h.get('WorkloadSecret', 'taker'))?.metadata.finalizers).toEqual(['coffer.dev/finalizer']);

    // Deleted with creationPolicy Owner: the garbage collector takes the ConfigMap Coffer created —
    // its signal that it has acted on this WorkloadSecret — and never the adopted Secret, released.
    await h.delete('WorkloadSecret', 'taker');
    await h.waitForDeletion('WorkloadSecret', 'taker');
    await gone(() => readConfigMap('taker-cm'), 'the garbage collector to delete the created ConfigMap');
    expect(await h.readSecret('foreign')).toEqual(expected());
    const released = await secretMeta('foreign');
    expect(released?.labels?.['app.kubernetes.io/managed-by']).toBeUndefined();
    expect(Object.keys(released?.annotations ?? {}).filter((k) => k.startsWith('coffer.dev/'))).toEqual([
      'coffer.dev/adopt-by',
    ]);
  });

  it('writes no target while another is refused: a foreign ConfigMap keeps the Secret unwritten', async () => {
    await h.core.createNamespacedConfigMap({
      namespace: h.namespace,
      body: { metadata: { name: 'held-cm' }, data: { mine: 'hands-off' } },
    });
    await h.create('WorkloadSecret', 'partial', {
      connectionRef,
      sources,
      target: { secret: { name: 'partial-secret' }, configMap: { name: 'held-cm' } },
    });
    const failed = await h.waitForCondition('WorkloadSecret', 'partial', {
      type: 'Synced',
      status: 'False',
      reason: 'TargetConflict',
    });
    expect(syncedMessage(failed)).toContain(`ConfigMap ${h.namespace}/held-cm`);
    expect(await h.readSecret('partial-secret')).toBeUndefined();
    expect(await readConfigMap('held-cm')).toEqual({ mine: 'hands-off' });
  });

  it('never makes the token controller mint a token: the CRD refuses the type, the operator an old object', async () => {
    const namespace = h.namespace;
    const tokenOf = { 'kubernetes.io/service-account.name': 'victim' };
    await h.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'victim' } } });
    // The token controller runs: a token Secret made directly gets a token.
    await h.core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: 'direct-token', annotations: tokenOf },
        type: 'kubernetes.io/service-account-token',
      },
    });
    await waitFor(async () => ((await h.readSecret('direct-token'))?.['token'] ?? '').length > 0, {
      timeoutMs: 60_000,
      message: 'the token controller to fill a token Secret',
    });
    const spec = {
      connectionRef,
      sources,
      target: {
        secret: { name: 'minted', type: 'kubernetes.io/service-account-token', annotations: tokenOf },
      },
    };
    const manifest = { apiVersion, kind: 'WorkloadSecret', metadata: { name: 'minter', namespace }, spec };
    const refusal = await rejection(applyObject(h.kubeConfig, manifest));
    expect(refusal).toContain(
      'spec.target.secret.type: Unsupported value: "kubernetes.io/service-account-token"',
    );

    await storeUnvalidated('minter', spec);
    const failed = await h.waitForCondition('WorkloadSecret', 'minter', {
      type: 'Synced',
      status: 'False',
      reason: 'InvalidSpec',
    });
    expect(syncedMessage(failed)).toContain('spec.target.secret.type');
    expect(await h.readSecret('minted')).toBeUndefined();
  });

  it('never takes over a target another WorkloadSecret delivers into, even with adoptExisting', async () => {
    await h.create('WorkloadSecret', 'first', {
      connectionRef,
      sources,
      target: { secret: { name: 'contested' } },
    });
    await h.waitForReady('WorkloadSecret', 'first');
    await h.create('WorkloadSecret', 'second', {
      connectionRef,
      sources,
      target: { secret: { name: 'contested' }, adoptExisting: true },
    });
    const failed = await h.waitForCondition('WorkloadSecret', 'second', {
      type: 'Synced',
      status: 'False',
      reason: 'TargetConflict',
    });
    expect(failed.status?.conditions?.find((c) => c.type === 'Synced')?.message).toContain(
      'controlled by WorkloadSecret first',
    );
    const events = await h.events('second');
    expect(JSON.stringify(events.map((e) => e.message))).not.toContain(marker);
    expect(JSON.stringify(failed.status)).not.toContain(marker);
  });
});
