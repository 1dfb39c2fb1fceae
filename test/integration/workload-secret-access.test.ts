// A WorkloadSecret never reads through credentials of another namespace (real control plane,
// devserver over HTTP). Its connectionRef has no namespace (the CRD refuses one, see
// bad-input-cases.yaml): a Connection is looked up in the WorkloadSecret's own namespace only, so
// naming namespace A's Connection from namespace B waits with ReferenceNotReady; a ClusterConnection
// that does not admit B is refused with NamespaceNotAllowed. Either way the reason says why, no
// target is created and the service is not read at all; the same source read from an admitted
// namespace is delivered. And reading as a workload identity never gives more than that
// identity's rights: a Connection logged in with an IdentityAuth's issued token delivers what a
// project viewer may read, and an identity that is no member of the project is refused
// (Forbidden), delivering nothing.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityAuthController } from '../../src/controllers/identity-auth/index.ts';
import { identityController } from '../../src/controllers/identity/index.ts';
import { projectController } from '../../src/controllers/project/index.ts';
import {
  HARNESS_CONNECTION,
  HARNESS_TOKEN_SECRET,
  startOperatorHarness,
  type OperatorHarness,
} from '../support/operator.ts';

let h: OperatorHarness;
let projectId = '';
let other = '';
const value = `wsa${randomBytes(6).toString('hex')}`;

/** Requests that read secrets or folders of the service (what a delivery reads). */
function serviceReads(): number {
  const byRoute = h.devserver.stats.snapshot().requests.byRoute;
  return Object.entries(byRoute)
    .filter(([route]) => route.startsWith('GET ') && /secrets|folders|imports/.test(route))
    .reduce((sum, [, count]) => sum + count, 0);
}

function syncedMessage(obj: { status?: { conditions?: { type: string; message?: string }[] } }): string {
  return obj.status?.conditions?.find((c) => c.type === 'Synced')?.message ?? '';
}

beforeAll(async () => {
  const kinds = [projectController, identityController, identityAuthController];
  h = await startOperatorHarness({ operator: { kinds }, extraNamespaces: [{}] });
  other = h.namespaces[1] ?? '';
  projectId = await h.createDevProject('shop', 'Shop');
  await h.service.secrets.batchUpdate({
    workspaceId: projectId,
    environment: 'dev',
    secretPath: '/',
    mode: 'upsert',
    secrets: [{ secretKey: 'DB_PASSWORD', secretValue: value }],
  });
}, 120_000);

afterAll(async () => {
  await h?.stop();
});

describe('WorkloadSecret credentials stay in their namespace', () => {
  it("never reads through another namespace's Connection", async () => {
    const before = serviceReads();
    const spec = {
      connectionRef: { name: HARNESS_CONNECTION },
      sources: [{ projectId, environment: 'dev' }],
      target: { secret: {} },
    };
    await h.create('WorkloadSecret', 'borrowed', spec, { namespace: other });
    const waiting = await h.waitForCondition(
      'WorkloadSecret',
      'borrowed',
      { type: 'Synced', status: 'False', reason: 'ReferenceNotReady' },
      { namespace: other },
    );
    expect(syncedMessage(waiting)).toContain(
      `waiting for Connection ${HARNESS_CONNECTION}: it does not exist`,
    );
    expect(await h.readSecret('borrowed', { namespace: other })).toBeUndefined();
    expect(serviceReads()).toBe(before);
  });

  it('reads through a ClusterConnection only from a namespace it admits', async () => {
    const name = `ws-cc-${randomBytes(3).toString('hex')}`;
    await h.create('ClusterConnection', name, {
      url: h.url,
      auth: { token: { secretRef: { namespace: h.namespace, name: HARNESS_TOKEN_SECRET, key: 'token' } } },
      allowedNamespaces: { names: [h.namespace] },
    });
    await h.waitForReady('ClusterConnection', name);
    const spec = {
      connectionRef: { kind: 'ClusterConnection', name },
      sources: [{ projectId, environment: 'dev' }],
      target: { secret: {} },
    };
    const before = serviceReads();
    await h.create('WorkloadSecret', 'via-cluster', spec, { namespace: other });
    const refused = await h.waitForCondition(
      'WorkloadSecret',
      'via-cluster',
      { type: 'Synced', status: 'False', reason: 'NamespaceNotAllowed' },
      { namespace: other },
    );
    expect(syncedMessage(refused)).toContain(`ClusterConnection ${name} does not allow namespace ${other}`);
    expect(await h.readSecret('via-cluster', { namespace: other })).toBeUndefined();
    expect(serviceReads()).toBe(before);
    // The same spec in the admitted namespace reads and delivers (so a read would have shown).
    await h.create('WorkloadSecret', 'via-cluster', spec);
    await h.waitForReady('WorkloadSecret', 'via-cluster');
    expect(await h.readSecret('via-cluster')).toEqual({ DB_PASSWORD: value });
    expect(serviceReads()).toBeGreaterThan(before);
    expect(h.logs()).not.toContain(value);
  });

  it("reads with a workload identity's own rights: a viewer's token delivers, a non-member's is refused", async () => {
    const connectionRef = { name: HARNESS_CONNECTION };
    const suffix = randomBytes(3).toString('hex');
    const member = (projectMemberships: unknown[]) => ({
      connectionRef,
      role: 'no-access',
      projectMemberships,
    });
    await h.create('Identity', 'viewer', {
      ...member([{ projectRef: { name: 'shop' }, roles: [{ role: 'viewer' }] }]),
      name: `viewer-${suffix}`,
    });
    await h.create('Identity', 'outsider', { ...member([]), name: `outsider-${suffix}` });
    for (const name of ['viewer', 'outsider']) {
      await h.waitForReady('Identity', name);
      await h.create('IdentityAuth', name, {
        connectionRef,
        identityRef: { name },
        method: 'token',
        accessTokenTTL: 3600,
        accessTokenMaxTTL: 3600,
        credentials: { secretName: `${name}-token` },
      });
      await h.waitForReady('IdentityAuth', name);
      await h.create('Connection', name, {
        url: h.url,
        auth: { token: { secretRef: { name: `${name}-token`, key: 'accessToken' } } },
      });
      await h.waitForReady('Connection', name);
    }
    const spec = (name: string) => ({
      connectionRef: { name },
      sources: [{ projectId, environment: 'dev' }],
      target: { secret: {} },
    });
    await h.create('WorkloadSecret', 'as-viewer', spec('viewer'));
    await h.waitForReady('WorkloadSecret', 'as-viewer');
    expect(await h.readSecret('as-viewer')).toEqual({ DB_PASSWORD: value });
    await h.create('WorkloadSecret', 'as-outsider', spec('outsider'));
    const refused = await h.waitForCondition('WorkloadSecret', 'as-outsider', {
      type: 'Synced',
      status: 'False',
      reason: 'Forbidden',
    });
    expect(syncedMessage(refused)).not.toContain(value);
    expect(await h.readSecret('as-outsider')).toBeUndefined();
    expect(h.logs()).not.toContain(value);
  });
});
