/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- the tests read fields of arbitrary JSON answers */
// Response shapes of roles, additional privileges and membership roles over HTTP: rules always
// carry `inverted`, stored times come back with millisecond precision, and the v2 privilege
// responses carry the membership's id.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIdentityWithToken, startTestServer, type TestServer } from './test-support.ts';

let t: TestServer;
let orgId: string;
let projectId: string;
let projectSlug: string;
let identityId: string;
let membershipId: string;

const v2 = '/api/v2/identity-project-additional-privilege';
const roles = () => `/api/v2/workspace/${projectId}/roles`;
const membership = (id: string) => `/api/v1/projects/${projectId}/memberships/identities/${id}`;
const readDev = [{ subject: 'secrets', action: ['read'], conditions: { environment: 'dev' } }];
const returnedReadDev = [{ ...readDev[0], inverted: false }];

beforeEach(async () => {
  t = await startTestServer();
  ({ orgId } = await t.bootstrap());
  const project = await t.call('POST', '/api/v2/workspace', { body: { projectName: 'Shapes' } });
  projectId = project.body.project.id;
  projectSlug = project.body.project.slug;
  ({ identityId } = await createIdentityWithToken(t, orgId));
  const created = await t.call('POST', membership(identityId), { body: { role: 'no-access' } });
  membershipId = created.body.identityMembership.id;
});

afterEach(async () => {
  await t.close();
});

describe('permission rules carry inverted', () => {
  it('on predefined and custom roles, as created, updated and read by slug', async () => {
    const viewer = await t.call('GET', `${roles()}/slug/viewer`);
    expect(viewer.body.role.permissions.length).toBeGreaterThan(0);
    for (const rule of viewer.body.role.permissions) expect(rule.inverted).toBe(false);
    const permissions = [...readDev, { subject: 'secrets', action: 'delete', inverted: true }];
    const created = await t.call('POST', roles(), { body: { slug: 'reader', name: 'Reader', permissions } });
    const expected = [...returnedReadDev, { subject: 'secrets', action: ['delete'], inverted: true }];
    expect(created.body.role.permissions).toEqual(expected);
    expect((await t.call('GET', `${roles()}/slug/reader`)).body.role.permissions).toEqual(expected);
    const updated = await t.call('PATCH', `${roles()}/${created.body.role.id}`, {
      body: { permissions: readDev },
    });
    expect(updated.body.role.permissions).toEqual(returnedReadDev);
  });

  it('on additional privileges, v2 and v1', async () => {
    const created = await t.call('POST', v2, {
      body: { identityId, projectId, slug: 'p', permissions: readDev, type: { isTemporary: false } },
    });
    expect(created.body.privilege.permissions).toEqual(returnedReadDev);
    const id = created.body.privilege.id as string;
    expect((await t.call('GET', `${v2}/${id}`)).body.privilege.permissions).toEqual(returnedReadDev);
    const v1 = await t.call(
      'GET',
      `/api/v1/additional-privilege/identity?identityId=${identityId}&projectSlug=${projectSlug}`,
    );
    expect(v1.body.privileges[0].permissions).toEqual(returnedReadDev);
  });
});

describe('v2 privilege responses', () => {
  it('carry projectMembershipId, the identity membership id, on every route', async () => {
    const created = await t.call('POST', v2, {
      body: { identityId, projectId, slug: 'p', permissions: readDev, type: { isTemporary: false } },
    });
    expect(created.body.privilege.projectMembershipId).toBe(membershipId);
    const id = created.body.privilege.id as string;
    const answers = [
      (await t.call('GET', `${v2}/${id}`)).body.privilege,
      (await t.call('GET', `${v2}/slug/p?identityId=${identityId}&projectSlug=${projectSlug}`)).body
        .privilege,
      (await t.call('GET', `${v2}?identityId=${identityId}&projectId=${projectId}`)).body.privileges[0],
      (await t.call('PATCH', `${v2}/${id}`, { body: { slug: 'p', type: { isTemporary: false } } })).body
        .privilege,
    ];
    for (const privilege of answers) expect(privilege.projectMembershipId).toBe(membershipId);
  });
});

describe('stored times', () => {
  const precise = '2030-01-01T00:00:00.123456789Z';
  const stored = '2030-01-01T00:00:00.123Z';
  const window = (start: string) => ({
    isTemporary: true,
    temporaryMode: 'relative',
    temporaryRange: '1h',
    temporaryAccessStartTime: start,
  });

  it('privilege start times come back with millisecond precision, v2 and v1', async () => {
    const created = await t.call('POST', v2, {
      body: { identityId, projectId, slug: 'tmp', permissions: readDev, type: window(precise) },
    });
    expect(created.body.privilege).toMatchObject({
      temporaryAccessStartTime: stored,
      temporaryAccessEndTime: '2030-01-01T01:00:00.123Z',
    });
    const id = created.body.privilege.id as string;
    expect((await t.call('GET', `${v2}/${id}`)).body.privilege.temporaryAccessStartTime).toBe(stored);
    const patched = await t.call('PATCH', `${v2}/${id}`, {
      body: { slug: 'tmp', type: window('2030-01-02T00:00:00.5Z') },
    });
    expect(patched.body.privilege.temporaryAccessStartTime).toBe('2030-01-02T00:00:00.500Z');
    const v1 = await t.call('PATCH', '/api/v1/additional-privilege/identity', {
      body: {
        privilegeSlug: 'tmp',
        identityId,
        projectSlug,
        privilegeDetails: {
          ...window('2030-01-03T00:00:00Z'),
          permissions: [{ action: 'read', subject: 'secrets' }],
        },
      },
    });
    expect(v1.body.privilege.temporaryAccessStartTime).toBe('2030-01-03T00:00:00.000Z');
  });

  it('membership role start times come back with millisecond precision', async () => {
    const updated = await t.call('PATCH', membership(identityId), {
      body: { roles: [{ role: 'viewer', ...window(precise) }] },
    });
    expect(updated.body.identityMembership.roles[0]).toMatchObject({
      temporaryAccessStartTime: stored,
      temporaryAccessEndTime: '2030-01-01T01:00:00.123Z',
    });
  });
});
