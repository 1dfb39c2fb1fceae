// A connection deleted together with the resources that use it (`kubectl delete -f dir/`) waits
// for them: it keeps the finalizer coffer.dev/dependents and says in status whom it waits for
// (Ready=False DeletionWaiting, status.waitingFor), keeps serving them its last client (even once
// its token Secret is gone), and goes once they have cleaned up in the service:
// - a Project whose deletion the service refuses (deletion protection) until it is lifted;
// - a ProjectRole the service refuses to delete while a membership uses it;
// - a ClusterConnection whose admission of the resource's namespace was withdrawn before the
//   resource was deleted.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

const suffix = randomBytes(3).toString('hex');
let h: OperatorHarness;
let tenant: string;

beforeAll(async () => {
  h = await startOperatorHarness({ logLevel: 'info', extraNamespaces: [{}] });
  tenant = h.namespaces[1] ?? '';
});

afterAll(async () => {
  await h?.stop();
});

/** A Ready Connection `name` with its own token Secret `<name>-token`. */
async function connection(name: string): Promise<void> {
  await h.createSecret(`${name}-token`, { token: h.admin.token });
  await h.create('Connection', name, {
    url: h.url,
    auth: { token: { secretRef: { name: `${name}-token`, key: 'token' } } },
  });
  await h.waitForReady('Connection', name);
}

/** Creates a Project (deletionPolicy Delete), waits until Ready, returns its service id. */
async function readyProject(name: string, extra: Record<string, unknown>, namespace?: string) {
  const spec = { name, slug: `${name}-${suffix}`, deletionPolicy: 'Delete', ...extra };
  await h.create('Project', name, spec, namespace ? { namespace } : {});
  const obj = await h.waitForReady('Project', name, namespace ? { namespace } : {});
  return obj.status?.id ?? '';
}

async function serviceHasProject(id: string): Promise<boolean> {
  return h.service.projects.get(id).then(
    () => true,
    (error: unknown) => {
      if ((error as { status?: number }).status === 404) return false;
      throw error;
    },
  );
}

/** Waits until the connection says it waits for exactly `dependents`; returns it. */
async function waitsFor(kind: 'Connection' | 'ClusterConnection', name: string, dependents: string[]) {
  const held = await h.waitForCondition(kind, name, {
    type: 'Ready',
    status: 'False',
    reason: 'DeletionWaiting',
  });
  expect(held.metadata.deletionTimestamp).toBeTruthy();
  expect(held.metadata.finalizers).toContain('coffer.dev/dependents');
  expect(held.status?.['waitingFor']).toEqual(dependents);
  const ready = held.status?.conditions?.find((c) => c.type === 'Ready');
  expect(ready?.message).toContain(`waiting for 1 resource that may still need it`);
  return held;
}

describe('a connection deleted with its dependents', () => {
  it('waits for a protected Project until it has deleted its project, then goes', async () => {
    await connection('guard-conn');
    const id = await readyProject('guarded', {
      connectionRef: { name: 'guard-conn' },
      hasDeleteProtection: true,
    });
    await h.delete('Project', 'guarded');
    await h.delete('Connection', 'guard-conn');
    await waitsFor('Connection', 'guard-conn', [`Project/${h.namespace}/guarded`]);
    // The credentials go too: the Project's deletion still has the Connection's last client.
    await h.core.deleteNamespacedSecret({ namespace: h.namespace, name: 'guard-conn-token' });
    const blocked = await h.waitForCondition('Project', 'guarded', {
      type: 'Synced',
      status: 'False',
      reason: 'DeletionBlocked',
    });
    expect(blocked.metadata.finalizers).toContain('coffer.dev/finalizer');
    expect(await serviceHasProject(id)).toBe(true);

    await h.service.projects.update(id, { hasDeleteProtection: false });
    await h.requestReconcile('Project', 'guarded');
    await h.waitForDeletion('Project', 'guarded');
    expect(await serviceHasProject(id)).toBe(false);
    await h.waitForDeletion('Connection', 'guard-conn');
  });

  it('waits for a ProjectRole the service keeps while a membership uses it, then goes', async () => {
    await connection('role-conn');
    const projectId = await readyProject('shop', { connectionRef: { name: HARNESS_CONNECTION } });
    await h.create('ProjectRole', 'reader', {
      connectionRef: { name: 'role-conn' },
      projectRef: { name: 'shop' },
      slug: 'reader',
      name: 'Reader',
      deletionPolicy: 'Delete',
      permissions: [{ subject: 'secrets', action: 'read' }],
    });
    await h.waitForReady('ProjectRole', 'reader');
    const bot = await h.service.identities.create({
      name: `bot-${suffix}`,
      organizationId: h.admin.organizationId,
    });
    await h.service.memberships.create(projectId, bot.id, {
      roles: [{ role: 'reader', isTemporary: false }],
    });

    await h.delete('ProjectRole', 'reader');
    await h.delete('Connection', 'role-conn');
    await waitsFor('Connection', 'role-conn', [`ProjectRole/${h.namespace}/reader`]);
    await h.waitForCondition(
      'ProjectRole',
      'reader',
      { type: 'Synced', status: 'False', reason: 'RoleInUse' },
      { current: false },
    );

    await h.service.memberships.delete(projectId, bot.id);
    await h.waitForDeletion('ProjectRole', 'reader');
    await expect(h.service.roles.getBySlug(projectId, 'reader')).rejects.toMatchObject({ status: 404 });
    await h.waitForDeletion('Connection', 'role-conn');
  });

  it('lets a resource whose namespace lost ClusterConnection admission delete its object', async () => {
    const shared = `shared-${suffix}`;
    await h.createSecret('shared-token', { token: h.admin.token });
    await h.create('ClusterConnection', shared, {
      url: h.url,
      auth: { token: { secretRef: { name: 'shared-token', namespace: h.namespace, key: 'token' } } },
      allowedNamespaces: { names: [tenant] },
    });
    await h.waitForReady('ClusterConnection', shared);
    const connectionRef = { kind: 'ClusterConnection', name: shared };
    const id = await readyProject('tenant-app', { connectionRef }, tenant);

    await h.patch('ClusterConnection', shared, { spec: { allowedNamespaces: { names: [h.namespace] } } });
    const at = { namespace: tenant };
    await h.waitForCondition(
      'Project',
      'tenant-app',
      { type: 'Synced', status: 'False', reason: 'NamespaceNotAllowed' },
      at,
    );

    await h.delete('ClusterConnection', shared);
    await waitsFor('ClusterConnection', shared, [`Project/${tenant}/tenant-app`]);
    await h.delete('Project', 'tenant-app', at);
    await h.waitForDeletion('Project', 'tenant-app', at);
    expect(await serviceHasProject(id)).toBe(false);
    await h.waitForDeletion('ClusterConnection', shared);
  });
});
