// The Argo CD health check generated from the registry for WorkloadSecret
// (resource_customizations/coffer.dev/WorkloadSecret/health.lua) and the kstatus reading (Flux), on live
// objects the real operator drove against the real API server and a devserver: delivered is
// Healthy/Current, a missing source (SourceNotFound, waiting) Progressing/InProgress, a template
// error and a target it may not take over (TemplateError, TargetConflict, terminal)
// Degraded/Failed. Each verdict is evaluated in gopher-lua (Argo CD's VM) and lua5.4, and each
// state must match its committed case in health_test.yaml and testdata/ (test/support/argocd-cases.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/controllers/reasons.ts';
import { projectController } from '../../src/controllers/project/index.ts';
import { classOfReason } from '../../src/runtime/reasons.ts';
import { capturing, HealthCases } from '../support/argocd-cases.ts';
import { buildGopherLua, healthInGopherLua, healthInLua54 } from '../support/argocd-health.ts';
import { kstatusOf } from '../support/kstatus.ts';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

let h: OperatorHarness;
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
  [h, gopherLua] = await Promise.all([
    startOperatorHarness({ operator: { kinds: [projectController] } }),
    buildGopherLua(),
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
});

describe('health_test.yaml', () => {
  it('every committed case is a state a live object was in', () => {
    if (capturing) cases.write();
    expect(cases.unseen(), 'run npm run capture:argocd').toEqual([]);
  });
});
