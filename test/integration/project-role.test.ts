// ProjectRole against the real control plane and a devserver, what is particular to it: create
// and read back, a role still used by a membership (RoleInUse, then deleted once the membership
// is gone), a predefined slug and an uncheckable action refused. What every managed kind shares
// (update, drift, adoption, ObserveOnly, AlreadyExists, deletion policies, a missing connection)
// is conformance.test.ts.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityController } from '../../src/controllers/identity/index.ts';
import { projectRoleController } from '../../src/controllers/project-role/index.ts';
import { projectController } from '../../src/controllers/project/index.ts';
import { statusCodeOf } from '../support/kube.ts';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

let h: OperatorHarness;
let projectId = '';
const connectionRef = { name: HARNESS_CONNECTION };

beforeAll(async () => {
  h = await startOperatorHarness({
    operator: { kinds: [projectController, identityController, projectRoleController] },
  });
  await h.create('Project', 'shop', {
    connectionRef,
    name: 'Shop',
    slug: `shop-${randomBytes(3).toString('hex')}`,
    deletionPolicy: 'Delete',
  });
  projectId = (await h.waitForReady('Project', 'shop')).status?.id ?? '';
});

afterAll(async () => {
  await h?.stop();
});

const readRule = {
  subject: 'secrets',
  action: 'read',
  conditions: { environment: 'dev', secretPath: { $glob: '/**' } },
};
const spec = (slug: string, extra: Record<string, unknown> = {}) => ({
  connectionRef,
  projectRef: { name: 'shop' },
  slug,
  name: `Role ${slug}`,
  permissions: [readRule],
  ...extra,
});

async function serviceRole(slug: string) {
  return h.service.roles.getBySlug(projectId, slug);
}

async function roleGone(slug: string): Promise<boolean> {
  return serviceRole(slug).then(
    () => false,
    (error: unknown) => (error as { status?: number }).status === 404,
  );
}

function condition(obj: { status?: { conditions?: { type: string; message?: string }[] } }, type: string) {
  return obj.status?.conditions?.find((c) => c.type === type);
}

describe('ProjectRole', () => {
  it('creates the role and reads it back', async () => {
    await h.create('ProjectRole', 'reader', spec('reader', { description: 'Reads dev' }));
    const ready = await h.waitForReady('ProjectRole', 'reader');
    expect(ready.status).toMatchObject({ slug: 'reader', projectId });
    const stored = await serviceRole('reader');
    expect(stored).toMatchObject({ id: ready.status?.id, name: 'Role reader', description: 'Reads dev' });
    expect(stored.permissions).toEqual([
      {
        subject: 'secrets',
        action: ['read'],
        conditions: { environment: 'dev', secretPath: { $glob: '/**' } },
        inverted: false,
      },
    ]);
  });

  it('waits with RoleInUse while a membership uses the role, then deletes it', async () => {
    await h.create('Identity', 'bot', {
      connectionRef,
      name: `bot-${randomBytes(3).toString('hex')}`,
      projectMemberships: [{ projectRef: { name: 'shop' }, roles: [{ projectRoleRef: { name: 'reader' } }] }],
    });
    await h.waitForReady('Identity', 'bot');
    await h.delete('ProjectRole', 'reader');
    const blocked = await h.waitForCondition(
      'ProjectRole',
      'reader',
      { type: 'Synced', status: 'False', reason: 'RoleInUse' },
      { current: false },
    );
    expect(condition(blocked, 'Synced')?.message).toContain('Role is assigned to 1 identity membership');
    expect(await roleGone('reader')).toBe(false);
    await h.delete('Identity', 'bot');
    await h.waitForDeletion('Identity', 'bot');
    await h.waitForDeletion('ProjectRole', 'reader');
    expect(await roleGone('reader')).toBe(true);
  });

  it('is refused by the API server for a predefined slug', async () => {
    const refused = await h.create('ProjectRole', 'admin', spec('admin')).catch((e: unknown) => e);
    expect(statusCodeOf(refused)).toBe(422);
    expect(String((refused as { body?: unknown }).body)).toContain('slug must not be a predefined role slug');
  });

  it('reports an action the API server cannot check as InvalidSpec', async () => {
    await h.create(
      'ProjectRole',
      'numeric',
      spec('numeric', { permissions: [{ subject: 'secrets', action: 7 }] }),
    );
    const invalid = await h.waitForCondition('ProjectRole', 'numeric', {
      type: 'Synced',
      status: 'False',
      reason: 'InvalidSpec',
    });
    expect(condition(invalid, 'Synced')?.message).toContain('spec.permissions[0].action');
    expect(await roleGone('numeric')).toBe(true);
  });

  it('never logs the connection token', () => {
    expect(h.logs()).not.toContain(h.admin.token);
  });
});
