// Project against the real control plane and a devserver, what is particular to it: create and
// read back (with environments and a template), update one field and add an environment,
// deletion protection, templates, invalid input. What every managed kind shares (drift,
// adoption, ObserveOnly, AlreadyExists, deletion policies, a missing connection) is
// conformance.test.ts.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectController } from '../../src/controllers/project/index.ts';
import { ANNOTATION_EXTERNAL_ID } from '../../src/runtime/object-meta.ts';
import { statusCodeOf, waitFor } from '../support/kube.ts';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

let h: OperatorHarness;
const suffix = randomBytes(3).toString('hex');
const slug = (base: string) => `${base}-${suffix}`;
const connectionRef = { name: HARNESS_CONNECTION };

beforeAll(async () => {
  h = await startOperatorHarness({ operator: { kinds: [projectController] } });
});

afterAll(async () => {
  await h?.stop();
});

const spec = (projectSlug: string, extra: Record<string, unknown> = {}) => ({
  connectionRef,
  name: 'Shop',
  slug: projectSlug,
  description: 'Online shop',
  environments: [
    { name: 'Development', slug: 'dev' },
    { name: 'Production', slug: 'prod' },
  ],
  ...extra,
});

async function serviceProject(id: string) {
  return h.service.projects.get(id);
}

async function gone(id: string): Promise<boolean> {
  return serviceProject(id).then(
    () => false,
    (error: unknown) => (error as { status?: number }).status === 404,
  );
}

function message(obj: { status?: { conditions?: { type: string; message?: string }[] } }, type: string) {
  return obj.status?.conditions?.find((c) => c.type === type)?.message ?? '';
}

describe('Project', () => {
  let id = '';

  it('creates the project with its environments and reads it back', async () => {
    await h.create('Project', 'shop', spec(slug('shop'), { pollInterval: '10s' }));
    const ready = await h.waitForReady('Project', 'shop');
    id = ready.status?.id ?? '';
    expect(ready.metadata.annotations?.[ANNOTATION_EXTERNAL_ID]).toBe(id);
    expect(ready.status).toMatchObject({ slug: slug('shop'), organizationId: h.admin.organizationId });
    const envs = ready.status?.environments as { slug: string; id?: string; position?: number }[];
    expect(envs.map((e) => [e.slug, e.position])).toEqual([
      ['dev', 1],
      ['prod', 2],
    ]);
    expect(envs.every((e) => typeof e.id === 'string' && e.id.length > 0)).toBe(true);
    const stored = await serviceProject(id);
    expect(stored).toMatchObject({
      name: 'Shop',
      slug: slug('shop'),
      description: 'Online shop',
      type: 'secret-manager',
    });
    expect(stored.environments?.map((e) => e.slug)).toEqual(['dev', 'prod']);
  });

  it('updates one field and adds an environment', async () => {
    await h.patch('Project', 'shop', {
      spec: {
        description: 'Online shop and API',
        environments: [
          { name: 'Development', slug: 'dev' },
          { name: 'Staging', slug: 'staging', position: 2 },
          { name: 'Production', slug: 'prod' },
        ],
      },
    });
    await h.waitForReady('Project', 'shop');
    const stored = await waitFor(
      async () => {
        const p = await serviceProject(id);
        return p.description === 'Online shop and API' && p.environments?.length === 3 ? p : undefined;
      },
      { message: 'the new description and environment in the service' },
    );
    expect(stored.environments?.map((e) => e.slug)).toEqual(['dev', 'staging', 'prod']);
  });

  it.concurrent(
    'reports DeletionBlocked while the service protects the project, then deletes it',
    async () => {
      await h.create(
        'Project',
        'kept',
        spec(slug('kept'), { deletionPolicy: 'Delete', hasDeleteProtection: true, pollInterval: '10s' }),
      );
      const ready = await h.waitForReady('Project', 'kept');
      const keptId = ready.status?.id ?? '';
      await h.delete('Project', 'kept');
      const blocked = await h.waitForCondition('Project', 'kept', {
        type: 'Synced',
        status: 'False',
        reason: 'DeletionBlocked',
      });
      expect(message(blocked, 'Synced')).toContain('deletion protection');
      expect(await gone(keptId)).toBe(false);
      await h.service.projects.update(keptId, { hasDeleteProtection: false });
      await h.waitForDeletion('Project', 'kept', { timeoutMs: 40_000 });
      expect(await gone(keptId)).toBe(true);
    },
  );

  it('creates from a service template by name and prunes unlisted environments on request', async () => {
    const template = slug('tpl');
    await h.service.projectTemplates.create({
      name: template,
      type: 'secret-manager',
      environments: [
        { name: 'QA', slug: 'qa', position: 1 },
        { name: 'Live', slug: 'live', position: 2 },
      ],
    });
    await h.create('Project', 'templated', spec(slug('templated'), { template, environments: undefined }));
    const ready = await h.waitForReady('Project', 'templated');
    const templatedId = ready.status?.id ?? '';
    expect((await serviceProject(templatedId)).environments?.map((e) => e.slug)).toEqual(['qa', 'live']);
    await h.patch('Project', 'templated', {
      spec: { environments: [{ name: 'Live', slug: 'live' }], pruneEnvironments: true },
    });
    await waitFor(
      async () =>
        ((await serviceProject(templatedId)).environments ?? []).map((e) => e.slug).join() === 'live',
      { message: 'the unlisted environment pruned' },
    );
  });

  it('waits for a ProjectTemplate that does not exist', async () => {
    await h.create(
      'Project',
      'waiting',
      spec(slug('waiting'), { templateRef: { name: 'missing-template' } }),
    );
    const waiting = await h.waitForCondition('Project', 'waiting', {
      type: 'Synced',
      status: 'False',
      reason: 'ReferenceNotReady',
    });
    expect(message(waiting, 'Synced')).toContain('ProjectTemplate missing-template');
  });

  it('is refused by the API server for invalid specs with readable messages', async () => {
    const cases: { name: string; body: Record<string, unknown>; says: string }[] = [
      { name: 'bad-slug', body: spec('Bad_Slug'), says: 'spec.slug' },
      {
        name: 'two-templates',
        body: spec(slug('two'), { template: 'a', templateRef: { name: 'b' } }),
        says: 'set at most one of template or templateRef',
      },
      {
        name: 'same-position',
        body: spec(slug('pos'), {
          environments: [
            { name: 'A', slug: 'a', position: 1 },
            { name: 'B', slug: 'b', position: 1 },
          ],
        }),
        says: 'environment positions must be unique',
      },
    ];
    for (const c of cases) {
      const refused = await h.create('Project', c.name, c.body).catch((e: unknown) => e);
      expect(statusCodeOf(refused), c.name).toBe(422);
      expect(String((refused as { body?: unknown }).body), c.name).toContain(c.says);
    }
    await h.create('Project', 'immutable', spec(slug('immutable')));
    const changed = await h
      .patch('Project', 'immutable', { spec: { slug: slug('other') } })
      .catch((e: unknown) => e);
    expect(statusCodeOf(changed)).toBe(422);
    expect(String((changed as { body?: unknown }).body)).toContain('immutable');
  });

  it('never logs the connection token', () => {
    expect(h.logs()).not.toContain(h.admin.token);
  });
});
