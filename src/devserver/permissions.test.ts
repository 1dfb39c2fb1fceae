/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call -- the tests read fields of arbitrary JSON answers */
// Permission enforcement and memberships over HTTP: org roles, project membership roles,
// custom roles, additional privileges and their temporary windows.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIdentityWithToken, startTestServer, type TestServer } from './test-support.ts';

let t: TestServer;
let orgId: string;
let projectId: string;
let projectSlug: string;

beforeEach(async () => {
  t = await startTestServer();
  ({ orgId } = await t.bootstrap());
  const project = await t.call('POST', '/api/v2/workspace', { body: { projectName: 'Perm' } });
  projectId = project.body.project.id;
  projectSlug = project.body.project.slug;
});

afterEach(async () => {
  await t.close();
});

const membership = (identityId: string) =>
  `/api/v1/projects/${projectId}/memberships/identities/${identityId}`;
const secrets = () => `/api/v3/secrets/raw?workspaceId=${projectId}&environment=dev`;

describe('organisation roles', () => {
  it('lets only org admins manage identities', async () => {
    const member = await createIdentityWithToken(t, orgId, { role: 'member' });
    const res = await t.call('POST', '/api/v1/identities', {
      token: member.token,
      body: { name: 'x', organizationId: orgId },
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      error: 'PermissionDenied',
      message: 'You are not allowed to create on identity',
    });
    expect((await t.call('GET', `/api/v1/identities?orgId=${orgId}`, { token: member.token })).status).toBe(
      200,
    );
    const none = await createIdentityWithToken(t, orgId, { role: 'no-access' });
    expect((await t.call('GET', `/api/v1/identities?orgId=${orgId}`, { token: none.token })).status).toBe(
      403,
    );
  });
});

describe('project access', () => {
  it('refuses an identity without membership with 403', async () => {
    const outsider = await createIdentityWithToken(t, orgId, { role: 'member' });
    expect((await t.call('GET', `/api/v1/workspace/${projectId}`, { token: outsider.token })).status).toBe(
      403,
    );
    expect((await t.call('GET', secrets(), { token: outsider.token })).status).toBe(403);
  });

  it('gives viewers read access only, with a 404 for an unknown role and a 400 for a second membership', async () => {
    const viewer = await createIdentityWithToken(t, orgId);
    expect(
      (await t.call('POST', membership(viewer.identityId), { body: { roles: [{ role: 'ghost' }] } })).status,
    ).toBe(404);
    const created = await t.call('POST', membership(viewer.identityId), { body: { role: 'viewer' } });
    expect(created.body.identityMembership.roles[0]).toMatchObject({ role: 'viewer', isTemporary: false });
    expect((await t.call('POST', membership(viewer.identityId), { body: { role: 'viewer' } })).status).toBe(
      400,
    );
    expect((await t.call('GET', secrets(), { token: viewer.token })).status).toBe(200);
    const write = await t.call('POST', `/api/v1/workspace/${projectId}/environments`, {
      token: viewer.token,
      body: { name: 'X', slug: 'x' },
    });
    expect(write.status).toBe(403);
    expect(write.body.message).toBe('You are not allowed to create on environments');
    const list = await t.call('GET', `/api/v1/projects/${projectId}/memberships/identities`);
    expect(list.body.totalCount).toBe(2);
  });

  it('computes temporary role windows and only honours them inside the window', async () => {
    const temp = await createIdentityWithToken(t, orgId);
    const start = new Date(t.clock.now + 60_000).toISOString();
    const res = await t.call('POST', membership(temp.identityId), {
      body: {
        roles: [
          {
            role: 'member',
            isTemporary: true,
            temporaryMode: 'relative',
            temporaryRange: '1h',
            temporaryAccessStartTime: start,
          },
        ],
      },
    });
    expect(res.body.identityMembership.roles[0].temporaryAccessEndTime).toBe(
      new Date(t.clock.now + 60_000 + 3_600_000).toISOString(),
    );
    expect((await t.call('GET', secrets(), { token: temp.token })).status).toBe(403);
    t.clock.now += 120_000;
    expect((await t.call('GET', secrets(), { token: temp.token })).status).toBe(200);
    t.clock.now += 3_600_000;
    expect((await t.call('GET', secrets(), { token: temp.token })).status).toBe(403);
  });

  it('replaces the role set on update and removes privileges with the membership', async () => {
    const who = await createIdentityWithToken(t, orgId);
    await t.call('POST', membership(who.identityId), { body: { role: 'no-access' } });
    const patched = await t.call('PATCH', membership(who.identityId), {
      body: { roles: [{ role: 'viewer' }, { role: 'member' }] },
    });
    expect(patched.body.identityMembership.roles.map((r: { role: string }) => r.role)).toEqual([
      'viewer',
      'member',
    ]);
    expect((await t.call('DELETE', membership(who.identityId))).status).toBe(200);
    expect((await t.call('GET', membership(who.identityId))).status).toBe(404);
  });
});

describe('additional privileges', () => {
  const v2 = '/api/v2/identity-project-additional-privilege';
  const readDev = [
    {
      subject: 'secrets',
      action: ['read'],
      conditions: { environment: 'dev', secretPath: { $glob: '/**' } },
    },
  ];

  it('grants access through a permanent privilege, v2 and v1 views, duplicate slug 400', async () => {
    const who = await createIdentityWithToken(t, orgId);
    const noMembership = await t.call('POST', v2, {
      body: {
        identityId: who.identityId,
        projectId,
        slug: 'p',
        permissions: readDev,
        type: { isTemporary: false },
      },
    });
    expect(noMembership.status).toBe(404);
    await t.call('POST', membership(who.identityId), { body: { role: 'no-access' } });
    expect((await t.call('GET', secrets(), { token: who.token })).status).toBe(403);
    const body = {
      identityId: who.identityId,
      projectId,
      slug: 'read-dev',
      permissions: readDev,
      type: { isTemporary: false },
    };
    const created = await t.call('POST', v2, { body });
    expect(created.status).toBe(200);
    const member = await t.call('GET', membership(who.identityId));
    expect(created.body.privilege.projectMembershipId).toBe(member.body.identityMembership.id);
    expect((await t.call('POST', v2, { body })).status).toBe(400);
    expect((await t.call('GET', secrets(), { token: who.token })).status).toBe(200);
    const staging = await t.call('GET', `/api/v3/secrets/raw?workspaceId=${projectId}&environment=staging`, {
      token: who.token,
    });
    // A rule elsewhere in the project lets the list through; it shows what the rules reach (nothing).
    expect(staging.status).toBe(200);
    expect(staging.body.secrets).toEqual([]);
    const v1 = await t.call(
      'GET',
      `/api/v1/additional-privilege/identity?identityId=${who.identityId}&projectSlug=${projectSlug}`,
    );
    expect(v1.body.privileges[0]).toMatchObject({ slug: 'read-dev', projectMembershipId: projectId });
    const id = created.body.privilege.id as string;
    expect((await t.call('DELETE', `${v2}/${id}`)).status).toBe(200);
    expect((await t.call('GET', `${v2}/${id}`)).status).toBe(404);
  });

  it('computes temporaryAccessEndTime = start + range and updates by id and by slug', async () => {
    const who = await createIdentityWithToken(t, orgId);
    await t.call('POST', membership(who.identityId), { body: { role: 'no-access' } });
    const start = '2030-01-01T00:00:00.000Z';
    const type = {
      isTemporary: true,
      temporaryMode: 'relative',
      temporaryRange: '30m',
      temporaryAccessStartTime: start,
    };
    const created = await t.call('POST', v2, {
      body: { identityId: who.identityId, projectId, slug: 'tmp', permissions: readDev, type },
    });
    expect(created.body.privilege).toMatchObject({
      isTemporary: true,
      temporaryRange: '30m',
      temporaryAccessEndTime: '2030-01-01T00:30:00.000Z',
    });
    expect((await t.call('GET', secrets(), { token: who.token })).status).toBe(200);
    t.clock.now += 31 * 60_000;
    expect((await t.call('GET', secrets(), { token: who.token })).status).toBe(403);
    const id = created.body.privilege.id as string;
    const permanent = await t.call('PATCH', `${v2}/${id}`, {
      body: { slug: 'tmp2', type: { isTemporary: false } },
    });
    expect(permanent.body.privilege).toMatchObject({ slug: 'tmp2', isTemporary: false });
    expect((await t.call('GET', secrets(), { token: who.token })).status).toBe(200);
    const v1 = await t.call('PATCH', '/api/v1/additional-privilege/identity', {
      body: {
        privilegeSlug: 'tmp2',
        identityId: who.identityId,
        projectSlug,
        privilegeDetails: { slug: 'tmp3' },
      },
    });
    expect(v1.status).toBe(401);
    const v1ok = await t.call('PATCH', '/api/v1/additional-privilege/identity', {
      body: {
        privilegeSlug: 'tmp2',
        identityId: who.identityId,
        projectSlug,
        privilegeDetails: {
          slug: 'tmp3',
          privilegePermission: { actions: ['read'], subject: 'secrets', conditions: { environment: 'prod' } },
        },
      },
    });
    expect(v1ok.body.privilege.slug).toBe('tmp3');
    // The privilege now reaches prod only: the dev list answers 200 and shows none of its secrets.
    const seeded = await t.call('POST', '/api/v3/secrets/raw/IN_DEV', {
      body: { workspaceId: projectId, environment: 'dev', secretValue: 'v' },
    });
    expect(seeded.status).toBe(200);
    const devList = await t.call('GET', secrets(), { token: who.token });
    expect(devList.status).toBe(200);
    expect(devList.body.secrets).toEqual([]);
  });
});

describe('custom roles', () => {
  it('grants what the role rules allow, and nothing more', async () => {
    await t.call('POST', `/api/v2/workspace/${projectId}/roles`, {
      body: {
        slug: 'env-admin',
        name: 'Env admin',
        permissions: [{ subject: 'environments', action: ['read', 'create'] }],
      },
    });
    const who = await createIdentityWithToken(t, orgId);
    await t.call('POST', membership(who.identityId), { body: { role: 'env-admin' } });
    const env = await t.call('POST', `/api/v1/workspace/${projectId}/environments`, {
      token: who.token,
      body: { name: 'E', slug: 'e' },
    });
    expect(env.status).toBe(200);
    expect((await t.call('GET', secrets(), { token: who.token })).status).toBe(403);
  });
});
