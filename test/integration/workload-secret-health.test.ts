// The Argo CD health check generated from the registry for WorkloadSecret
// (resource_customizations/coffer.dev/WorkloadSecret/health.lua) and the kstatus reading (Flux), on live
// objects the real operator drove against the real API server and a devserver: delivered is
// Healthy/Current, a missing source (SourceNotFound, waiting) Progressing/InProgress, a template
// error and a target it may not take over (TemplateError, TargetConflict, terminal)
// Degraded/Failed, and a lease the service does not answer for (LeaseNotRenewed, waiting: the
// lease and the target are kept, it is retried) Progressing/InProgress. Each verdict is evaluated in gopher-lua (Argo CD's VM) and lua5.4, and each
// state must match its committed case in health_test.yaml and testdata/ (test/support/argocd-cases.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/controllers/reasons.ts';
import { projectController } from '../../src/controllers/project/index.ts';
import { classOfReason } from '../../src/runtime/reasons.ts';
import { capturing, HealthCases } from '../support/argocd-cases.ts';
import { buildGopherLua, healthInGopherLua, healthInLua54 } from '../support/argocd-health.ts';
import { kstatusOf } from '../support/kstatus.ts';
import { sqlDatabaseInputs, startPostgres, type PostgresServer } from '../support/postgres.ts';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

let h: OperatorHarness;
let db: PostgresServer;
let gopherLua = '';
const connectionRef = { name: HARNESS_CONNECTION };
const source = { projectRef: { name: 'shop' }, environment: 'dev' };
const cases = new HealthCases(() => ({ namespace: h.namespace, devserverUrl: h.devserver.url }));

interface Expected {
  readonly type: 'Ready' | 'Synced';
  readonly status: 'True' | 'False';
  readonly reason: string;
  readonly argo: 'Healthy' | 'Progressing' | 'Degraded';
  readonly kstatus: 'Current' | 'InProgress' | 'Failed';
}

const classVerdicts = {
  healthy: ['Healthy', 'Current'],
  waiting: ['Progressing', 'InProgress'],
  terminal: ['Degraded', 'Failed'],
} as const;

function expected(type: Expected['type'], reason: string): Expected {
  const reasonClass = classOfReason(reason) as keyof typeof classVerdicts;
  const [argo, kstatus] = classVerdicts[reasonClass];
  return { type, status: type === 'Ready' ? 'True' : 'False', reason, argo, kstatus };
}

/** Creates a WorkloadSecret, waits for `want` and checks both interpreters and kstatus. */
async function expectHealth(name: string, spec: Record<string, unknown>, want: Expected): Promise<void> {
  await h.create('WorkloadSecret', name, { connectionRef, target: { secret: {} }, ...spec });
  await expectState(name, want);
}

/** Waits until the WorkloadSecret `name` is in `want` and checks both interpreters and kstatus. */
async function expectState(name: string, want: Expected): Promise<void> {
  const obj = await h.waitForCondition('WorkloadSecret', name, want, { timeoutMs: 45_000 });
  const [gopher] = await healthInGopherLua(gopherLua, 'WorkloadSecret', [obj]);
  const [lua] = healthInLua54('WorkloadSecret', [obj]);
  expect(gopher?.status, `${name} (${want.reason}) in gopher-lua: ${gopher?.message}`).toBe(want.argo);
  expect(lua, 'lua5.4 agrees with gopher-lua').toEqual(gopher);
  expect(kstatusOf(obj).status, `${name} in kstatus`).toBe(want.kstatus);
  if (want.argo !== 'Healthy') expect(gopher?.message.toLowerCase()).toContain(want.reason.toLowerCase());
  cases.record('WorkloadSecret', obj, gopher ?? { status: '', message: '' }, want.reason);
}

beforeAll(async () => {
  [h, gopherLua, db] = await Promise.all([
    startOperatorHarness({ operator: { kinds: [projectController] } }),
    buildGopherLua(),
    startPostgres(),
  ]);
  const projectId = await h.createDevProject('shop', 'Shop');
  await h.service.secrets.batchUpdate({
    workspaceId: projectId,
    environment: 'dev',
    secretPath: '/',
    mode: 'upsert',
    secrets: [{ secretKey: 'GREETING', secretValue: 'hello' }],
  });
}, 180_000);

afterAll(async () => {
  await h?.stop();
  db?.stop();
});

describe('WorkloadSecret health (Argo CD, kstatus)', () => {
  it('delivered is Healthy', async () => {
    await expectHealth('delivered', { sources: [source] }, expected('Ready', 'Available'));
  });

  it('a missing environment is Progressing (SourceNotFound)', async () => {
    const sources = [{ ...source, environment: 'staging' }];
    await expectHealth('no-env', { sources }, expected('Synced', 'SourceNotFound'));
  });

  it('a template error is Degraded (TemplateError)', async () => {
    const template = { data: { 'app.yaml': 'a: {{ NOPE }}' } };
    await expectHealth('broken', { sources: [source], template }, expected('Synced', 'TemplateError'));
  });

  it('a Secret it did not create is Degraded (TargetConflict)', async () => {
    await h.createSecret('taken', { note: 'not coffer' });
    const target = { secret: { name: 'taken' } };
    await expectHealth('conflict', { sources: [source], target }, expected('Synced', 'TargetConflict'));
  });

  it('a lease the service does not answer for is Progressing (LeaseNotRenewed)', async () => {
    const scope = { projectSlug: 'lease-health', environmentSlug: 'dev', path: '/' };
    await h.service.projects.create({ projectName: 'Lease health', slug: scope.projectSlug });
    const provider = { type: 'sql-database', inputs: sqlDatabaseInputs(db) };
    await h.service.dynamicSecrets.create({ ...scope, name: 'app-db', provider, defaultTTL: '1h' });
    const sources = [
      { projectSlug: scope.projectSlug, environment: 'dev', dynamicSecret: { name: 'app-db' } },
    ];
    await expectHealth('leased', { sources }, expected('Ready', 'Available'));
    // The target deleted: its credentials need a new lease, and the service does not answer.
    h.devserver.faults.update({ dropRatio: 1 });
    try {
      await h.core.deleteNamespacedSecret({ namespace: h.namespace, name: 'leased' });
      await expectState('leased', expected('Synced', 'LeaseNotRenewed'));
    } finally {
      h.devserver.faults.update({ dropRatio: 0 });
    }
  });
});

describe('health_test.yaml', () => {
  it('every committed case is a state a live object was in', () => {
    if (capturing) cases.write();
    expect(cases.unseen(), 'run npm run capture:argocd').toEqual([]);
  });
});
