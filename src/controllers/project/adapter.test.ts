// The Project adapter against a devserver on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContract, type Contract } from '../../../test/support/client-contract.ts';
import { projectSpec, type ProjectSpec } from '../../api/v1alpha1/index.ts';
import { isDeletionBlocked, serviceErrorFor, type ServiceClient } from '../../client/index.ts';
import { WaitingError } from '../../runtime/errors.ts';
import { projectAdapter, type ProjectRefs } from './adapter.ts';
import { findProjectBySlug } from './lookup.ts';
import { bound, context, fakeServices, managed, readyObject, resolving, type FakeWorld } from './testing.ts';

let contract: Contract;
let world: FakeWorld;

beforeAll(async () => {
  contract = await startContract();
  world = { objects: {}, secrets: {}, now: new Date('2030-01-01T00:00:00Z') };
});
afterAll(async () => contract.close());

const project = (name: string, extra: Record<string, unknown> = {}) =>
  managed<ProjectSpec>(
    'Project',
    name,
    projectSpec.parse({ connectionRef: { name: 'c' }, name: 'Shop', slug: name, ...extra }),
  );

async function connect(obj = project('any-project')) {
  const adapter = projectAdapter(fakeServices(contract.admin, world));
  return adapter.connect(obj, context<ProjectRefs>({}));
}

describe('Project adapter', () => {
  it('creates a project with its listed environments, then sees it up to date', async () => {
    const obj = project('shop-one', {
      environments: [
        { name: 'Development', slug: 'dev' },
        { name: 'Production', slug: 'prod', position: 1 },
      ],
    });
    const client = await connect(obj);
    expect(await client.observe(obj, context<ProjectRefs>({}, 'missing-id'))).toEqual({ exists: false });
    const created = await client.create(obj, context<ProjectRefs>({}));
    expect(created.status?.environments?.map((e) => [e.slug, e.position])).toEqual([
      ['prod', 1],
      ['dev', 2],
    ]);
    const seen = await client.observe(obj, context<ProjectRefs>({}, created.externalId));
    expect(seen).toMatchObject({ exists: true, upToDate: true, externalId: created.externalId });
    expect(seen.exists && seen.status?.organizationId).toBe(contract.orgId);
  });

  it('corrects drift made in the service', async () => {
    const obj = project('shop-two', { environments: [{ name: 'Development', slug: 'dev' }] });
    const client = await connect(obj);
    const { externalId } = await client.create(obj, context<ProjectRefs>({}));
    const env = (await contract.admin.projects.get(externalId)).environments?.[0];
    await contract.admin.projects.update(externalId, { name: 'Renamed' });
    await contract.admin.environments.update(externalId, env?.id ?? '', { name: 'Dev' });
    const drifted = await client.observe(obj, context<ProjectRefs>({}, externalId));
    expect(drifted).toMatchObject({ exists: true, upToDate: false, diff: 'name, environment dev name' });
    await client.update(obj, bound<ProjectRefs>({}, externalId));
    expect(await client.observe(obj, context<ProjectRefs>({}, externalId))).toMatchObject({ upToDate: true });
    expect((await contract.admin.projects.get(externalId)).name).toBe('Shop');
  });

  it('creates with the service default environments and reports deletion protection on delete', async () => {
    const obj = project('shop-three', { hasDeleteProtection: true, createDefaultEnvironments: true });
    const client = await connect(obj);
    const { externalId, status } = await client.create(obj, context<ProjectRefs>({}));
    expect(status?.environments?.length).toBeGreaterThan(0);
    const error: unknown = await client
      .delete(obj, bound<ProjectRefs>({}, externalId))
      .catch((e: unknown) => e);
    expect(isDeletionBlocked(error)).toBe(true);
    const open = project('shop-three', { hasDeleteProtection: false });
    await client.update(open, bound<ProjectRefs>({}, externalId));
    await client.delete(open, bound<ProjectRefs>({}, externalId));
    expect(await client.observe(open, context<ProjectRefs>({}, externalId))).toEqual({ exists: false });
  });

  it('asks for a short requeue while listed environments are missing from status', async () => {
    const obj = project('shop-four', { environments: [{ name: 'Development', slug: 'dev' }] });
    const client = await connect(obj);
    expect(client.requeueAfterMs?.(obj, { environments: [] })).toBe(5_000);
    expect(
      client.requeueAfterMs?.(obj, { environments: [{ slug: 'dev', name: 'Development' }] }),
    ).toBeUndefined();
  });
});

describe('Project references', () => {
  const adapter = () => projectAdapter(fakeServices(contract.admin, world));

  it('uses spec.template directly and waits for a ProjectTemplate that is not Ready', async () => {
    const named = project('tpl-one', { template: 'base' });
    await expect(adapter().resolveReferences?.(named, resolving())).resolves.toEqual({ template: 'base' });
    const referenced = project('tpl-two', { templateRef: { name: 'base-tpl' } });
    await expect(adapter().resolveReferences?.(referenced, resolving())).rejects.toBeInstanceOf(WaitingError);
    world.objects.ProjectTemplate = [
      readyObject('ProjectTemplate', 'base-tpl', 't1', { spec: { name: 'base' }, clusterScoped: true }),
    ];
    await expect(adapter().resolveReferences?.(referenced, resolving())).resolves.toEqual({
      template: 'base',
    });
  });

  it('does not wait for the template once the project exists', async () => {
    const obj = project('tpl-three', { templateRef: { name: 'gone' } });
    obj.metadata.annotations = { 'coffer.dev/external-id': 'p1' };
    await expect(adapter().resolveReferences?.(obj, resolving())).resolves.toEqual({});
  });
});

describe('findProjectBySlug', () => {
  const signal = new AbortController().signal;
  const fake = (getBySlug: (slug: string) => Promise<unknown>) =>
    ({ projects: { getBySlug } }) as unknown as ServiceClient;

  it('finds a project of the devserver by its slug, and nothing for an unknown slug', async () => {
    const created = await contract.admin.projects.create({ projectName: 'By slug', slug: 'by-slug-lookup' });
    await expect(findProjectBySlug(contract.admin, 'by-slug-lookup', signal)).resolves.toMatchObject({
      id: created.id,
    });
    await expect(findProjectBySlug(contract.admin, 'no-such-slug', signal)).resolves.toBeUndefined();
  });

  it('returns the project, or undefined on 404', async () => {
    const found = fake((slug) => Promise.resolve({ id: 'p9', slug }));
    await expect(findProjectBySlug(found, 'shop', signal)).resolves.toMatchObject({ id: 'p9' });
    const missing = fake(() =>
      Promise.reject(serviceErrorFor({ operation: 'projects.getBySlug', status: 404, message: 'not found' })),
    );
    await expect(findProjectBySlug(missing, 'shop', signal)).resolves.toBeUndefined();
    const failing = fake(() =>
      Promise.reject(serviceErrorFor({ operation: 'projects.getBySlug', status: 500, message: 'boom' })),
    );
    await expect(findProjectBySlug(failing, 'shop', signal)).rejects.toThrow('boom');
  });
});
