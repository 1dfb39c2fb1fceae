// Times the operator would compute past what Kubernetes and the service can store (year 9999):
// a temporary AdditionalPrivilege whose start plus range ends after 9999-12-31T23:59:59Z is
// Synced=False reason InvalidSpec naming the field, terminal, and nothing is written to the
// service; so is a new range from a window start kept from the service. The CRD's own bounds
// (range, start, poll interval, rotation, validity) are in the shared bad-input table
// (test/unit/crds-time-cases.ts), which test/integration/crds.test.ts runs against the API server.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { additionalPrivilegeController } from '../../src/controllers/additional-privilege/index.ts';
import { identityController } from '../../src/controllers/identity/index.ts';
import { projectController } from '../../src/controllers/project/index.ts';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

let h: OperatorHarness;
const connectionRef = { name: HARNESS_CONNECTION };
const suffix = randomBytes(3).toString('hex');

beforeAll(async () => {
  h = await startOperatorHarness({
    operator: { kinds: [projectController, identityController, additionalPrivilegeController] },
  });
  await h.create('Project', 'shop', { connectionRef, name: 'Shop', slug: `shop-${suffix}` });
  await h.waitForReady('Project', 'shop');
  await h.create('Identity', 'bot', {
    connectionRef,
    name: `bot-${suffix}`,
    projectMemberships: [{ projectRef: { name: 'shop' }, roles: [{ role: 'viewer' }] }],
  });
  await h.waitForReady('Identity', 'bot');
});

afterAll(async () => {
  await h?.stop();
});

const spec = (slug: string, temporary: Record<string, unknown>) => ({
  connectionRef,
  identityRef: { name: 'bot' },
  projectRef: { name: 'shop' },
  slug,
  permissions: [{ subject: 'secrets', action: 'read' }],
  temporary,
});

/** Requests to the privilege routes so far, whatever the answer. */
function privilegeRequests(): number {
  return Object.entries(h.devserver.stats.requests.byRoute)
    .filter(([route]) => route.includes('additional-privilege') && !route.startsWith('GET'))
    .reduce((sum, [, n]) => sum + n, 0);
}

async function syncedMessage(name: string, reason: string): Promise<string> {
  const obj = await h.waitForCondition('AdditionalPrivilege', name, {
    type: 'Synced',
    status: 'False',
    reason,
  });
  return obj.status?.conditions?.find((c) => c.type === 'Synced')?.message ?? '';
}

describe('time bounds', () => {
  it('reports a window ending after year 9999 as InvalidSpec naming startTime, writing nothing', async () => {
    const before = privilegeRequests();
    await h.create(
      'AdditionalPrivilege',
      'far',
      spec('far', { range: '1y', startTime: '9999-06-01T00:00:00Z' }),
    );
    const message = await syncedMessage('far', 'InvalidSpec');
    expect(message).toContain('spec.temporary.startTime');
    expect(message).toContain('9999-12-31T23:59:59Z');
    expect(privilegeRequests()).toBe(before);
  });

  it('reports a new range from a kept year-9999 start as InvalidSpec naming range', async () => {
    await h.create(
      'AdditionalPrivilege',
      'late',
      spec('late', { range: '1h', startTime: '9999-12-31T20:00:00Z' }),
    );
    await h.waitForCondition('AdditionalPrivilege', 'late', {
      type: 'Ready',
      status: 'False',
      reason: 'NotYetActive',
    });
    // Without startTime the window keeps the service's start; a year from there cannot be stored.
    await h.patch('AdditionalPrivilege', 'late', { spec: { temporary: { range: '1y', startTime: null } } });
    const message = await syncedMessage('late', 'InvalidSpec');
    expect(message).toContain('spec.temporary.range');
    expect(message).toContain('the window from 9999-12-31T20:00:00');
  });
});
