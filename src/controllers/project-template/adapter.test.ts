// The ProjectTemplate adapter against a devserver on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContract, type Contract } from '../../../test/support/client-contract.ts';
import { projectTemplateSpec, type ProjectTemplateSpec } from '../../api/v1alpha1/index.ts';
import { TerminalError } from '../../runtime/errors.ts';
import { bound, context, fakeServices, managed, type FakeWorld } from '../testing.ts';
import { projectTemplateAdapter, TYPE_MISMATCH } from './adapter.ts';

let contract: Contract;
const world: FakeWorld = { objects: {}, secrets: {}, now: new Date() };

beforeAll(async () => {
  contract = await startContract();
});
afterAll(async () => contract.close());

const template = (name: string, extra: Record<string, unknown> = {}) =>
  managed<ProjectTemplateSpec>(
    'ProjectTemplate',
    name,
    projectTemplateSpec.parse({
      connectionRef: { name: 'cluster' },
      name,
      description: 'A template',
      roles: [
        {
          name: 'Readers',
          slug: 'readers',
          permissions: [{ subject: 'secrets', action: 'read', conditions: { secretPath: { $glob: '/**' } } }],
        },
      ],
      environments: [
        { name: 'Development', slug: 'dev', position: 1 },
        { name: 'Production', slug: 'prod', position: 2 },
      ],
      ...extra,
    }),
    { clusterScoped: true },
  );

async function connect(obj: ReturnType<typeof template>) {
  return projectTemplateAdapter(fakeServices(contract.admin, world)).connect(obj, context(undefined));
}

describe('ProjectTemplate adapter', () => {
  it('creates a template, then sees it up to date', async () => {
    const obj = template('tpl-one');
    const client = await connect(obj);
    expect(await client.observe(obj, context(undefined))).toEqual({ exists: false });
    const created = await client.create(obj, context(undefined));
    expect(created.status).toEqual({ organizationId: contract.orgId });
    expect(await client.observe(obj, context(undefined, created.externalId))).toMatchObject({
      exists: true,
      upToDate: true,
      externalId: created.externalId,
    });
    const stored = await contract.admin.projectTemplates.get(created.externalId);
    expect(stored.environments?.map((e) => e.slug)).toEqual(['dev', 'prod']);
    expect(stored.roles[0]?.permissions[0]?.action).toEqual(['read']);
  });

  it('finds a template by name (adoption, crash recovery) and ignores the built-in default', async () => {
    const obj = template('tpl-adopt');
    const client = await connect(obj);
    const existing = await contract.admin.projectTemplates.create({
      name: 'tpl-adopt',
      type: 'secret-manager',
      description: 'A template',
      roles: [
        {
          name: 'Readers',
          slug: 'readers',
          permissions: [
            { subject: 'secrets', action: ['read'], conditions: { secretPath: { $glob: '/**' } } },
          ],
        },
      ],
      environments: [
        { name: 'Production', slug: 'prod', position: 2 },
        { name: 'Development', slug: 'dev', position: 1 },
      ],
    });
    expect(await client.findByNaturalKey(obj, context(undefined))).toEqual([
      { id: existing.id, createdAt: expect.any(String) as string },
    ]);
    expect(await client.observe(obj, context(undefined))).toMatchObject({
      exists: true,
      upToDate: true,
      externalId: existing.id,
    });
  });

  it('reports drift made in the service and corrects it with one update', async () => {
    const obj = template('tpl-drift');
    const client = await connect(obj);
    const { externalId } = await client.create(obj, context(undefined));
    await contract.admin.projectTemplates.update(externalId, {
      description: 'changed',
      roles: [{ name: 'Readers', slug: 'readers', permissions: [{ subject: 'secrets', action: ['edit'] }] }],
      environments: null,
    });
    expect(await client.observe(obj, context(undefined, externalId))).toMatchObject({
      upToDate: false,
      diff: 'description, roles, environments',
    });
    await client.update(obj, bound(undefined, externalId));
    expect(await client.observe(obj, context(undefined, externalId))).toMatchObject({ upToDate: true });
  });

  it('refuses to "fix" a type the service cannot change', async () => {
    const existing = await contract.admin.projectTemplates.create({ name: 'tpl-kms', type: 'kms' });
    const obj = template('tpl-kms', { description: undefined, roles: undefined, environments: undefined });
    const client = await connect(obj);
    expect(await client.observe(obj, context(undefined, existing.id))).toMatchObject({
      upToDate: false,
      diff: 'type',
    });
    const error = await client.update(obj, bound(undefined, existing.id)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TerminalError);
    expect(error).toMatchObject({ reason: TYPE_MISMATCH });
  });

  it('deletes the template; a deleted template is missing', async () => {
    const obj = template('tpl-gone');
    const client = await connect(obj);
    const { externalId } = await client.create(obj, context(undefined));
    await client.delete(obj, bound(undefined, externalId));
    expect(await client.observe(obj, context(undefined, externalId))).toEqual({ exists: false });
  });
});
