// Integration against the real control plane and a devserver (with its admin route, which seeds
// native integrations: the service no longer creates them), what is particular to it: the create
// is refused with 403 and reported once, without a retry loop; an adopted integration keeps its
// own auth record; credentials rotated from a Secret; Delete removes the unused auth record;
// invalid input refused; no credential value in logs, events or status. What every managed kind
// shares (update, drift, adoption, ObserveOnly, AlreadyExists, deletion policies, a missing
// connection) is conformance.test.ts.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Integration } from '../../src/client/index.ts';
import { integrationController } from '../../src/controllers/integration/index.ts';
import { seedIntegration } from '../../src/controllers/integration/testing.ts';
import { projectController } from '../../src/controllers/project/index.ts';
import { ANNOTATION_EXTERNAL_ID } from '../../src/runtime/object-meta.ts';
import { waitForOperatorIdle } from '../support/idle.ts';
import { statusCodeOf, waitFor } from '../support/kube.ts';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

let h: OperatorHarness;
let projectId = '';
const project = 'shop';
const suffix = randomBytes(3).toString('hex');
const accessToken = `aws-secret-${randomBytes(8).toString('hex')}`;
const rotatedToken = `aws-rotated-${randomBytes(8).toString('hex')}`;

beforeAll(async () => {
  h = await startOperatorHarness({
    devserver: { enableAdmin: true },
    operator: { kinds: [projectController, integrationController] },
  });
  await h.create('Project', project, {
    connectionRef: { name: HARNESS_CONNECTION },
    name: 'Shop',
    slug: `integ-shop-${suffix}`,
    environments: [
      { name: 'Development', slug: 'dev' },
      { name: 'Production', slug: 'prod' },
    ],
  });
  projectId = (await h.waitForReady('Project', project)).status?.id ?? '';
  await h.createSecret('aws', { id: 'AKIA-INTEGRATION', secret: accessToken });
});

afterAll(async () => {
  for (const name of created) await h?.delete('Integration', name);
  for (const name of created) await h?.waitForDeletion('Integration', name);
  await h?.delete('Project', project);
  await h?.stop();
});

const created: string[] = [];
async function createIntegration(name: string, spec: Record<string, unknown>, externalId?: string) {
  created.push(name);
  const annotations = externalId ? { annotations: { [ANNOTATION_EXTERNAL_ID]: externalId } } : {};
  return h.create('Integration', name, spec, annotations);
}

const spec = (app: string, extra: Record<string, unknown> = {}) => ({
  connectionRef: { name: HARNESS_CONNECTION },
  projectRef: { name: project },
  integration: 'aws-secret-manager',
  environment: 'prod',
  app,
  region: 'eu-west-1',
  auth: {
    accessIdSecretRef: { name: 'aws', key: 'id' },
    accessTokenSecretRef: { name: 'aws', key: 'secret' },
  },
  ...extra,
});

/** An integration made before native integrations were retired, with its own auth record. */
async function seed(app: string): Promise<Integration> {
  const auth = await h.service.integrations.auth.createWithAccessToken({
    workspaceId: projectId,
    integration: 'aws-secret-manager',
    accessId: 'AKIA-SEEDED',
    accessToken: 'seeded-token',
  });
  return seedIntegration(h.url, { projectId, integrationAuthId: auth.id, environment: 'prod', app });
}

const authIds = async () => (await h.service.integrations.auth.list(projectId)).map((a) => a.id).sort();
const routeCount = (route: string) => h.devserver.stats.snapshot().requests.byRoute[route] ?? 0;

async function gone(id: string): Promise<boolean> {
  try {
    await h.service.integrations.get(id);
    return false;
  } catch (error) {
    return (error as { status?: number }).status === 404;
  }
}

function condition(obj: { status?: { conditions?: { type: string }[] } }, type: string) {
  return obj.status?.conditions?.find((c) => c.type === type) as
    { status: string; reason: string; message: string } | undefined;
}

describe('Integration', () => {
  it('reports the service’s refusal to create once, without a retry loop', async () => {
    const before = await authIds();
    await createIntegration('refused', spec('new-app'));
    const failed = await h.waitForCondition('Integration', 'refused', {
      type: 'Synced',
      status: 'False',
      reason: 'IntegrationsDeprecated',
    });
    expect(condition(failed, 'Synced')?.message).toMatch(/service answered 403: .*Secret Sync/);
    // The create's own annotation writes trigger one more reconcile, which must not ask again.
    // A retry loop would keep the operator busy (backoff from 5 ms) until its retries were
    // seconds apart, each one another create.
    await waitForOperatorIdle(h.operator);
    const creates = routeCount('POST /api/v1/integration');
    expect(creates).toBeGreaterThanOrEqual(1);
    expect(creates).toBeLessThanOrEqual(2);
    // The auth record stored for the attempt was removed again.
    expect(await authIds()).toEqual(before);
  });

  let id = '';
  let authId = '';

  it('adopts an existing integration by annotation and brings it in line', async () => {
    const existing = await seed('shop-app');
    id = existing.id;
    authId = existing.integrationAuthId;
    const records = await authIds();
    await createIntegration('adopted', spec('shop-app', { pollInterval: '10s' }), id);
    const synced = await h.waitForCondition('Integration', 'adopted', { type: 'Synced', status: 'True' });
    expect(synced.status).toMatchObject({ id, integrationAuthId: authId, isActive: true });
    expect(synced.status?.authHash).toMatch(/^[0-9a-f]{64}$/);
    expect((await h.service.integrations.get(id)).region).toBe('eu-west-1');
    // The credentials go into the integration's own auth record, in place (PATCH), so it is Ready.
    const ready = await h.waitForCondition('Integration', 'adopted', { type: 'Ready', status: 'True' });
    expect(ready.status?.credentialsApplied).toBe(true);
    expect(routeCount('PATCH /api/v1/integration-auth/:integrationAuthId')).toBeGreaterThanOrEqual(1);
    expect(await authIds()).toEqual(records);
    expect((await h.service.integrations.get(id)).integrationAuthId).toBe(authId);
  });

  it('sends rotated credentials again within seconds, into the integration’s own record', async () => {
    const before = await h.get('Integration', 'adopted');
    const records = await authIds();
    const patches = routeCount('PATCH /api/v1/integration-auth/:integrationAuthId');
    await h.createSecret('aws', { id: 'AKIA-INTEGRATION', secret: rotatedToken });
    const rotated = await waitFor(
      async () => {
        const obj = await h.get('Integration', 'adopted');
        return obj?.status?.authHash !== before?.status?.authHash ? obj : undefined;
      },
      { timeoutMs: 20_000, message: 'a new credentials hash in status' },
    );
    expect(rotated.status?.integrationAuthId).toBe(authId);
    expect(rotated.status?.credentialsApplied).toBe(true);
    expect(routeCount('PATCH /api/v1/integration-auth/:integrationAuthId')).toBeGreaterThan(patches);
    expect((await h.service.integrations.get(id)).integrationAuthId).toBe(authId);
    expect(await authIds()).toEqual(records);
  });

  it('deletes the integration and its unused auth record with deletionPolicy Delete', async () => {
    await h.delete('Integration', 'adopted');
    await h.waitForDeletion('Integration', 'adopted');
    expect(await gone(id)).toBe(true);
    expect(await authIds()).not.toContain(authId);
  });

  it('waits for a missing Secret and refuses a changed integration type', async () => {
    const existing = await seed('waiting-app');
    const missing = spec('waiting-app', {
      auth: {
        accessIdSecretRef: { name: 'nope', key: 'id' },
        accessTokenSecretRef: { name: 'nope', key: 'x' },
      },
    });
    await createIntegration('waiting', missing, existing.id);
    const waiting = await h.waitForCondition('Integration', 'waiting', {
      type: 'Synced',
      status: 'False',
      reason: 'SecretNotFound',
    });
    expect(condition(waiting, 'Synced')?.message).toContain('Secret');
    const changed = await h
      .patch('Integration', 'waiting', { spec: { integration: 'github' } })
      .catch((e: unknown) => e);
    expect(statusCodeOf(changed)).toBe(422);
    expect(String((changed as { body?: unknown }).body)).toContain('integration is immutable');
  });

  it('never shows a credential value in logs, events or status', async () => {
    const logs = h.logs();
    for (const value of [accessToken, rotatedToken, h.admin.token]) expect(logs).not.toContain(value);
    for (const name of ['refused', 'waiting']) {
      const text = JSON.stringify([await h.get('Integration', name), await h.events(name)]);
      expect(text).not.toContain(accessToken);
      expect(text).not.toContain(rotatedToken);
    }
  });
});
