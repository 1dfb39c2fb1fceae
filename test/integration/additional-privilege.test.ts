// AdditionalPrivilege against the real control plane and a devserver, what is particular to it:
// create and read back, invalid input, a missing project membership (MembershipMissing until the
// Identity gets one), and a temporary privilege that expires visibly and is renewed exactly once
// by `renew: true`. What every managed kind shares (update, drift, adoption, ObserveOnly,
// AlreadyExists, deletion policies, a missing connection) is conformance.test.ts.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { additionalPrivilegeController } from '../../src/controllers/additional-privilege/index.ts';
import { identityController } from '../../src/controllers/identity/index.ts';
import { projectController } from '../../src/controllers/project/index.ts';
import { statusCodeOf, waitFor } from '../support/kube.ts';
import {
  HARNESS_CONNECTION,
  startOperatorHarness,
  type CofferObject,
  type OperatorHarness,
} from '../support/operator.ts';

let h: OperatorHarness;
let projectId = '';
let botId = '';
const connectionRef = { name: HARNESS_CONNECTION };
const suffix = randomBytes(3).toString('hex');
const viewerOfShop = [{ projectRef: { name: 'shop' }, roles: [{ role: 'viewer' }] }];

beforeAll(async () => {
  h = await startOperatorHarness({
    operator: { kinds: [projectController, identityController, additionalPrivilegeController] },
  });
  await h.create('Project', 'shop', {
    connectionRef,
    name: 'Shop',
    slug: `shop-${suffix}`,
    deletionPolicy: 'Delete',
  });
  projectId = (await h.waitForReady('Project', 'shop')).status?.id ?? '';
  await h.create('Identity', 'bot', {
    connectionRef,
    name: `bot-${suffix}`,
    projectMemberships: viewerOfShop,
  });
  botId = (await h.waitForReady('Identity', 'bot')).status?.id ?? '';
});

afterAll(async () => {
  await h?.stop();
});

const readDev = { subject: 'secrets', action: 'read', conditions: { environment: 'dev' } };
const spec = (slug: string, extra: Record<string, unknown> = {}) => ({
  connectionRef,
  identityRef: { name: 'bot' },
  projectRef: { name: 'shop' },
  slug,
  permissions: [readDev],
  ...extra,
});

async function servicePrivilege(id: string) {
  return h.service.privileges.get(id);
}

function condition(obj: CofferObject, type: string) {
  return obj.status?.conditions?.find((c) => c.type === type);
}

function waitForExpired(name: string): Promise<CofferObject> {
  return h.waitForCondition('AdditionalPrivilege', name, {
    type: 'Ready',
    status: 'False',
    reason: 'Expired',
  });
}

/** Requests a reconcile and waits until the operator handled it. */
async function reconcileNow(name: string): Promise<void> {
  const requested = await h.requestReconcile('AdditionalPrivilege', name);
  const value = requested.metadata.annotations?.['coffer.dev/reconcile-requested-at'];
  await waitFor(
    async () => (await h.get('AdditionalPrivilege', name))?.status?.lastHandledReconcileAt === value,
    {
      message: 'the requested reconcile handled',
    },
  );
}

describe('AdditionalPrivilege', () => {
  let id = '';

  it('creates a permanent privilege and reads it back', async () => {
    await h.create('AdditionalPrivilege', 'extra', spec('extra'));
    const ready = await h.waitForReady('AdditionalPrivilege', 'extra');
    id = ready.status?.id ?? '';
    const membership = await h.service.memberships.get(projectId, botId);
    expect(ready.status).toMatchObject({ projectMembershipId: membership.id, isTemporary: false });
    const stored = await servicePrivilege(id);
    expect(stored).toMatchObject({ slug: 'extra', isTemporary: false });
    expect(stored.permissions).toEqual([
      { subject: 'secrets', action: ['read'], conditions: { environment: 'dev' }, inverted: false },
    ]);
  });

  it('is refused by the API server without permissions or with a malformed range', async () => {
    const empty = await h
      .create('AdditionalPrivilege', 'empty', spec('empty', { permissions: [] }))
      .catch((e: unknown) => e);
    expect(statusCodeOf(empty)).toBe(422);
    expect(String((empty as { body?: unknown }).body)).toContain('should have at least 1 items');
    const range = await h
      .create('AdditionalPrivilege', 'range', spec('range', { temporary: { range: '1 hour' } }))
      .catch((e: unknown) => e);
    expect(statusCodeOf(range)).toBe(422);
    expect(String((range as { body?: unknown }).body)).toContain('spec.temporary.range');
  });

  it('reports MembershipMissing until the identity becomes a member of the project', async () => {
    await h.create('Identity', 'loner', { connectionRef, name: `loner-${suffix}` });
    await h.waitForReady('Identity', 'loner');
    await h.create('AdditionalPrivilege', 'lonely', { ...spec('lonely'), identityRef: { name: 'loner' } });
    const waiting = await h.waitForCondition('AdditionalPrivilege', 'lonely', {
      type: 'Synced',
      status: 'False',
      reason: 'MembershipMissing',
    });
    expect(condition(waiting, 'Synced')?.message).toContain('identity loner is not a member of project shop');
    await h.patch('Identity', 'loner', { spec: { projectMemberships: viewerOfShop } });
    const ready = await h.waitForReady('AdditionalPrivilege', 'lonely');
    expect((await servicePrivilege(ready.status?.id ?? '')).slug).toBe('lonely');
  });

  it('expires visibly and renews exactly once when renew is set', async () => {
    await h.create('AdditionalPrivilege', 'brief', spec('brief', { temporary: { range: '3s' } }));
    const expired = await waitForExpired('brief');
    expect(condition(expired, 'Synced')?.status).toBe('True');
    expect(condition(expired, 'Ready')?.message).toContain('set renew: true');
    const firstEnd = String(expired.status?.temporaryAccessEndTime);
    const stored = await servicePrivilege(expired.status?.id ?? '');
    expect(stored).toMatchObject({ isTemporary: true, temporaryRange: '3s' });
    expect(Date.parse(String(stored.temporaryAccessEndTime))).toBe(Date.parse(firstEnd));

    const patched = await h.patch('AdditionalPrivilege', 'brief', { spec: { renew: true } });
    const renewed = await waitFor(
      async () => {
        const obj = await h.get('AdditionalPrivilege', 'brief');
        return obj?.status?.renewedGeneration === patched.metadata.generation ? obj : undefined;
      },
      { timeoutMs: 15_000, message: 'the renewal recorded in status' },
    );
    const renewedStart = String(renewed.status?.temporaryAccessStartTime);
    expect(Date.parse(renewedStart)).toBeGreaterThanOrEqual(Date.parse(firstEnd));

    const again = await waitForExpired('brief');
    expect(condition(again, 'Ready')?.message).toContain(
      'renew already granted a window for this generation',
    );
    expect(String(again.status?.temporaryAccessStartTime)).toBe(renewedStart);

    // No silent re-grant: another reconcile leaves the ended window as it is.
    await reconcileNow('brief');
    const after = await servicePrivilege(again.status?.id ?? '');
    expect(Date.parse(String(after.temporaryAccessStartTime))).toBe(Date.parse(renewedStart));
  });

  it('never logs the connection token', () => {
    expect(h.logs()).not.toContain(h.admin.token);
  });
});
