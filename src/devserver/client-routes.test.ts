/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- the tests read fields of arbitrary JSON answers */
// Routes real clients call that the devserver serves besides the ones the operator uses: folders,
// roles and memberships by id, projects and environments by slug, the project list, audit-log
// retention and the cert-manager internal CA routes (docs/service-facts.md, "Client compatibility").
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIdentityWithToken, startTestServer, type TestServer } from './test-support.ts';

let t: TestServer;
let orgId: string;
let project: { id: string; slug: string };

beforeEach(async () => {
  t = await startTestServer();
  ({ orgId } = await t.bootstrap());
  project = (await t.call('POST', '/api/v2/workspace', { body: { projectName: 'Routes' } })).body.project;
});

afterEach(async () => {
  await t.close();
});

/** An identity that is a member of the project with `role` (default no-access). */
async function member(role = 'no-access'): Promise<{ identityId: string; token: string }> {
  const who = await createIdentityWithToken(t, orgId);
  const added = await t.call(
    'POST',
    `/api/v1/projects/${project.id}/memberships/identities/${who.identityId}`,
    {
      body: { role },
    },
  );
  expect(added.status).toBe(200);
  return who;
}

describe('GET /api/v1/folders/{id}', () => {
  it('reads a folder by id; 404 for an unknown id; 403 without read on secret-folders', async () => {
    const created = await t.call('POST', '/api/v1/folders', {
      body: { workspaceId: project.id, environment: 'dev', name: 'app', path: '/' },
    });
    const id = created.body.folder.id;
    const res = await t.call('GET', `/api/v1/folders/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.folder).toMatchObject({ id, name: 'app', envId: created.body.folder.envId });
    expect((await t.call('GET', '/api/v1/folders/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const outsider = await member();
    expect((await t.call('GET', `/api/v1/folders/${id}`, { token: outsider.token })).status).toBe(403);
  });
});

describe('project roles by id', () => {
  async function customRole(): Promise<{ id: string; slug: string }> {
    const res = await t.call('POST', `/api/v2/workspace/${project.id}/roles`, {
      body: { slug: 'reader', name: 'Reader', permissions: [{ subject: 'secrets', action: ['read'] }] },
    });
    expect(res.status).toBe(200);
    return res.body.role;
  }

  it('reads a custom role by id; 404 for an unknown id, 403 without read on role', async () => {
    const role = await customRole();
    const res = await t.call('GET', `/api/v1/projects/roles/${role.id}`);
    expect(res.status).toBe(200);
    expect(res.body.role).toMatchObject({ id: role.id, slug: 'reader', projectId: project.id });
    expect(res.body.role.permissions).toEqual([
      expect.objectContaining({ subject: 'secrets', action: ['read'] }),
    ]);
    expect((await t.call('GET', '/api/v1/projects/roles/00000000-0000-4000-8000-000000000000')).status).toBe(
      404,
    );
    const outsider = await member();
    expect((await t.call('GET', `/api/v1/projects/roles/${role.id}`, { token: outsider.token })).status).toBe(
      403,
    );
  });

  it('deletes a custom role through the project slug; 400 while in use, 404 when gone', async () => {
    const role = await customRole();
    const path = `/api/v1/workspace/${project.slug}/roles/${role.id}`;
    const user = await member('reader');
    expect((await t.call('DELETE', path)).status).toBe(400);
    await t.call('DELETE', `/api/v1/projects/${project.id}/memberships/identities/${user.identityId}`);
    const deleted = await t.call('DELETE', path);
    expect(deleted.status).toBe(200);
    expect(deleted.body.role).toMatchObject({ id: role.id, slug: 'reader' });
    expect((await t.call('DELETE', path)).status).toBe(404);
    expect((await t.call('GET', `/api/v1/projects/roles/${role.id}`)).status).toBe(404);
  });
});

describe('GET /api/v2/workspace/identity-memberships/{membershipId}', () => {
  it('reads a membership by its id; 404 for an unknown id; 403 without read on identity', async () => {
    const who = await member('viewer');
    const listed = await t.call(
      'GET',
      `/api/v1/projects/${project.id}/memberships/identities/${who.identityId}`,
    );
    const id = listed.body.identityMembership.id;
    const res = await t.call('GET', `/api/v2/workspace/identity-memberships/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.identityMembership).toMatchObject({
      id,
      identityId: who.identityId,
      projectId: project.id,
    });
    expect(res.body.identityMembership.roles.map((r: { role: string }) => r.role)).toEqual(['viewer']);
    expect((await t.call('GET', '/api/v2/workspace/identity-memberships/nope')).status).toBe(404);
    const outsider = await member();
    expect(
      (await t.call('GET', `/api/v2/workspace/identity-memberships/${id}`, { token: outsider.token })).status,
    ).toBe(403);
  });
});

describe('projects and environments by slug, the project list', () => {
  it('answers the bare project by slug, and 404 for an unknown slug', async () => {
    const res = await t.call('GET', `/api/v1/projects/slug/${project.slug}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: project.id, slug: project.slug, _id: project.id });
    expect(res.body.environments.map((e: { slug: string }) => e.slug)).toEqual(['dev', 'staging', 'prod']);
    expect((await t.call('GET', '/api/v1/projects/slug/no-such-project')).status).toBe(404);
  });

  it('reads an environment by slug; 404 for an unknown slug', async () => {
    const res = await t.call('GET', `/api/v1/projects/${project.id}/environments/slug/staging`);
    expect(res.status).toBe(200);
    expect(res.body.environment).toMatchObject({ slug: 'staging', projectId: project.id, position: 2 });
    expect((await t.call('GET', `/api/v1/projects/${project.id}/environments/slug/qa`)).status).toBe(404);
  });

  it('lists the caller’s projects as {projects}: all for an org admin, memberships only otherwise', async () => {
    const other = (await t.call('POST', '/api/v2/workspace', { body: { projectName: 'Other' } })).body
      .project;
    const all = await t.call('GET', '/api/v1/projects');
    expect(all.body.projects.map((p: { id: string }) => p.id).sort()).toEqual([project.id, other.id].sort());
    const who = await member('viewer');
    const mine = await t.call('GET', '/api/v1/projects', { token: who.token });
    expect(mine.body.projects.map((p: { id: string }) => p.id)).toEqual([project.id]);
  });
});

describe('audit-log retention', () => {
  it('sets auditLogsRetentionDays by slug and by id; project reads return it; 403 without edit on settings', async () => {
    const bySlug = await t.call('PUT', `/api/v1/workspace/${project.slug}/audit-logs-retention`, {
      body: { auditLogsRetentionDays: 30 },
    });
    expect(bySlug.status).toBe(200);
    expect(bySlug.body).toMatchObject({
      message: "Successfully updated project's audit logs retention period",
      project: { id: project.id, auditLogsRetentionDays: 30 },
    });
    expect(bySlug.body.project).not.toHaveProperty('environments');
    expect(
      (await t.call('GET', `/api/v1/workspace/${project.id}`)).body.workspace.auditLogsRetentionDays,
    ).toBe(30);
    const byId = await t.call('PUT', `/api/v1/projects/${project.id}/audit-logs-retention`, {
      body: { auditLogsRetentionDays: 7 },
    });
    expect(byId.body.project.auditLogsRetentionDays).toBe(7);
    expect((await t.call('GET', `/api/v1/projects/slug/${project.slug}`)).body.auditLogsRetentionDays).toBe(
      7,
    );
    const bad = await t.call('PUT', `/api/v1/projects/${project.id}/audit-logs-retention`, {
      body: { auditLogsRetentionDays: -1 },
    });
    expect(bad.status).toBe(422);
    const viewer = await member('viewer');
    const denied = await t.call('PUT', `/api/v1/projects/${project.id}/audit-logs-retention`, {
      token: viewer.token,
      body: { auditLogsRetentionDays: 1 },
    });
    expect(denied.status).toBe(403);
  });
});

describe('cert-manager internal CAs', () => {
  const configuration = {
    type: 'root',
    commonName: 'Compat Root',
    organization: 'Example',
    keyAlgorithm: 'EC_prime256v1',
  };

  it('creates, reads, updates and deletes by id over the CA store /api/v1/pki/ca uses', async () => {
    const created = await t.call('POST', '/api/v1/cert-manager/ca/internal', {
      body: { name: 'compat-root', projectId: project.id, status: 'active', configuration },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      name: 'compat-root',
      projectId: project.id,
      status: 'active',
      type: 'internal',
      configuration: { type: 'root', commonName: 'Compat Root', keyAlgorithm: 'EC_prime256v1' },
    });
    expect(JSON.stringify(created.body)).not.toContain('PRIVATE KEY');
    const id = created.body.id;
    // Visible through the deprecated routes, and the other way round.
    expect((await t.call('GET', `/api/v1/pki/ca/${id}`)).body.ca).toMatchObject({
      id,
      commonName: 'Compat Root',
    });
    const legacy = await t.call('POST', '/api/v1/pki/ca', {
      body: {
        projectSlug: project.slug,
        type: 'root',
        commonName: 'Legacy',
        organization: '',
        ou: '',
        country: '',
        province: '',
        locality: '',
      },
    });
    const viaCertManager = await t.call('GET', `/api/v1/cert-manager/ca/internal/${legacy.body.ca.id}`);
    expect(viaCertManager.body).toMatchObject({
      id: legacy.body.ca.id,
      configuration: { commonName: 'Legacy' },
    });
    const duplicate = await t.call('POST', '/api/v1/cert-manager/ca/internal', {
      body: { name: 'compat-root', projectId: project.id, status: 'active', configuration },
    });
    expect(duplicate.status).toBe(400);
    expect(created.body.disableDirectIssuance).toBe(false);
    const updated = await t.call('PATCH', `/api/v1/cert-manager/ca/internal/${id}`, {
      body: { status: 'disabled', disableDirectIssuance: true },
    });
    expect(updated.body).toMatchObject({ status: 'disabled', disableDirectIssuance: true });
    expect((await t.call('GET', `/api/v1/cert-manager/ca/internal/${id}`)).body.disableDirectIssuance).toBe(
      true,
    );
    expect((await t.call('GET', `/api/v1/pki/ca/${id}`)).body.ca.status).toBe('disabled');
    expect((await t.call('DELETE', `/api/v1/cert-manager/ca/internal/${id}`)).body.id).toBe(id);
    expect((await t.call('GET', `/api/v1/cert-manager/ca/internal/${id}`)).status).toBe(404);
    expect((await t.call('GET', `/api/v1/pki/ca/${id}`)).status).toBe(404);
  });

  it('refuses a caller without certificate-authorities permissions (403) and a bad body (422)', async () => {
    const viewer = await member('no-access');
    const denied = await t.call('POST', '/api/v1/cert-manager/ca/internal', {
      token: viewer.token,
      body: { name: 'nope', projectId: project.id, status: 'active', configuration },
    });
    expect(denied.status).toBe(403);
    const bad = await t.call('POST', '/api/v1/cert-manager/ca/internal', {
      body: { name: 'nope', projectId: project.id, status: 'active', configuration: { type: 'root' } },
    });
    expect(bad.status).toBe(422);
  });
});
