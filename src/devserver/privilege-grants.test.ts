/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- the tests read fields of arbitrary JSON answers */
// Who may grant project access to identities, over HTTP: every grant path (additional privileges
// v1 and v2, identity memberships on both paths) refuses an actor without `grant-privileges` on
// `identity` with the service's 403, and admins keep working.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIdentityWithToken, startTestServer, type TestServer } from './test-support.ts';

let t: TestServer;
let orgId: string;
let projectId: string;
let projectSlug: string;
/** A non-admin identity with the project `member` role. */
let member: { identityId: string; token: string };
/** Another identity with a `no-access` membership: the one access is granted to. */
let target: { identityId: string; token: string };

const v2 = '/api/v2/identity-project-additional-privilege';
const v1 = '/api/v1/additional-privilege/identity';
const membership = (identityId: string) =>
  `/api/v1/projects/${projectId}/memberships/identities/${identityId}`;
const deprecatedMembership = (identityId: string) =>
  `/api/v2/workspace/${projectId}/identity-memberships/${identityId}`;
const everything = [
  { subject: 'role', action: ['read', 'create', 'edit', 'delete'] },
  { subject: 'identity', action: ['read', 'create', 'edit', 'delete', 'grant-privileges'] },
  { subject: 'member', action: ['read', 'create', 'edit', 'delete', 'grant-privileges'] },
];
const readDev = [{ subject: 'secrets', action: ['read'], conditions: { environment: 'dev' } }];

function refusal(operation: string) {
  return {
    statusCode: 403,
    error: 'PermissionBoundaryError',
    message: `${operation}. Actor is missing permission grant-privileges on identity`,
    details: { missingPermissions: [{ action: 'grant-privileges', subject: 'identity' }] },
  };
}
const privilegeRefusal = refusal('Failed to update more privileged actor');

function privilegeBody(identityId: string, slug: string, permissions: unknown[]) {
  return { identityId, projectId, slug, permissions, type: { isTemporary: false } };
}

async function rolesOf(identityId: string): Promise<string[]> {
  const res = await t.call('GET', membership(identityId));
  const roles = res.body.identityMembership.roles as Array<{ role: string }>;
  return roles.map((r) => r.role);
}

beforeEach(async () => {
  t = await startTestServer();
  ({ orgId } = await t.bootstrap());
  const project = await t.call('POST', '/api/v2/workspace', { body: { projectName: 'Grants' } });
  projectId = project.body.project.id;
  projectSlug = project.body.project.slug;
  member = await createIdentityWithToken(t, orgId);
  target = await createIdentityWithToken(t, orgId);
  await t.call('POST', membership(member.identityId), { body: { role: 'member' } });
  await t.call('POST', membership(target.identityId), { body: { role: 'no-access' } });
});

afterEach(async () => {
  await t.close();
});

describe('additional privileges', () => {
  it('refuses a member creating a privilege, for itself or another, even one it holds', async () => {
    const self = await t.call('POST', v2, {
      token: member.token,
      body: privilegeBody(member.identityId, 'escalate', everything),
    });
    expect(self.status).toBe(403);
    expect(self.body).toMatchObject(privilegeRefusal);
    const narrower = await t.call('POST', v2, {
      token: member.token,
      body: privilegeBody(target.identityId, 'read-dev', readDev),
    });
    expect(narrower.body).toMatchObject(privilegeRefusal);
    const listed = await t.call('GET', `${v2}?identityId=${member.identityId}&projectId=${projectId}`);
    expect(listed.body.privileges).toEqual([]);
    const byAdmin = await t.call('POST', v2, { body: privilegeBody(target.identityId, 'read-dev', readDev) });
    expect(byAdmin.status).toBe(200);
  });

  it('refuses a member updating a privilege by id (v2) and by slug (v1); an admin may', async () => {
    const created = await t.call('POST', v2, { body: privilegeBody(member.identityId, 'mine', readDev) });
    const id = created.body.privilege.id as string;
    const byId = await t.call('PATCH', `${v2}/${id}`, {
      token: member.token,
      body: { slug: 'mine', permissions: everything, type: { isTemporary: false } },
    });
    expect(byId.body).toMatchObject(privilegeRefusal);
    const v1Body = (permissions: unknown[]) => ({
      privilegeSlug: 'mine',
      identityId: member.identityId,
      projectSlug,
      privilegeDetails: { permissions },
    });
    const bySlug = await t.call('PATCH', v1, {
      token: member.token,
      body: v1Body([{ action: 'edit', subject: 'role' }]),
    });
    expect(bySlug.body).toMatchObject(privilegeRefusal);
    const stored = await t.call('GET', `${v2}/${id}`);
    expect(stored.body.privilege.permissions).toEqual([
      { subject: 'secrets', action: ['read'], conditions: { environment: 'dev' }, inverted: false },
    ]);
    const adminById = await t.call('PATCH', `${v2}/${id}`, {
      body: { slug: 'mine', permissions: everything, type: { isTemporary: false } },
    });
    expect(adminById.status).toBe(200);
    expect((await t.call('PATCH', v1, { body: v1Body([{ action: 'read', subject: 'role' }]) })).status).toBe(
      200,
    );
  });

  it('lets an actor holding grant-privileges (even limited to one identity) grant more than it holds', async () => {
    await t.call('POST', v2, {
      body: privilegeBody(member.identityId, 'granter', [
        { subject: 'identity', action: ['grant-privileges'], conditions: { identityId: target.identityId } },
      ]),
    });
    const granted = await t.call('POST', v2, {
      token: member.token,
      body: privilegeBody(target.identityId, 'roles', [{ subject: 'role', action: ['create'] }]),
    });
    expect(granted.status).toBe(200);
    const promoted = await t.call('PATCH', membership(target.identityId), {
      token: member.token,
      body: { roles: [{ role: 'admin' }] },
    });
    expect(promoted.status).toBe(200);
    expect(await rolesOf(target.identityId)).toEqual(['admin']);
  });
});

describe('identity memberships', () => {
  const updateRefusal = refusal('Failed to update identity project membership');

  it('refuses a member promoting itself or another identity to admin, on both paths', async () => {
    const self = await t.call('PATCH', membership(member.identityId), {
      token: member.token,
      body: { roles: [{ role: 'admin' }] },
    });
    expect(self.status).toBe(403);
    expect(self.body).toMatchObject(updateRefusal);
    const other = await t.call('PATCH', membership(target.identityId), {
      token: member.token,
      body: { roles: [{ role: 'viewer' }] },
    });
    expect(other.body).toMatchObject(updateRefusal);
    const deprecated = await t.call('PATCH', deprecatedMembership(target.identityId), {
      token: member.token,
      body: { roles: [{ role: 'admin' }] },
    });
    expect(deprecated.body).toMatchObject(updateRefusal);
    expect(await rolesOf(member.identityId)).toEqual(['member']);
    expect(await rolesOf(target.identityId)).toEqual(['no-access']);
  });

  it('lets a member assign only no-access, and an admin anything', async () => {
    const lowered = await t.call('PATCH', membership(target.identityId), {
      token: member.token,
      body: { roles: [{ role: 'no-access' }] },
    });
    expect(lowered.status).toBe(200);
    const promoted = await t.call('PATCH', deprecatedMembership(target.identityId), {
      body: { roles: [{ role: 'admin' }] },
    });
    expect(promoted.status).toBe(200);
    expect(await rolesOf(target.identityId)).toEqual(['admin']);
  });

  it('refuses a member creating a membership with a role; no-access (the default) is allowed', async () => {
    const createRefusal = refusal('Failed to create identity project membership');
    const fresh = await createIdentityWithToken(t, orgId);
    const withRole = await t.call('POST', membership(fresh.identityId), {
      token: member.token,
      body: { roles: [{ role: 'viewer' }] },
    });
    expect(withRole.body).toMatchObject(createRefusal);
    const deprecated = await t.call('POST', deprecatedMembership(fresh.identityId), {
      token: member.token,
      body: { role: 'admin' },
    });
    expect(deprecated.body).toMatchObject(createRefusal);
    expect((await t.call('GET', membership(fresh.identityId))).status).toBe(404);
    const plain = await t.call('POST', membership(fresh.identityId), { token: member.token, body: {} });
    expect(plain.status).toBe(200);
    expect(await rolesOf(fresh.identityId)).toEqual(['no-access']);
  });

  it('lets a project admin that is not an org admin promote others', async () => {
    const projectAdmin = await createIdentityWithToken(t, orgId);
    await t.call('POST', membership(projectAdmin.identityId), { body: { role: 'admin' } });
    const promoted = await t.call('PATCH', membership(target.identityId), {
      token: projectAdmin.token,
      body: { roles: [{ role: 'member' }] },
    });
    expect(promoted.status).toBe(200);
    const granted = await t.call('POST', v2, {
      token: projectAdmin.token,
      body: privilegeBody(target.identityId, 'extra', everything),
    });
    expect(granted.status).toBe(200);
  });
});

describe('roles', () => {
  // The service checks `create`/`edit` on `role` for project roles (no boundary beyond that): a
  // member, whose role only reads roles, cannot write one with more than it holds; an admin can.
  it('refuses a member creating or widening a custom role; an admin may', async () => {
    const roles = `/api/v2/workspace/${projectId}/roles`;
    const created = await t.call('POST', roles, {
      token: member.token,
      body: { slug: 'everything', name: 'Everything', permissions: everything },
    });
    expect(created.status).toBe(403);
    const byAdmin = await t.call('POST', roles, {
      body: { slug: 'reader', name: 'Reader', permissions: readDev },
    });
    expect(byAdmin.status).toBe(200);
    const widened = await t.call('PATCH', `${roles}/${byAdmin.body.role.id}`, {
      token: member.token,
      body: { permissions: everything },
    });
    expect(widened.status).toBe(403);
    const stored = await t.call('GET', `${roles}/slug/reader`);
    expect(stored.body.role.permissions).toEqual([
      { subject: 'secrets', action: ['read'], conditions: { environment: 'dev' }, inverted: false },
    ]);
  });
});
