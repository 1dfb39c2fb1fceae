// The Identity adapter against a devserver on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContract, type Contract } from '../../../test/support/client-contract.ts';
import { identitySpec, type IdentitySpec } from '../../api/v1alpha1/index.ts';
import { isDeletionBlocked } from '../../client/index.ts';
import type { ExternalClient } from '../../managed/external-client.ts';
import { TerminalError, WaitingError } from '../../runtime/errors.ts';
import {
  bound,
  context,
  fakeServices,
  managed,
  readyObject,
  resolving,
  type FakeWorld,
} from '../project/testing.ts';
import { identityAdapter } from './adapter.ts';
import type { IdentityStatusFields } from './mapping.ts';
import type { IdentityRefs } from './references.ts';

let contract: Contract;
let world: FakeWorld;
let shop: { id: string; slug: string };

beforeAll(async () => {
  contract = await startContract();
  shop = await contract.project();
  world = {
    organizationId: contract.orgId,
    objects: { Project: [readyObject('Project', 'shop', shop.id)] },
    secrets: {},
    now: new Date('2030-01-01T00:00:00Z'),
  };
});
afterAll(async () => contract.close());

type Obj = ReturnType<typeof identity>;
const identity = (name: string, extra: Record<string, unknown> = {}) =>
  managed<IdentitySpec>(
    'Identity',
    name,
    identitySpec.parse({ connectionRef: { name: 'c' }, name, ...extra }),
  );

async function setup(
  obj: Obj,
): Promise<{ client: ExternalClient<IdentitySpec, IdentityRefs, IdentityStatusFields>; refs: IdentityRefs }> {
  const adapter = identityAdapter(fakeServices(contract.admin, world));
  const refs = (await adapter.resolveReferences?.(obj, resolving())) ?? { memberships: [] };
  return { client: await adapter.connect(obj, context(refs)), refs };
}

const shopMembership = (roles: unknown[]) => ({
  projectMemberships: [{ projectRef: { name: 'shop' }, roles }],
});

describe('Identity adapter', () => {
  it('creates an identity with a project membership and publishes its ids', async () => {
    const obj = identity('app-one', {
      outputSecretName: 'app-one-id',
      ...shopMembership([{ role: 'viewer' }]),
    });
    const { client, refs } = await setup(obj);
    expect(await client.observe(obj, context(refs))).toEqual({ exists: false });
    const created = await client.create(obj, context(refs));
    expect(created.status?.memberships).toEqual([{ project: 'shop', projectId: shop.id, roles: ['viewer'] }]);
    expect(created.secretData).toEqual([
      { name: 'app-one-id', data: { identityId: created.externalId, organizationId: contract.orgId } },
    ]);
    const membership = await contract.admin.memberships.get(shop.id, created.externalId);
    expect(membership.roles.map((r) => r.slug)).toEqual(['viewer']);
    obj.status = created.status ?? {};
    const seen = await client.observe(obj, context(refs, created.externalId));
    expect(seen).toMatchObject({ exists: true, upToDate: true, externalId: created.externalId });
  });

  it('corrects settings and membership roles changed in the service', async () => {
    const obj = identity('app-two', { role: 'member', ...shopMembership([{ role: 'viewer' }]) });
    const { client, refs } = await setup(obj);
    const { externalId, status } = await client.create(obj, context(refs));
    obj.status = status ?? {};
    await contract.admin.identities.update(externalId, { role: 'admin' });
    await contract.admin.memberships.update(shop.id, externalId, {
      roles: [{ role: 'admin', isTemporary: false }],
    });
    const drifted = await client.observe(obj, context(refs, externalId));
    expect(drifted).toMatchObject({ upToDate: false, diff: 'role, membership shop roles' });
    await client.update(obj, bound(refs, externalId));
    expect(await client.observe(obj, context(refs, externalId))).toMatchObject({ upToDate: true });
    expect((await contract.admin.identities.get(externalId)).role).toBe('member');
  });

  it('removes a membership it managed once the project is no longer listed', async () => {
    const listed = identity('app-three', shopMembership([{ role: 'viewer' }]));
    const { client, refs } = await setup(listed);
    const { externalId, status } = await client.create(listed, context(refs));
    const unlisted = identity('app-three');
    unlisted.status = status ?? {};
    const next = await setup(unlisted);
    const seen = await next.client.observe(unlisted, context(next.refs, externalId));
    expect(seen).toMatchObject({ upToDate: false, diff: 'membership shop no longer listed' });
    const updated = await next.client.update(unlisted, bound(next.refs, externalId));
    expect(updated.status?.memberships).toEqual([]);
    await expect(contract.admin.memberships.get(shop.id, externalId)).rejects.toMatchObject({ status: 404 });
  });

  it('reports an unknown role slug as UnknownRole before writing the membership', async () => {
    const obj = identity('app-four', shopMembership([{ role: 'no-such-role' }]));
    const { client, refs } = await setup(obj);
    const { externalId } = await client.create(obj, context(refs));
    const error: unknown = await client.update(obj, bound(refs, externalId)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitingError);
    expect(error).toMatchObject({ reason: 'UnknownRole' });
    expect((error as Error).message).toContain('no-such-role');
    expect(client.requeueAfterMs?.(obj, { memberships: [] })).toBe(5_000);
  });

  it('finds identities by name, refuses to guess between two, and honours deletion protection', async () => {
    const obj = identity('app-five', { hasDeleteProtection: true });
    const { client, refs } = await setup(obj);
    const { externalId } = await client.create(obj, context(refs));
    await expect(client.findByNaturalKey(obj, context(refs))).resolves.toEqual([
      { id: externalId, createdAt: expect.any(String) as string },
    ]);
    expect(await client.observe(obj, context(refs))).toMatchObject({ exists: true, externalId });
    const error: unknown = await client.delete(obj, bound(refs, externalId)).catch((e: unknown) => e);
    expect(isDeletionBlocked(error)).toBe(true);
    await contract.admin.identities.create({ name: 'app-five', organizationId: contract.orgId });
    await expect(client.observe(obj, context(refs))).rejects.toBeInstanceOf(TerminalError);
  });

  it('waits for a Project that is not Ready and checks a ProjectRole belongs to the project', async () => {
    const waiting = identity('app-six', {
      projectMemberships: [{ projectRef: { name: 'later' }, roles: [{ role: 'viewer' }] }],
    });
    const adapter = identityAdapter(fakeServices(contract.admin, world));
    await expect(adapter.resolveReferences?.(waiting, resolving())).rejects.toBeInstanceOf(WaitingError);
    await expect(adapter.resolveReferences?.(waiting, resolving(true))).resolves.toEqual({ memberships: [] });
    world.objects.ProjectRole = [
      readyObject('ProjectRole', 'ops', 'r1', { spec: { slug: 'ops', projectRef: { name: 'other' } } }),
      readyObject('ProjectRole', 'dev', 'r2', {
        spec: { slug: 'developer-x', projectRef: { name: 'shop' } },
      }),
    ];
    const wrong = identity('app-six', shopMembership([{ projectRoleRef: { name: 'ops' } }]));
    await expect(adapter.resolveReferences?.(wrong, resolving())).rejects.toBeInstanceOf(TerminalError);
    const right = identity(
      'app-six',
      shopMembership([{ projectRoleRef: { name: 'dev' }, temporary: { range: '1h' } }]),
    );
    await expect(adapter.resolveReferences?.(right, resolving())).resolves.toEqual({
      memberships: [
        {
          project: 'shop',
          projectId: shop.id,
          roles: [{ slug: 'developer-x', known: true, temporary: { range: '1h' } }],
        },
      ],
    });
  });
});
