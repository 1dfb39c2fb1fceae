// Client contract against a devserver on loopback: projects, environments, identities,
// memberships, roles, additional privileges and project templates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DeletionBlockedError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
  RequestValidationError,
  UnauthorizedError,
} from '../../src/client/index.ts';
import { expectServiceError, startContract, type Contract } from '../support/client-contract.ts';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
let ctx: Contract;

beforeAll(async () => {
  ctx = await startContract();
});

afterAll(async () => {
  await ctx.close();
});

describe('projects', () => {
  it('creates, reads, updates and deletes a project', async () => {
    const created = await ctx.admin.projects.create({ projectName: 'Shop', slug: 'shop-project' });
    expect(created).toMatchObject({ name: 'Shop', slug: 'shop-project', type: 'secret-manager' });
    expect(created.environments?.map((e) => e.slug)).toEqual(['dev', 'staging', 'prod']);
    await expect(ctx.admin.projects.get(created.id)).resolves.toMatchObject({
      id: created.id,
      slug: 'shop-project',
    });
    const updated = await ctx.admin.projects.update(created.id, {
      description: 'the shop',
      autoCapitalization: true,
    });
    expect(updated).toMatchObject({ description: 'the shop', autoCapitalization: true });
    await expect(ctx.admin.projects.delete(created.id)).resolves.toMatchObject({ id: created.id });
    await expectServiceError(ctx.admin.projects.get(created.id), NotFoundError, 404);
  });

  it('answers 404 for unknown ids and validates the slug locally', async () => {
    await expectServiceError(ctx.admin.projects.get(UNKNOWN), NotFoundError, 404);
    await expectServiceError(ctx.admin.projects.update(UNKNOWN, { name: 'x' }), NotFoundError, 404);
    await expectServiceError(ctx.admin.projects.delete(UNKNOWN), NotFoundError, 404);
    await expect(ctx.admin.projects.create({ projectName: 'x', slug: 'Bad Slug' })).rejects.toBeInstanceOf(
      RequestValidationError,
    );
  });

  it('refuses to delete a protected project', async () => {
    const p = await ctx.admin.projects.create({ projectName: 'Kept', hasDeleteProtection: true });
    await expectServiceError(ctx.admin.projects.delete(p.id), DeletionBlockedError, 400, /protect/i);
    await ctx.admin.projects.update(p.id, { hasDeleteProtection: false });
    await ctx.admin.projects.delete(p.id);
  });
});

describe('environments', () => {
  it('creates, reads, updates and deletes an environment', async () => {
    const p = await ctx.project();
    const env = await ctx.admin.environments.create(p.id, { name: 'QA', slug: 'qa' });
    expect(env).toMatchObject({ name: 'QA', slug: 'qa', position: 4, projectId: p.id });
    await expect(ctx.admin.environments.get(p.id, env.id)).resolves.toMatchObject({ slug: 'qa' });
    await expect(ctx.admin.environments.update(p.id, env.id, { name: 'Quality' })).resolves.toMatchObject({
      name: 'Quality',
    });
    await expect(ctx.admin.environments.delete(p.id, env.id)).resolves.toMatchObject({ id: env.id });
    await expectServiceError(ctx.admin.environments.get(p.id, env.id), NotFoundError, 404);
  });

  it('answers 400 for a duplicate slug and 404 for unknown ids', async () => {
    const p = await ctx.project();
    await expectServiceError(
      ctx.admin.environments.create(p.id, { name: 'Dev', slug: 'dev' }),
      InvalidError,
      400,
    );
    await expectServiceError(ctx.admin.environments.update(p.id, UNKNOWN, { name: 'x' }), NotFoundError, 404);
    await expectServiceError(ctx.admin.environments.delete(p.id, UNKNOWN), NotFoundError, 404);
    await expectServiceError(
      ctx.admin.environments.create(UNKNOWN, { name: 'A', slug: 'a' }),
      NotFoundError,
      404,
    );
  });
});

describe('identities', () => {
  it('creates, reads (with its org role), lists, updates and deletes an identity', async () => {
    const created = await ctx.admin.identities.create({
      name: 'builder',
      organizationId: ctx.orgId,
      role: 'member',
      metadata: [{ key: 'team', value: 'ci' }],
    });
    expect(created).toMatchObject({ name: 'builder', hasDeleteProtection: false, authMethods: [] });
    expect(created.metadata).toEqual([expect.objectContaining({ key: 'team', value: 'ci' })]);
    await expect(ctx.admin.identities.get(created.id)).resolves.toMatchObject({
      id: created.id,
      role: 'member',
    });
    const all = await ctx.admin.identities.list(ctx.orgId);
    expect(all.map((i) => i.id)).toContain(created.id);
    await expect(
      ctx.admin.identities.update(created.id, { name: 'builder-2', role: 'admin' }),
    ).resolves.toMatchObject({
      name: 'builder-2',
    });
    await expect(ctx.admin.identities.get(created.id)).resolves.toMatchObject({ role: 'admin' });
    await ctx.admin.identities.delete(created.id);
    await expectServiceError(ctx.admin.identities.get(created.id), NotFoundError, 404);
  });

  it('answers 404 for unknown ids and refuses to delete a protected identity', async () => {
    await expectServiceError(ctx.admin.identities.get(UNKNOWN), NotFoundError, 404);
    await expectServiceError(ctx.admin.identities.update(UNKNOWN, { name: 'x' }), NotFoundError, 404);
    await expectServiceError(ctx.admin.identities.delete(UNKNOWN), NotFoundError, 404);
    const kept = await ctx.admin.identities.create({
      name: 'kept',
      organizationId: ctx.orgId,
      hasDeleteProtection: true,
    });
    await expectServiceError(ctx.admin.identities.delete(kept.id), DeletionBlockedError, 400, /protect/i);
  });
});

describe('memberships', () => {
  it('adds an identity to a project, reads, lists, replaces its roles and removes it', async () => {
    const p = await ctx.project();
    const identity = await ctx.identity('no-access');
    await expectServiceError(identity.client.projects.get(p.id), ForbiddenError, 403);
    const m = await ctx.admin.memberships.create(p.id, identity.id, {
      roles: [{ role: 'viewer', isTemporary: false }],
    });
    expect(m.roles.map((r) => r.slug)).toEqual(['viewer']);
    await expect(identity.client.projects.get(p.id)).resolves.toMatchObject({ id: p.id });
    await expect(ctx.admin.memberships.get(p.id, identity.id)).resolves.toMatchObject({ id: m.id });
    const page = await ctx.admin.memberships.list(p.id, { limit: 50 });
    expect(page.identityMemberships.map((x) => x.id)).toContain(m.id);
    const start = new Date().toISOString();
    const updated = await ctx.admin.memberships.update(p.id, identity.id, {
      roles: [
        {
          role: 'member',
          isTemporary: true,
          temporaryMode: 'relative',
          temporaryRange: '1h',
          temporaryAccessStartTime: start,
        },
      ],
    });
    expect(updated.roles[0]).toMatchObject({ slug: 'member', isTemporary: true, temporaryRange: '1h' });
    expect(Date.parse(updated.roles[0]!.temporaryAccessEndTime!) - Date.parse(start)).toBe(3_600_000);
    await ctx.admin.memberships.delete(p.id, identity.id);
    await expectServiceError(ctx.admin.memberships.get(p.id, identity.id), NotFoundError, 404);
  });

  it('answers 400 for a second membership and 404 for an unknown identity', async () => {
    const p = await ctx.project();
    const identity = await ctx.identity();
    await ctx.admin.memberships.create(p.id, identity.id, {
      roles: [{ role: 'viewer', isTemporary: false }],
    });
    await expectServiceError(
      ctx.admin.memberships.create(p.id, identity.id, { roles: [{ role: 'viewer', isTemporary: false }] }),
      InvalidError,
      400,
    );
    await expectServiceError(
      ctx.admin.memberships.create(p.id, UNKNOWN, { roles: [{ role: 'viewer', isTemporary: false }] }),
      NotFoundError,
      404,
    );
  });
});

describe('roles', () => {
  const permissions = [{ subject: 'secrets', action: ['read'], conditions: { environment: 'dev' } }];

  it('creates, reads by slug, lists, updates and deletes a role; predefined roles are readable', async () => {
    const p = await ctx.project();
    const role = await ctx.admin.roles.create(p.id, { slug: 'reader', name: 'Reader', permissions });
    expect(role).toMatchObject({ slug: 'reader', name: 'Reader', projectId: p.id });
    expect(role.permissions?.[0]).toMatchObject({ subject: 'secrets', action: ['read'] });
    await expect(ctx.admin.roles.getBySlug(p.id, 'reader')).resolves.toMatchObject({ id: role.id });
    await expect(ctx.admin.roles.getBySlug(p.id, 'viewer')).resolves.toMatchObject({ slug: 'viewer' });
    const list = await ctx.admin.roles.list(p.id);
    expect(list.map((r) => r.slug)).toEqual(
      expect.arrayContaining(['admin', 'member', 'viewer', 'no-access', 'reader']),
    );
    await expect(ctx.admin.roles.update(p.id, role.id, { name: 'Readers' })).resolves.toMatchObject({
      name: 'Readers',
    });
    await ctx.admin.roles.delete(p.id, role.id);
    await expectServiceError(ctx.admin.roles.getBySlug(p.id, 'reader'), NotFoundError, 404);
  });

  it('reports a duplicate slug as 404 (the service quirk) and refuses to delete an assigned role', async () => {
    const p = await ctx.project();
    const role = await ctx.admin.roles.create(p.id, { slug: 'ops', name: 'Ops', permissions });
    await expectServiceError(
      ctx.admin.roles.create(p.id, { slug: 'ops', name: 'Ops', permissions }),
      NotFoundError,
      404,
    );
    const identity = await ctx.identity();
    await ctx.admin.memberships.create(p.id, identity.id, { roles: [{ role: 'ops', isTemporary: false }] });
    await expectServiceError(ctx.admin.roles.delete(p.id, role.id), InvalidError, 400, /assigned/);
    await expectServiceError(ctx.admin.roles.update(p.id, UNKNOWN, { name: 'x' }), NotFoundError, 404);
    await expect(
      ctx.admin.roles.create(p.id, { slug: 'admin', name: 'x', permissions }),
    ).rejects.toBeInstanceOf(RequestValidationError);
  });
});

describe('privileges', () => {
  const permissions = [{ subject: 'secrets', action: ['read'], conditions: { environment: 'dev' } }];

  async function member() {
    const p = await ctx.project();
    const identity = await ctx.identity();
    await ctx.admin.memberships.create(p.id, identity.id, {
      roles: [{ role: 'no-access', isTemporary: false }],
    });
    return { p, identity };
  }

  it('v2: creates, reads (by id and slug), lists, updates and deletes', async () => {
    const { p, identity } = await member();
    const created = await ctx.admin.privileges.create({
      identityId: identity.id,
      projectId: p.id,
      slug: 'dev-read',
      permissions,
      type: { isTemporary: false },
    });
    expect(created).toMatchObject({ slug: 'dev-read', isTemporary: false });
    await expect(ctx.admin.privileges.get(created.id)).resolves.toMatchObject({ id: created.id });
    await expect(
      ctx.admin.privileges.getBySlug('dev-read', { identityId: identity.id, projectSlug: p.slug }),
    ).resolves.toMatchObject({ id: created.id });
    const list = await ctx.admin.privileges.list({ identityId: identity.id, projectId: p.id });
    expect(list.map((x) => x.id)).toEqual([created.id]);
    const start = '2030-01-01T00:00:00.000Z';
    const updated = await ctx.admin.privileges.update(created.id, {
      slug: 'dev-read',
      type: {
        isTemporary: true,
        temporaryMode: 'relative',
        temporaryRange: '2h',
        temporaryAccessStartTime: start,
      },
    });
    expect(updated).toMatchObject({ isTemporary: true, temporaryAccessEndTime: '2030-01-01T02:00:00.000Z' });
    await ctx.admin.privileges.delete(created.id);
    await expectServiceError(ctx.admin.privileges.get(created.id), NotFoundError, 404);
  });

  it('v2: 400 for a duplicate slug, 404 without membership or for unknown ids', async () => {
    const { p, identity } = await member();
    const input = {
      identityId: identity.id,
      projectId: p.id,
      slug: 'dup',
      permissions,
      type: { isTemporary: false as const },
    };
    await ctx.admin.privileges.create(input);
    await expectServiceError(ctx.admin.privileges.create(input), InvalidError, 400, /exists/);
    const outsider = await ctx.identity();
    await expectServiceError(
      ctx.admin.privileges.create({ ...input, identityId: outsider.id }),
      NotFoundError,
      404,
    );
    await expectServiceError(ctx.admin.privileges.get(UNKNOWN), NotFoundError, 404);
    await expectServiceError(
      ctx.admin.privileges.update(UNKNOWN, { slug: 'x', type: { isTemporary: false } }),
      NotFoundError,
      404,
    );
    await expectServiceError(ctx.admin.privileges.delete(UNKNOWN), NotFoundError, 404);
  });

  it('v1: lists, updates and deletes by slug', async () => {
    const { p, identity } = await member();
    const scope = { identityId: identity.id, projectSlug: p.slug };
    await ctx.admin.privileges.create({
      identityId: identity.id,
      projectId: p.id,
      slug: 'legacy',
      permissions,
      type: { isTemporary: false },
    });
    const list = await ctx.admin.privileges.v1.list(scope);
    expect(list).toEqual([expect.objectContaining({ slug: 'legacy', projectMembershipId: p.id })]);
    const updated = await ctx.admin.privileges.v1.update({
      ...scope,
      privilegeSlug: 'legacy',
      privilegeDetails: { slug: 'legacy-2', permissions: [{ action: 'edit', subject: 'secrets' }] },
    });
    expect(updated.slug).toBe('legacy-2');
    await expectServiceError(
      ctx.admin.privileges.v1.delete({ ...scope, privilegeSlug: 'legacy' }),
      NotFoundError,
      404,
    );
    await ctx.admin.privileges.v1.delete({ ...scope, privilegeSlug: 'legacy-2' });
    await expect(ctx.admin.privileges.v1.list(scope)).resolves.toEqual([]);
    await expect(
      ctx.admin.privileges.v1.update({ ...scope, privilegeSlug: 'x', privilegeDetails: { slug: 'y' } }),
    ).rejects.toBeInstanceOf(RequestValidationError);
  });
});

describe('project templates', () => {
  it('creates, reads, lists, updates and deletes a template', async () => {
    const t = await ctx.admin.projectTemplates.create({
      name: 'web-app',
      type: 'secret-manager',
      environments: [
        { name: 'Dev', slug: 'dev', position: 1 },
        { name: 'Prod', slug: 'prod', position: 2 },
      ],
      roles: [
        { name: 'Deployer', slug: 'deployer', permissions: [{ subject: 'secrets', action: ['read'] }] },
      ],
    });
    expect(t).toMatchObject({ name: 'web-app', type: 'secret-manager' });
    expect(t.roles.map((r) => r.slug)).toEqual(['deployer']);
    await expect(ctx.admin.projectTemplates.get(t.id)).resolves.toMatchObject({ id: t.id });
    const all = await ctx.admin.projectTemplates.list();
    expect(all.map((x) => x.name)).toEqual(expect.arrayContaining(['default', 'web-app']));
    await expect(ctx.admin.projectTemplates.update(t.id, { description: 'web' })).resolves.toMatchObject({
      description: 'web',
    });
    await ctx.admin.projectTemplates.delete(t.id);
    await expectServiceError(ctx.admin.projectTemplates.get(t.id), NotFoundError, 404);
  });

  it('answers 422 for a non-UUID id, 400 for a duplicate name, 404 for unknown ids', async () => {
    await expectServiceError(ctx.admin.projectTemplates.get('not-a-uuid'), InvalidError, 422);
    await ctx.admin.projectTemplates.create({ name: 'twice', type: 'secret-manager' });
    await expectServiceError(
      ctx.admin.projectTemplates.create({ name: 'twice', type: 'secret-manager' }),
      InvalidError,
      400,
    );
    await expectServiceError(
      ctx.admin.projectTemplates.update(UNKNOWN, { description: 'x' }),
      NotFoundError,
      404,
    );
    await expectServiceError(ctx.admin.projectTemplates.delete(UNKNOWN), NotFoundError, 404);
  });

  it('is not available without a token', async () => {
    await expectServiceError(ctx.client().projectTemplates.list(), UnauthorizedError, 401);
  });
});
