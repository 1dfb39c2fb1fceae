/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- the tests read fields of arbitrary JSON answers */
// Projects, environments, roles, templates and integrations over HTTP.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './test-support.ts';

let t: TestServer;
let orgId: string;

beforeEach(async () => {
  t = await startTestServer({ enableAdmin: true });
  ({ orgId } = await t.bootstrap());
});

afterEach(async () => {
  await t.close();
});

async function newProject(body: Record<string, unknown> = {}) {
  const res = await t.call('POST', '/api/v2/workspace', { body: { projectName: 'Demo', ...body } });
  expect(res.status).toBe(200);
  return res.body.project as { id: string; slug: string; environments: { slug: string; id: string }[] };
}

describe('projects', () => {
  it('creates with default environments, reads, updates and deletes', async () => {
    const project = await newProject({ slug: 'demo-project' });
    expect(project.slug).toBe('demo-project');
    expect(project.environments.map((e) => e.slug)).toEqual(['dev', 'staging', 'prod']);
    const got = await t.call('GET', `/api/v1/workspace/${project.id}`);
    expect(got.body.workspace).toMatchObject({
      id: project.id,
      _id: project.id,
      orgId,
      type: 'secret-manager',
    });
    const bySlug = await t.call('GET', `/api/v2/workspace/${project.slug}`);
    expect(bySlug.body.id).toBe(project.id);
    const patched = await t.call('PATCH', `/api/v1/workspace/${project.id}`, {
      body: { name: 'Renamed', slug: 'renamed_project' },
    });
    expect(patched.body.workspace).toMatchObject({ name: 'Renamed', slug: 'renamed_project' });
    expect((await t.call('DELETE', `/api/v1/workspace/${project.id}`)).status).toBe(200);
    expect((await t.call('GET', `/api/v1/workspace/${project.id}`)).status).toBe(404);
  });

  it('applies the slug rules and refuses duplicates', async () => {
    expect(
      (await t.call('POST', '/api/v2/workspace', { body: { projectName: 'x', slug: 'ab' } })).status,
    ).toBe(422);
    expect(
      (await t.call('POST', '/api/v2/workspace', { body: { projectName: 'x', slug: 'Bad_Slug' } })).status,
    ).toBe(422);
    await newProject({ slug: 'taken-slug' });
    expect(
      (await t.call('POST', '/api/v2/workspace', { body: { projectName: 'x', slug: 'taken-slug' } })).status,
    ).toBe(400);
  });

  it('honours deletion protection', async () => {
    const project = await newProject({ hasDeleteProtection: true });
    expect((await t.call('DELETE', `/api/v1/workspace/${project.id}`)).status).toBe(400);
  });
});

describe('environments', () => {
  it('creates with position shifting, refuses duplicate slugs, moves, renames and deletes', async () => {
    const project = await newProject();
    const base = `/api/v1/workspace/${project.id}/environments`;
    const created = await t.call('POST', base, { body: { name: 'QA', slug: 'qa', position: 2 } });
    expect(created.body).toMatchObject({
      message: 'Successfully created new environment',
      workspace: project.id,
    });
    expect(created.body.environment).toMatchObject({ slug: 'qa', position: 2 });
    const order = async () =>
      (await t.call('GET', `/api/v1/workspace/${project.id}`)).body.workspace.environments.map(
        (e: { slug: string }) => e.slug,
      );
    expect(await order()).toEqual(['dev', 'qa', 'staging', 'prod']);
    expect((await t.call('POST', base, { body: { name: 'QA', slug: 'qa' } })).status).toBe(400);
    const id = created.body.environment.id as string;
    const moved = await t.call('PATCH', `${base}/${id}`, { body: { position: 4, slug: 'quality' } });
    expect(moved.body.environment).toMatchObject({ slug: 'quality', position: 4 });
    expect(await order()).toEqual(['dev', 'staging', 'prod', 'quality']);
    expect((await t.call('GET', `${base}/${id}`)).body.environment.slug).toBe('quality');
    expect((await t.call('DELETE', `${base}/${id}`)).status).toBe(200);
    expect((await t.call('GET', `${base}/${id}`)).status).toBe(404);
  });
});

describe('roles', () => {
  it('reads predefined roles, creates custom ones and applies the duplicate and in-use rules', async () => {
    const project = await newProject();
    const base = `/api/v2/workspace/${project.id}/roles`;
    const viewer = await t.call('GET', `${base}/slug/viewer`);
    expect(viewer.body.role).toMatchObject({ slug: 'viewer', name: 'Viewer' });
    expect((await t.call('GET', `${base}/slug/custom`)).status).toBe(400);
    expect((await t.call('GET', `${base}/slug/nope`)).status).toBe(404);
    const body = { slug: 'reader', name: 'Reader', permissions: [{ subject: 'secrets', action: 'read' }] };
    const created = await t.call('POST', base, { body });
    expect(created.body.role.permissions).toEqual([
      { subject: 'secrets', action: ['read'], inverted: false },
    ]);
    expect((await t.call('POST', base, { body })).status).toBe(404);
    expect((await t.call('POST', base, { body: { ...body, slug: 'admin' } })).status).toBe(422);
    const list = await t.call('GET', base);
    expect(list.body.roles.map((r: { slug: string }) => r.slug)).toEqual([
      'admin',
      'member',
      'viewer',
      'no-access',
      'reader',
    ]);
    const other = await t.call('POST', '/api/v1/identities', { body: { name: 'o', organizationId: orgId } });
    await t.call('POST', `/api/v1/projects/${project.id}/memberships/identities/${other.body.identity.id}`, {
      body: { roles: [{ role: 'reader' }] },
    });
    const roleId = created.body.role.id as string;
    expect((await t.call('DELETE', `${base}/${roleId}`)).status).toBe(400);
    const renamed = await t.call('PATCH', `${base}/${roleId}`, { body: { name: 'Readers' } });
    expect(renamed.body.role.name).toBe('Readers');
  });
});

describe('project templates', () => {
  it('creates, lists with the built-in default, reads by UUID, updates and deletes', async () => {
    const body = {
      name: 'team-template',
      type: 'secret-manager',
      environments: [
        { name: 'One', slug: 'one', position: 1 },
        { name: 'Two', slug: 'two', position: 2 },
      ],
      roles: [{ name: 'Ops', slug: 'ops', permissions: [{ subject: 'secrets', action: ['read'] }] }],
    };
    const created = await t.call('POST', '/api/v1/project-templates', { body });
    expect(created.status).toBe(200);
    const id = created.body.projectTemplate.id as string;
    const list = await t.call('GET', '/api/v1/project-templates');
    expect(list.body.projectTemplates.map((p: { name: string }) => p.name)).toEqual([
      'default',
      'team-template',
    ]);
    expect((await t.call('GET', '/api/v1/project-templates/not-a-uuid')).status).toBe(422);
    expect((await t.call('GET', `/api/v1/project-templates/${id}`)).body.projectTemplate.name).toBe(
      'team-template',
    );
    const project = await newProject({ template: 'team-template' });
    expect(project.environments.map((e) => e.slug)).toEqual(['one', 'two']);
    const patched = await t.call('PATCH', `/api/v1/project-templates/${id}`, {
      body: { description: 'changed' },
    });
    expect(patched.body.projectTemplate.description).toBe('changed');
    expect((await t.call('DELETE', `/api/v1/project-templates/${id}`)).status).toBe(200);
    expect((await t.call('GET', `/api/v1/project-templates/${id}`)).status).toBe(404);
  });

  it('rejects reserved names, bad positions and duplicate names', async () => {
    const post = (body: Record<string, unknown>) =>
      t.call('POST', '/api/v1/project-templates', { body: { type: 'secret-manager', ...body } });
    expect((await post({ name: 'default' })).status).toBe(422);
    expect((await post({ name: 'x', environments: [{ name: 'A', slug: 'a', position: 2 }] })).status).toBe(
      422,
    );
    expect(
      (await post({ name: 'x', roles: [{ name: 'Admin', slug: 'my-admin', permissions: [] }] })).status,
    ).toBe(422);
    expect((await post({ name: 'same' })).status).toBe(200);
    expect((await post({ name: 'same' })).status).toBe(400);
  });
});

describe('integrations', () => {
  it('stores integration auth credentials without returning them; create is 403; seeded ones can be managed', async () => {
    const project = await newProject();
    const stored = await t.call('POST', '/api/v1/integration-auth/access-token', {
      body: {
        workspaceId: project.id,
        integration: 'aws-secret-manager',
        accessId: 'AKIAEXAMPLE',
        accessToken: 'super-secret-key',
      },
    });
    expect(stored.status).toBe(200);
    expect(JSON.stringify(stored.body)).not.toContain('super-secret-key');
    const authId = stored.body.integrationAuth.id as string;
    expect(JSON.stringify((await t.call('GET', `/api/v1/integration-auth/${authId}`)).body)).not.toContain(
      'super-secret-key',
    );
    expect((await t.call('POST', '/api/v1/integration', { body: {} })).status).toBe(403);
    const seeded = await t.call('POST', '/__devserver/integrations', {
      body: { projectId: project.id, integrationAuthId: authId, environment: 'dev', secretPath: '/app' },
    });
    const id = seeded.body.integration.id as string;
    const list = await t.call('GET', `/api/v1/workspace/${project.id}/integrations`);
    expect(list.body.integrations[0]).toMatchObject({ id, secretPath: '/app', environment: { slug: 'dev' } });
    const patched = await t.call('PATCH', `/api/v1/integration/${id}`, {
      body: { isActive: false, secretPath: '/other' },
    });
    expect(patched.body.integration).toMatchObject({ isActive: false, secretPath: '/other' });
    expect((await t.call('DELETE', `/api/v1/integration/${id}`)).status).toBe(200);
    expect((await t.call('GET', `/api/v1/integration/${id}`)).status).toBe(404);
    expect((await t.call('DELETE', `/api/v1/integration-auth/${authId}`)).status).toBe(200);
  });
});
