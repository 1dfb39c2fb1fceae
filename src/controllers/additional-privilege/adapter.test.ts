// The AdditionalPrivilege adapter against a devserver on loopback (the adapter's clock is the
// test's: the devserver only stores the window it is given).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startContract, type Contract } from '../../../test/support/client-contract.ts';
import { additionalPrivilegeSpec, type AdditionalPrivilegeSpec } from '../../api/v1alpha1/index.ts';
import type { ExternalClient } from '../../managed/external-client.ts';
import { WaitingError } from '../../runtime/errors.ts';
import { bound, context, fakeServices, managed, readyObject, resolving, type FakeWorld } from '../testing.ts';
import { additionalPrivilegeAdapter } from './adapter.ts';
import { MEMBERSHIP_MISSING } from './lookup.ts';
import type { PrivilegeStatusFields } from './mapping.ts';
import type { PrivilegeRefs } from './references.ts';
import { EXPIRED } from './window.ts';

type Client = ExternalClient<AdditionalPrivilegeSpec, PrivilegeRefs, PrivilegeStatusFields>;

let contract: Contract;
let project: { id: string; slug: string };
const world: FakeWorld = { objects: {}, secrets: {}, now: new Date() };

beforeAll(async () => {
  contract = await startContract();
  project = await contract.project();
});
afterAll(async () => contract.close());
beforeEach(() => {
  world.now = new Date();
});

/** A new identity that is a member (viewer) of the project, and its refs. */
async function member(): Promise<{ identityId: string; refs: PrivilegeRefs }> {
  const identity = await contract.identity();
  await contract.admin.memberships.create(project.id, identity.id, {
    roles: [{ role: 'viewer', isTemporary: false }],
  });
  const refs = {
    identityId: identity.id,
    projectId: project.id,
    projectSlug: project.slug,
    waitRequeueMs: 3_000,
  };
  return { identityId: identity.id, refs };
}

const privilege = (slug: string, extra: Record<string, unknown> = {}, generation = 1) =>
  managed<AdditionalPrivilegeSpec>(
    'AdditionalPrivilege',
    slug,
    additionalPrivilegeSpec.parse({
      connectionRef: { name: 'c' },
      identityRef: { name: 'bot' },
      projectRef: { name: 'shop' },
      slug,
      permissions: [{ subject: 'secrets', action: 'read', conditions: { environment: 'dev' } }],
      ...extra,
    }),
    { generation },
  );

async function connect(): Promise<Client> {
  const adapter = additionalPrivilegeAdapter(fakeServices(contract.admin, world));
  return adapter.connect(privilege('any'), context({ waitRequeueMs: 1 }));
}

describe('AdditionalPrivilege adapter', () => {
  it('creates a permanent privilege and sees it up to date, with the membership id in status', async () => {
    const { identityId, refs } = await member();
    const obj = privilege('perm');
    const client = await connect();
    expect(await client.observe(obj, context(refs))).toEqual({ exists: false });
    const created = await client.create(obj, context(refs));
    const membership = await contract.admin.memberships.get(project.id, identityId);
    expect(created.status).toEqual({ projectMembershipId: membership.id, isTemporary: false });
    const seen = await client.observe(
      { ...obj, status: { ...created.status } },
      context(refs, created.externalId),
    );
    expect(seen).toMatchObject({ exists: true, upToDate: true, status: created.status });
    expect(client.readyCheck?.(obj, created.status)).toBeUndefined();
    expect(client.requeueAfterMs?.(obj, created.status)).toBeUndefined();
  });

  it('finds a privilege by slug with the v1 list (adoption) and compares its rules semantically', async () => {
    const { identityId, refs } = await member();
    const existing = await contract.admin.privileges.create({
      identityId,
      projectId: project.id,
      slug: 'adopted',
      permissions: [{ subject: 'secrets', action: ['read'], conditions: { environment: { $eq: 'dev' } } }],
      type: { isTemporary: false },
    });
    const client = await connect();
    const obj = privilege('adopted');
    expect(await client.findByNaturalKey(obj, context(refs))).toEqual([
      { id: existing.id, createdAt: expect.any(String) as string },
    ]);
    expect(await client.observe(obj, context(refs))).toMatchObject({
      exists: true,
      upToDate: true,
      externalId: existing.id,
    });
  });

  it('reports drift made in the service and corrects it with one update', async () => {
    const { refs } = await member();
    const obj = privilege('drift');
    const client = await connect();
    const { externalId } = await client.create(obj, context(refs));
    await contract.admin.privileges.update(externalId, {
      slug: 'drift',
      permissions: [{ subject: 'secrets', action: ['read', 'edit'] }],
      type: {
        isTemporary: true,
        temporaryMode: 'relative',
        temporaryRange: '1h',
        temporaryAccessStartTime: world.now.toISOString(),
      },
    });
    expect(await client.observe(obj, context(refs, externalId))).toMatchObject({
      upToDate: false,
      diff: 'permissions, temporary',
    });
    const updated = await client.update(obj, bound(refs, externalId));
    expect(updated.status).toMatchObject({ isTemporary: false });
    expect(await client.observe(obj, context(refs, externalId))).toMatchObject({ upToDate: true });
  });

  it('expires visibly and renews exactly once per generation', async () => {
    const { refs } = await member();
    const client = await connect();
    const obj = privilege('temp', { temporary: { range: '1h' } });
    const created = await client.create(obj, context(refs));
    expect(created.status).toMatchObject({
      isTemporary: true,
      temporaryAccessStartTime: world.now.toISOString(),
    });
    expect(client.readyCheck?.(obj, created.status)).toBeUndefined();
    expect(client.requeueAfterMs?.(obj, created.status)).toBe(3_600_500);

    world.now = new Date(world.now.getTime() + 3_600_001);
    const expired = { ...obj, status: { ...created.status } };
    expect(client.readyCheck?.(expired, created.status)).toMatchObject({ reason: EXPIRED });
    expect(await client.observe(expired, context(refs, created.externalId))).toMatchObject({
      upToDate: true,
    });

    // renew: true is a spec change (generation 2): one fresh window from now.
    const renewing = {
      ...privilege('temp', { temporary: { range: '1h' }, renew: true }, 2),
      status: { ...created.status },
    };
    expect(await client.observe(renewing, context(refs, created.externalId))).toMatchObject({
      upToDate: false,
      diff: 'renewal',
    });
    const renewed = await client.update(renewing, bound(refs, created.externalId));
    expect(renewed.status).toMatchObject({
      renewedGeneration: 2,
      temporaryAccessStartTime: world.now.toISOString(),
    });
    const afterRenewal = { ...renewing, status: { ...renewed.status } };
    expect(client.readyCheck?.(afterRenewal, renewed.status)).toBeUndefined();

    world.now = new Date(world.now.getTime() + 3_600_001);
    expect(client.readyCheck?.(afterRenewal, renewed.status)).toMatchObject({ reason: EXPIRED });
    expect(await client.observe(afterRenewal, context(refs, created.externalId))).toMatchObject({
      upToDate: true,
      status: { renewedGeneration: 2 },
    });
  });

  it('reports MembershipMissing for an identity without membership, on create and on observe', async () => {
    const { identityId, refs } = await member();
    const client = await connect();
    const obj = privilege('orphaned');
    const { externalId } = await client.create(obj, context(refs));
    await contract.admin.memberships.delete(project.id, identityId);
    const observed = await client.observe(obj, context(refs, externalId)).catch((e: unknown) => e);
    expect(observed).toBeInstanceOf(WaitingError);
    expect(observed).toMatchObject({ reason: MEMBERSHIP_MISSING, requeueAfterMs: 3_000 });
    expect((observed as Error).message).toMatch(/identity bot is not a member of project shop/);
    expect(await client.observe(obj, context(refs))).toEqual({ exists: false });
    await expect(client.create(obj, context(refs))).rejects.toMatchObject({ reason: MEMBERSHIP_MISSING });
  });

  it('deletes the privilege', async () => {
    const { refs } = await member();
    const client = await connect();
    const obj = privilege('gone');
    const { externalId } = await client.create(obj, context(refs));
    await client.delete(obj, bound(refs, externalId));
    expect(await client.observe(obj, context(refs, externalId))).toEqual({ exists: false });
  });
});

describe('AdditionalPrivilege references', () => {
  const adapter = () => additionalPrivilegeAdapter(fakeServices(contract.admin, world));
  const obj = privilege('x');

  it('waits for the Identity and the Project', async () => {
    world.objects = { Project: [readyObject('Project', 'shop', 'p-1', { status: { slug: 'shop-slug' } })] };
    await expect(adapter().resolveReferences?.(obj, resolving())).rejects.toMatchObject({
      reason: 'ReferenceNotReady',
      message: 'waiting for Identity bot: it does not exist',
    });
  });

  it('resolves ids and the project slug', async () => {
    const identity = readyObject('Identity', 'bot', 'i-1');
    world.objects = {
      Identity: [identity],
      Project: [readyObject('Project', 'shop', 'p-1', { status: { slug: 'shop-slug' } })],
    };
    expect(await adapter().resolveReferences?.(obj, resolving())).toEqual({
      identityId: 'i-1',
      identity,
      projectId: 'p-1',
      projectSlug: 'shop-slug',
      waitRequeueMs: 10_000,
    });
  });

  it('resolves what it can while deleting', async () => {
    const identity = readyObject('Identity', 'bot', 'i-1');
    world.objects = { Identity: [identity] };
    expect(await adapter().resolveReferences?.(obj, resolving(true))).toEqual({
      identityId: 'i-1',
      identity,
      waitRequeueMs: 10_000,
    });
  });
});
