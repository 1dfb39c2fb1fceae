// A hostile WorkloadSecret template cannot stall the operator, on the real control plane and a
// devserver over HTTP: templates render in workers with hard limits, so nested loops end in
// TemplateError naming the time limit and a string grown in a loop names the memory limit, while
// other WorkloadSecrets keep being delivered. The signal for "while": another WorkloadSecret,
// created once the hostile one has read its sources (its render comes next), is delivered before
// the hostile one reports its failure — on the operator's event loop the render would hold
// everything, that delivery included, until it stopped.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/kube.ts';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

const LIST = 'GET /api/v3/secrets/raw';
const hostile = {
  loops:
    '{% for i in (1..100000) %}{% for j in (1..100000) %}{% if USER == j %}{% endif %}{% endfor %}{% endfor %}',
  growing:
    '{% assign s = USER %}{% for i in (1..60) %}{% assign s = s | append: s | toJson %}{% endfor %}{{ s }}',
};

let h: OperatorHarness;
let source: Record<string, string> = {};

beforeAll(async () => {
  h = await startOperatorHarness({ operator: { kinds: [] } });
  const project = await h.service.projects.create({
    projectName: 'template limits',
    slug: `template-limits-${randomBytes(3).toString('hex')}`,
  });
  await h.service.secrets.batchUpdate({
    workspaceId: project.id,
    environment: 'dev',
    secretPath: '/',
    mode: 'upsert',
    secrets: [
      { secretKey: 'USER', secretValue: 'app' },
      { secretKey: 'HOST', secretValue: 'db.internal' },
    ],
  });
  source = { projectId: project.id, environment: 'dev', secretPath: '/' };
}, 120_000);

afterAll(async () => {
  await h?.stop();
});

function workloadSecret(name: string, template?: Record<string, string>) {
  return h.create('WorkloadSecret', name, {
    connectionRef: { name: HARNESS_CONNECTION },
    sources: [source],
    target: { secret: {} },
    ...(template ? { template: { data: template } } : {}),
  });
}

async function syncedFailure(name: string): Promise<string | undefined> {
  const obj = await h.get('WorkloadSecret', name);
  const synced = obj?.status?.conditions?.find((c) => c.type === 'Synced');
  return synced?.status === 'False' && synced.reason === 'TemplateError' ? synced.message : undefined;
}

const sourceReads = () => h.devserver.stats.snapshot().requests.byRoute[LIST] ?? 0;

describe('hostile templates', () => {
  it('end nested loops at the time limit while another WorkloadSecret is delivered', async () => {
    const before = sourceReads();
    await workloadSecret('loops', { 'app.conf': `a: 1\n${hostile.loops}` });
    await waitFor(() => (sourceReads() > before ? true : undefined), {
      timeoutMs: 30_000,
      intervalMs: 20,
      message: 'the hostile WorkloadSecret reading its sources',
    });
    await workloadSecret('benign');
    const seen: string[] = [];
    let failure = '';
    await waitFor(
      async () => {
        if (!seen.includes('benign') && (await h.readSecret('benign'))?.USER === 'app') seen.push('benign');
        const message = seen.includes('loops') ? undefined : await syncedFailure('loops');
        if (message) {
          failure = message;
          seen.push('loops');
        }
        return seen.length === 2 ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 50, message: 'the benign delivery and the hostile failure' },
    );
    expect(seen).toEqual(['benign', 'loops']);
    expect(failure).toMatch(
      /^template of key "app\.conf"(, line 2 column \d+)?: time limit exceeded \(1000 ms for the templates of a WorkloadSecret\)$/,
    );
    expect(await h.readSecret('loops')).toBeUndefined();
  });

  it('end a string grown in a loop at the memory limit; a templated update meanwhile is delivered', async () => {
    await workloadSecret('templated', { url: 'postgres://{{ USER }}@{{ HOST }}/app' });
    await h.waitForReady('WorkloadSecret', 'templated');
    await workloadSecret('growing', { 'app.conf': `a: 1\n${hostile.growing}` });
    await h.patch('WorkloadSecret', 'templated', {
      spec: { template: { data: { url: 'postgres://{{ USER }}@{{ HOST }}:5432/app' } } },
    });
    await waitFor(
      async () =>
        (await h.readSecret('templated'))?.url === 'postgres://app@db.internal:5432/app' ? true : undefined,
      { timeoutMs: 30_000, message: 'the templated update delivered' },
    );
    const failure = await waitFor(() => syncedFailure('growing'), {
      timeoutMs: 30_000,
      message: 'the growing template to fail',
    });
    expect(failure).toMatch(
      /^template of key "app\.conf"(, line 2 column \d+)?: memory limit exceeded \(16 MiB\)$/,
    );
  });
});
