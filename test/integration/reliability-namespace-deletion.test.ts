// Deletion safety, namespace variant: a control plane of its own with kube-controller-manager (the
// namespace controller empties a deleted namespace and finishes it), the operator in-process and a
// devserver. Each namespace holds a Connection, its token Secret, a Project, an Identity and a
// SecretBatch; the namespace controller deletes them all at once, the Connection and its Secret
// included — the resources must still be able to finish their own deletion.
// - deletionPolicy Delete: the namespace goes and so do the service objects;
// - deletionPolicy Orphan / managementPolicy ObserveOnly: the namespace goes, the objects stay;
// - Delete with the service unreachable: the namespace stays Terminating, each resource says
//   Synced=False ServiceUnreachable; `coffer.dev/abandon: "true"` lets it finish, objects kept;
// - Delete with the Connection's Secret certainly gone first (a short outage holds the resources
//   back; the Connection itself waits for them, DeletionWaiting): they keep calling the service
//   with the Connection's last client, and the namespace finishes with the service objects
//   deleted once the service is back.
import { randomBytes } from 'node:crypto';
import { CoreV1Api, type V1Namespace } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient, staticToken } from '../../src/client/index.ts';
import { startDevServer, type DevServer } from '../../src/devserver/server.ts';
import { startOperator, type RunningOperator } from '../../src/operator/start.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { ANNOTATION_ABANDON, ANNOTATION_EXTERNAL_ID } from '../../src/runtime/object-meta.ts';
import { startControlPlane, type ControlPlane } from '../support/control-plane.ts';
import { statusCodeOf, waitFor } from '../support/kube.ts';
import { bootstrapDevserver, cofferCrds, OperatorHarness } from '../support/operator.ts';

const suffix = randomBytes(3).toString('hex');
const namespaceTimeoutMs = 180_000;
/** The resources `populate` creates in a namespace, by kind. */
const names = { Project: 'app', Identity: 'bot', SecretBatch: 'config' } as const;
const kinds = Object.keys(names) as (keyof typeof names)[];
/** Each SecretBatch's keys (sorted); serviceState with all still in the service, and all gone. */
const batchKeys = ['FEATURE_FLAG', 'LOG_LEVEL'];
const kept = { project: true, identity: true, keys: batchKeys };
const gone = { project: false, identity: false, keys: [] };

let plane: ControlPlane;
let core: CoreV1Api;
let devserver: DevServer | undefined;
let operator: RunningOperator | undefined;
let h: OperatorHarness;
const logLines: string[] = [];

/** The service objects of one namespace's resources. */
interface ServiceIds {
  readonly projectId: string;
  readonly identityId: string;
}

/** A namespace with the token Secret and a Ready Connection `coffer`. */
async function namespaceWithConnection(namespace: string): Promise<void> {
  await h.createSecret('token', { token: h.admin.token }, { namespace });
  const auth = { token: { secretRef: { name: 'token', key: 'token' } } };
  await h.create('Connection', 'coffer', { url: h.url, auth }, { namespace });
  await h.waitForReady('Connection', 'coffer', { namespace });
}

/** Project `app`, Identity `bot` and SecretBatch `config` (into app/dev:/), all Ready. */
async function populate(namespace: string, deletionPolicy: 'Delete' | 'Orphan'): Promise<ServiceIds> {
  const common = { connectionRef: { name: 'coffer' }, deletionPolicy };
  const slug = `${namespace}-${suffix}`;
  const at = { namespace };
  const environments = [{ name: 'Dev', slug: 'dev' }];
  await h.create('Project', 'app', { ...common, name: slug, slug, environments }, at);
  await h.create('Identity', 'bot', { ...common, name: `bot-${slug}` }, at);
  const secrets = batchKeys.map((key) => ({ key, value: `value-of-${key}` }));
  const batch = { ...common, projectRef: { name: 'app' }, environment: 'dev', secretPath: '/', secrets };
  await h.create('SecretBatch', 'config', batch, at);
  const [project, identity] = await Promise.all(kinds.map((kind) => h.waitForReady(kind, names[kind], at)));
  return { projectId: project?.status?.id ?? '', identityId: identity?.status?.id ?? '' };
}

/** True when the service answers for the object, false on 404. */
async function exists(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return true;
  } catch (error) {
    if ((error as { status?: number }).status === 404) return false;
    throw error;
  }
}

/** Which of the namespace's service objects exist now (batch keys: those left in app/dev:/). */
async function serviceState(ids: ServiceIds) {
  const project = await exists(() => h.service.projects.get(ids.projectId));
  const identity = await exists(() => h.service.identities.get(ids.identityId));
  const where = { workspaceId: ids.projectId, environment: 'dev', secretPath: '/' };
  const keys = project
    ? (await h.service.secrets.list(where)).secrets
        .map((s) => s.secretKey)
        .filter((k) => batchKeys.includes(k))
    : [];
  return { project, identity, keys: keys.sort() };
}

/** The resource when it is being deleted and says its deletion cannot reach the service. */
async function blockedDeletion(kind: keyof typeof names, namespace: string) {
  const obj = await h.get(kind, names[kind], { namespace });
  const synced = obj?.status?.conditions?.find((c) => c.type === 'Synced');
  const deleting = Boolean(obj?.metadata.deletionTimestamp);
  const unreachable = synced?.status === 'False' && synced.reason === 'ServiceUnreachable';
  return deleting && unreachable && synced.message.startsWith('cannot delete') ? obj : undefined;
}

async function readNamespace(name: string): Promise<V1Namespace | undefined> {
  try {
    return await core.readNamespace({ name });
  } catch (error) {
    if (statusCodeOf(error) === 404) return undefined;
    throw error;
  }
}

/** Deletes the namespace and resolves once it is gone (polled, never read once). */
async function deleteNamespaceAndWait(name: string): Promise<void> {
  await core.deleteNamespace({ name });
  await waitUntilGone(name);
}

/** Resolves once the namespace is gone (polled). */
async function waitUntilGone(name: string): Promise<void> {
  await waitFor(async () => (await readNamespace(name)) === undefined, {
    timeoutMs: namespaceTimeoutMs,
    intervalMs: 500,
    message: `namespace ${name} to be gone`,
  });
}

beforeAll(async () => {
  plane = await startControlPlane({ controllerManager: true });
  const kc = plane.kubeConfig();
  core = kc.makeApiClient(CoreV1Api);
  await plane.installCRDs(cofferCrds());
  const namespaces = await Promise.all([1, 2, 3, 4, 5].map(() => plane.createNamespace()));
  devserver = await startDevServer({ port: 0 });
  const admin = await bootstrapDevserver(devserver.url);
  const service = createServiceClient({ baseUrl: devserver.url, auth: staticToken(admin.token) });
  operator = await startOperator({
    kubeConfig: kc,
    log: createLogger({
      level: 'info',
      name: 'coffer',
      destination: { write: (l: string) => logLines.push(l) },
    }),
    namespaces,
    waitRequeueMs: 1_000,
    clientCloseDelayMs: 1_000,
  });
  h = new OperatorHarness({ kubeConfig: kc, namespaces, devserver, service, admin, operator, logLines });
  await operator.ready;
  await Promise.all(namespaces.map((namespace) => namespaceWithConnection(namespace)));
}, 300_000);

afterAll(async () => {
  devserver?.faults.update({ dropRatio: 0, errorRatio: 0 });
  await operator?.stop();
  await h?.service.close();
  await devserver?.close();
  await plane?.stop();
});

describe('deleting a namespace with Coffer resources', () => {
  // The first three cases use a namespace each, inject no fault and mostly wait for the namespace
  // controller: they run at the same time. The fault cases below change the shared devserver and
  // run alone, one after another, once these are done.
  it.concurrent(
    'finishes with deletionPolicy Delete and deletes the service objects',
    async () => {
      const namespace = h.namespaces[0] ?? '';
      const ids = await populate(namespace, 'Delete');
      expect(await serviceState(ids)).toEqual(kept);
      await deleteNamespaceAndWait(namespace);
      expect(await serviceState(ids)).toEqual(gone);
    },
    300_000,
  );

  it.concurrent(
    'finishes with deletionPolicy Orphan and leaves the service objects',
    async () => {
      const namespace = h.namespaces[1] ?? '';
      const ids = await populate(namespace, 'Orphan');
      await deleteNamespaceAndWait(namespace);
      expect(await serviceState(ids)).toEqual(kept);
    },
    300_000,
  );

  it.concurrent(
    'finishes with managementPolicy ObserveOnly and leaves the adopted objects',
    async () => {
      const namespace = h.namespaces[2] ?? '';
      const slug = `observed-${suffix}`;
      const project = await h.service.projects.create({ projectName: 'Observed', slug });
      const identity = await h.service.identities.create({
        name: `observed-${suffix}`,
        organizationId: h.admin.organizationId,
      });
      const observe = {
        connectionRef: { name: 'coffer' },
        managementPolicy: 'ObserveOnly',
        deletionPolicy: 'Delete',
      };
      const adopt = (id: string) => ({ namespace, annotations: { [ANNOTATION_EXTERNAL_ID]: id } });
      const environments = [{ name: 'Development', slug: 'dev' }];
      await h.create(
        'Project',
        'observed',
        { ...observe, name: 'Observed', slug, environments },
        adopt(project.id),
      );
      await h.create('Identity', 'observed', { ...observe, name: identity.name }, adopt(identity.id));
      await h.waitForReady('Project', 'observed', { namespace });
      await h.waitForReady('Identity', 'observed', { namespace });
      await deleteNamespaceAndWait(namespace);
      expect(await exists(() => h.service.projects.get(project.id))).toBe(true);
      expect(await exists(() => h.service.identities.get(identity.id))).toBe(true);
    },
    300_000,
  );

  it('stays Terminating while the service is unreachable, explains why, and finishes on abandon', async () => {
    const namespace = h.namespaces[3] ?? '';
    const ids = await populate(namespace, 'Delete');
    h.devserver.faults.update({ dropRatio: 1 });
    try {
      await core.deleteNamespace({ name: namespace });
      // Polled until a deletion attempt is reported: a poll before the namespace deletion may
      // already have said ServiceUnreachable (for "cannot observe").
      for (const kind of kinds) {
        const blocked = await waitFor(() => blockedDeletion(kind, namespace), {
          timeoutMs: namespaceTimeoutMs,
          intervalMs: 250,
          message: `${kind} to report its deletion as ServiceUnreachable`,
        });
        expect(blocked.metadata.finalizers, kind).toContain('coffer.dev/finalizer');
      }
      // The namespace controller reports the finalizers it is waiting for.
      const terminating = await waitFor(
        async () => {
          const ns = await readNamespace(namespace);
          const remaining = ns?.status?.conditions?.find((c) => c.type === 'NamespaceFinalizersRemaining');
          return remaining?.status === 'True' && remaining.message?.includes('coffer.dev/finalizer')
            ? ns
            : undefined;
        },
        {
          timeoutMs: namespaceTimeoutMs,
          intervalMs: 500,
          message: `namespace ${namespace} to report finalizers`,
        },
      );
      expect(terminating.status?.phase).toBe('Terminating');
      const abandon = { metadata: { annotations: { [ANNOTATION_ABANDON]: 'true' } } };
      for (const kind of kinds) await h.patch(kind, names[kind], abandon, { namespace });
      await waitUntilGone(namespace);
    } finally {
      h.devserver.faults.update({ dropRatio: 0 });
    }
    expect(await serviceState(ids)).toEqual(kept);
  }, 300_000);

  // Runs last: no other namespace's resource calls the service meanwhile, so every faulted call
  // counted below comes from this namespace's resources.
  it('finishes with Delete when the Connection is deleted and its Secret gone before the resources', async () => {
    const namespace = h.namespaces[4] ?? '';
    const ids = await populate(namespace, 'Delete');
    h.devserver.faults.update({ errorRatio: 1 });
    try {
      await core.deleteNamespace({ name: namespace });
      // The Connection waits for its resources (coffer.dev/dependents); its Secret has no finalizer.
      const waiting = (obj: { status?: { conditions?: { type: string; reason?: string }[] } } | undefined) =>
        obj?.status?.conditions?.some((c) => c.type === 'Ready' && c.reason === 'DeletionWaiting') ?? false;
      await waitFor(
        async () =>
          waiting(await h.get('Connection', 'coffer', { namespace })) &&
          (await h.readSecret('token', { namespace })) === undefined,
        {
          timeoutMs: namespaceTimeoutMs,
          intervalMs: 250,
          message: 'the Connection to wait for its resources and its Secret to be gone',
        },
      );
      // The resources keep trying to delete their service objects with the Connection's last
      // client after its Secret is gone (ReferenceNotReady would stop them calling at all).
      const errors = () => h.devserver.stats.snapshot().faults.errors;
      const seen = errors();
      await waitFor(() => errors() >= seen + 2 * kinds.length, {
        timeoutMs: namespaceTimeoutMs,
        intervalMs: 250,
        message: 'deletion attempts after the Connection is gone',
      });
    } finally {
      h.devserver.faults.update({ errorRatio: 0 });
    }
    await waitUntilGone(namespace);
    expect(await serviceState(ids)).toEqual(gone);
  }, 300_000);

  it('never logs the connection token', () => {
    expect(logLines.join('')).not.toContain(h.admin.token);
  });
});
