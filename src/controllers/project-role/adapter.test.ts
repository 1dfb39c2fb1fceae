// The ProjectRole adapter against a devserver on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContract, type Contract } from '../../../test/support/client-contract.ts';
import { projectRoleSpec, type ProjectRoleSpec } from '../../api/v1alpha1/index.ts';
import { WaitingError } from '../../runtime/errors.ts';
import { bound, context, fakeServices, managed, readyObject, resolving, type FakeWorld } from '../testing.ts';
import { projectRoleAdapter, ROLE_IN_USE } from './adapter.ts';
import type { ProjectRoleRefs } from './references.ts';

let contract: Contract;
let world: FakeWorld;
let refs: ProjectRoleRefs;

beforeAll(async () => {
  contract = await startContract();
  world = { objects: {}, secrets: {}, now: new Date() };
  const project = await contract.project();
  refs = { projectId: project.id, waitRequeueMs: 5_000 };
});
afterAll(async () => contract.close());

const role = (slug: string, extra: Record<string, unknown> = {}) =>
  managed<ProjectRoleSpec>(
    'ProjectRole',
    slug,
    projectRoleSpec.parse({
      connectionRef: { name: 'c' },
      projectRef: { name: 'shop' },
      slug,
      name: `Role ${slug}`,
      permissions: [{ subject: 'secrets', action: 'read', conditions: { environment: 'dev' } }],
      ...extra,
    }),
  );

async function connect(obj: ReturnType<typeof role>) {
  return projectRoleAdapter(fakeServices(contract.admin, world)).connect(obj, context(refs));
}

describe('ProjectRole adapter', () => {
  it('creates a role, then sees it up to date (action spelled as a string in the spec)', async () => {
    const obj = role('reader-one', { description: 'reads dev' });
    const client = await connect(obj);
    expect(await client.observe(obj, context(refs))).toEqual({ exists: false });
    const created = await client.create(obj, context(refs));
    expect(created.status).toEqual({ slug: 'reader-one', projectId: refs.projectId });
    const seen = await client.observe(obj, context(refs, created.externalId));
    expect(seen).toMatchObject({ exists: true, upToDate: true, externalId: created.externalId });
    const stored = await contract.admin.roles.getBySlug(refs.projectId, 'reader-one');
    expect(stored).toMatchObject({ name: 'Role reader-one', description: 'reads dev' });
  });

  it('adopts a role found by slug when no id is recorded', async () => {
    const existing = await contract.admin.roles.create(refs.projectId, {
      slug: 'adopt-me',
      name: 'Role adopt-me',
      permissions: [{ subject: 'secrets', action: ['read'], conditions: { environment: { $eq: 'dev' } } }],
    });
    const obj = role('adopt-me');
    const client = await connect(obj);
    expect(await client.observe(obj, context(refs))).toMatchObject({
      exists: true,
      upToDate: true,
      externalId: existing.id,
    });
    expect(await client.findByNaturalKey(obj, context(refs))).toEqual([
      { id: existing.id, createdAt: expect.any(String) as string },
    ]);
  });

  it('reports drift made in the service and corrects it with one update', async () => {
    const obj = role('drifter', { description: 'original' });
    const client = await connect(obj);
    const { externalId } = await client.create(obj, context(refs));
    await contract.admin.roles.update(refs.projectId, externalId, {
      name: 'Changed',
      description: 'changed',
      permissions: [{ subject: 'secrets', action: ['read', 'edit'] }],
    });
    const drifted = await client.observe(obj, context(refs, externalId));
    expect(drifted).toMatchObject({ exists: true, upToDate: false, diff: 'name, description, permissions' });
    await client.update(obj, bound(refs, externalId));
    expect(await client.observe(obj, context(refs, externalId))).toMatchObject({ upToDate: true });
  });

  it('finds a role renamed behind its back by id and renames it back', async () => {
    const obj = role('renamed');
    const client = await connect(obj);
    const created = await client.create(obj, context(refs));
    const withStatus = { ...obj, status: { ...created.status } };
    await contract.admin.roles.update(refs.projectId, created.externalId, { slug: 'other-slug' });
    const seen = await client.observe(withStatus, context(refs, created.externalId));
    expect(seen).toMatchObject({
      exists: true,
      upToDate: false,
      diff: 'slug',
      externalId: created.externalId,
    });
    await client.update(withStatus, bound(refs, created.externalId));
    const back = await contract.admin.roles.getBySlug(refs.projectId, 'renamed');
    expect(back.id).toBe(created.externalId);
  });

  it('reports a role deleted in the service as missing', async () => {
    const obj = role('vanishing');
    const client = await connect(obj);
    const { externalId } = await client.create(obj, context(refs));
    await contract.admin.roles.delete(refs.projectId, externalId);
    expect(await client.observe(obj, context(refs, externalId))).toEqual({ exists: false });
  });

  it('waits with RoleInUse while a membership uses the role, deletes it afterwards', async () => {
    const obj = role('in-use');
    const client = await connect(obj);
    const { externalId } = await client.create(obj, context(refs));
    const identity = await contract.identity();
    await contract.admin.memberships.create(refs.projectId, identity.id, {
      roles: [{ role: 'in-use', isTemporary: false }],
    });
    const refused = await client.delete(obj, bound(refs, externalId)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WaitingError);
    expect(refused).toMatchObject({ reason: ROLE_IN_USE, requeueAfterMs: 5_000 });
    expect((refused as Error).message).toMatch(
      /cannot delete role in-use: service answered 400: Role is assigned/,
    );
    await contract.admin.memberships.delete(refs.projectId, identity.id);
    await client.delete(obj, bound(refs, externalId));
    expect(await client.observe(obj, context(refs, externalId))).toEqual({ exists: false });
  });

  it('rejects a duplicate slug the way the service does (404 quirk)', async () => {
    const obj = role('twice');
    const client = await connect(obj);
    await client.create(obj, context(refs));
    await expect(client.create(obj, context(refs))).rejects.toMatchObject({ status: 404 });
  });
});

describe('ProjectRole references', () => {
  const adapter = () => projectRoleAdapter(fakeServices(contract.admin, world));

  it('waits while the Project is not Ready', async () => {
    world.objects.Project = [readyObject('Project', 'shop', 'p-1', { ready: false })];
    await expect(adapter().resolveReferences?.(role('x'), resolving())).rejects.toMatchObject({
      reason: 'ReferenceNotReady',
    });
  });

  it('resolves the project id and passes the waiting requeue on', async () => {
    world.objects.Project = [readyObject('Project', 'shop', 'p-1')];
    expect(await adapter().resolveReferences?.(role('x'), resolving())).toEqual({
      projectId: 'p-1',
      waitRequeueMs: 10_000,
    });
  });

  it('uses the project id from status while deleting after the Project is gone', async () => {
    world.objects.Project = [];
    const obj = { ...role('x'), status: { projectId: 'p-9' } };
    expect(await adapter().resolveReferences?.(obj, resolving(true))).toMatchObject({ projectId: 'p-9' });
  });
});
