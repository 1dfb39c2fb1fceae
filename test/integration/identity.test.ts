// Identity against the real control plane and a devserver, what is particular to it: create and
// read back (org role, metadata, a project membership, the output Secret), drift of memberships
// and metadata corrected by the poll, memberships removed when no longer listed, an unknown role
// reported, deletion protection, invalid input. What every managed kind shares (update, drift,
// adoption, ObserveOnly, AlreadyExists, deletion policies, a missing connection) is
// conformance.test.ts.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityController } from '../../src/controllers/identity/index.ts';
import { projectController } from '../../src/controllers/project/index.ts';
import { ANNOTATION_EXTERNAL_ID } from '../../src/runtime/object-meta.ts';
import { statusCodeOf, waitFor } from '../support/kube.ts';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

let h: OperatorHarness;
let projectId = '';
const suffix = randomBytes(3).toString('hex');
const connectionRef = { name: HARNESS_CONNECTION };

beforeAll(async () => {
  h = await startOperatorHarness({ operator: { kinds: [projectController, identityController] } });
  await h.create('Project', 'shop', {
    connectionRef,
    name: 'Shop',
    slug: `shop-${suffix}`,
    deletionPolicy: 'Delete',
  });
  projectId = (await h.waitForReady('Project', 'shop')).status?.id ?? '';
});

afterAll(async () => {
  await h?.stop();
});

const identityName = (base: string) => `${base}-${suffix}`;
const spec = (base: string, extra: Record<string, unknown> = {}) => ({
  connectionRef,
  name: identityName(base),
  ...extra,
});
const shopMembership = (roles: unknown[]) => ({
  projectMemberships: [{ projectRef: { name: 'shop' }, roles }],
});

async function serviceIdentity(id: string) {
  return h.service.identities.get(id);
}

async function gone(id: string): Promise<boolean> {
  return serviceIdentity(id).then(
    () => false,
    (error: unknown) => (error as { status?: number }).status === 404,
  );
}

async function membershipRoles(identityId: string): Promise<string[] | undefined> {
  try {
    return (await h.service.memberships.get(projectId, identityId)).roles.map((r) => r.slug).sort();
  } catch (error) {
    if ((error as { status?: number }).status === 404) return undefined;
    throw error;
  }
}

function message(obj: { status?: { conditions?: { type: string; message?: string }[] } }, type: string) {
  return obj.status?.conditions?.find((c) => c.type === type)?.message ?? '';
}

describe('Identity', () => {
  let id = '';

  it('creates the identity with its membership and output Secret, and reads it back', async () => {
    await h.create(
      'Identity',
      'app',
      spec('app', {
        role: 'member',
        metadata: [{ key: 'team', value: 'payments' }],
        outputSecretName: 'app-identity',
        pollInterval: '10s',
        ...shopMembership([{ role: 'viewer' }]),
      }),
    );
    const ready = await h.waitForReady('Identity', 'app');
    id = ready.status?.id ?? '';
    expect(ready.metadata.annotations?.[ANNOTATION_EXTERNAL_ID]).toBe(id);
    expect(ready.status).toMatchObject({
      organizationId: h.admin.organizationId,
      memberships: [{ project: 'shop', projectId, roles: ['viewer'] }],
    });
    const stored = await serviceIdentity(id);
    expect(stored).toMatchObject({ name: identityName('app'), role: 'member' });
    expect(stored.metadata.map((m) => [m.key, m.value])).toEqual([['team', 'payments']]);
    expect(await membershipRoles(id)).toEqual(['viewer']);
    expect(await h.readSecret('app-identity')).toEqual({
      identityId: id,
      organizationId: h.admin.organizationId,
    });
  });

  // The next three wait (for a poll of 10 s, for a retry) on objects of their own: they run at the
  // same time.
  it.concurrent('corrects drift made in the service on the next poll', async () => {
    await h.service.identities.update(id, { role: 'no-access', metadata: [{ key: 'team', value: 'other' }] });
    await h.service.memberships.update(projectId, id, { roles: [{ role: 'admin', isTemporary: false }] });
    await waitFor(
      async () => {
        const stored = await serviceIdentity(id);
        const roles = await membershipRoles(id);
        return (
          stored.role === 'member' && stored.metadata[0]?.value === 'payments' && roles?.join() === 'viewer'
        );
      },
      { timeoutMs: 30_000, intervalMs: 250, message: 'role, metadata and membership restored by the poll' },
    );
    await h.waitForEvent(
      'app',
      (e) => e.reason === 'UpdatedExternal' && /membership shop roles/.test(e.message ?? ''),
    );
  });

  it.concurrent('reports DeletionBlocked while the service protects the identity', async () => {
    await h.create(
      'Identity',
      'protected',
      spec('protected', { hasDeleteProtection: true, pollInterval: '10s' }),
    );
    const ready = await h.waitForReady('Identity', 'protected');
    const protectedId = ready.status?.id ?? '';
    await h.delete('Identity', 'protected');
    const blocked = await h.waitForCondition('Identity', 'protected', {
      type: 'Synced',
      status: 'False',
      reason: 'DeletionBlocked',
    });
    expect(message(blocked, 'Synced')).toContain('deletion protection');
    await h.service.identities.update(protectedId, { hasDeleteProtection: false });
    await h.waitForDeletion('Identity', 'protected', { timeoutMs: 40_000 });
    expect(await gone(protectedId)).toBe(true);
  });

  it.concurrent('reports a role the project does not have as UnknownRole', async () => {
    await h.create(
      'Identity',
      'unknown-role',
      spec('unknown-role', shopMembership([{ role: 'no-such-role' }])),
    );
    const failed = await h.waitForCondition('Identity', 'unknown-role', {
      type: 'Synced',
      status: 'False',
      reason: 'UnknownRole',
    });
    expect(message(failed, 'Synced')).toContain('no-such-role');
  });

  it('removes the membership once the project is no longer listed', async () => {
    await h.patch('Identity', 'app', { spec: { projectMemberships: [] } });
    await waitFor(async () => (await membershipRoles(id)) === undefined, {
      message: 'the membership removed',
    });
    const ready = await h.waitForReady('Identity', 'app');
    expect(ready.status?.memberships).toEqual([]);
  });

  it('waits for a ProjectRole that does not exist', async () => {
    await h.create(
      'Identity',
      'role-ref',
      spec('role-ref', shopMembership([{ projectRoleRef: { name: 'missing-role' } }])),
    );
    const waiting = await h.waitForCondition('Identity', 'role-ref', {
      type: 'Synced',
      status: 'False',
      reason: 'ReferenceNotReady',
    });
    expect(message(waiting, 'Synced')).toContain('ProjectRole missing-role');
  });

  it('is refused by the API server for invalid specs with readable messages', async () => {
    const cases: { name: string; body: Record<string, unknown>; says: string }[] = [
      { name: 'bad-name', body: { connectionRef, name: 'bad/name' }, says: 'spec.name' },
      {
        name: 'two-sources',
        body: spec('two', shopMembership([{ role: 'viewer', projectRoleRef: { name: 'r' } }])),
        says: 'exactly one of role or projectRoleRef',
      },
      {
        name: 'twice',
        body: spec('twice', {
          projectMemberships: [
            { projectRef: { name: 'shop' }, roles: [{ role: 'viewer' }] },
            { projectRef: { name: 'shop' }, roles: [{ role: 'admin' }] },
          ],
        }),
        says: 'each projectRef may appear only once',
      },
    ];
    for (const c of cases) {
      const refused = await h.create('Identity', c.name, c.body).catch((e: unknown) => e);
      expect(statusCodeOf(refused), c.name).toBe(422);
      expect(String((refused as { body?: unknown }).body), c.name).toContain(c.says);
    }
  });

  it('never logs the connection token', () => {
    expect(h.logs()).not.toContain(h.admin.token);
  });
});
