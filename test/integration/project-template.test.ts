// ProjectTemplate (cluster-scoped, on a ClusterConnection) against the real control plane and a
// devserver, what is particular to it: create and read back, a type the service cannot change,
// invalid input. What every managed kind shares (update, drift, adoption, ObserveOnly,
// AlreadyExists, deletion policies, a missing connection) is conformance.test.ts.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectTemplateController } from '../../src/controllers/project-template/index.ts';
import { ANNOTATION_EXTERNAL_ID } from '../../src/runtime/object-meta.ts';
import { statusCodeOf } from '../support/kube.ts';
import { startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

let h: OperatorHarness;
const suffix = randomBytes(3).toString('hex');
const cluster = `templates-${suffix}`;
const name = (base: string) => `${base}-${suffix}`;

beforeAll(async () => {
  h = await startOperatorHarness({ connection: false, operator: { kinds: [projectTemplateController] } });
  await h.createSecret('template-token', { token: h.admin.token });
  await h.create('ClusterConnection', cluster, {
    url: h.url,
    auth: { token: { secretRef: { name: 'template-token', namespace: h.namespace, key: 'token' } } },
    allowedNamespaces: { names: [h.namespace] },
  });
  await h.waitForReady('ClusterConnection', cluster);
});

afterAll(async () => {
  // Templates first: deleting them needs the ClusterConnection, which stop() removes too.
  for (const template of created) await h?.delete('ProjectTemplate', template);
  for (const template of created) await h?.waitForDeletion('ProjectTemplate', template);
  await h?.stop();
});

const created: string[] = [];
async function createTemplate(
  objectName: string,
  templateSpec: Record<string, unknown>,
  annotations?: Record<string, string>,
) {
  created.push(objectName);
  return h.create('ProjectTemplate', objectName, templateSpec, annotations ? { annotations } : {});
}

const spec = (templateName: string, extra: Record<string, unknown> = {}) => ({
  connectionRef: { name: cluster },
  name: templateName,
  description: 'Web services',
  roles: [
    {
      name: 'Readers',
      slug: 'readers',
      permissions: [{ subject: 'secrets', action: 'read', conditions: { secretPath: { $glob: '/**' } } }],
    },
  ],
  environments: [
    { name: 'Development', slug: 'dev', position: 1 },
    { name: 'Production', slug: 'prod', position: 2 },
  ],
  ...extra,
});

async function serviceTemplate(id: string) {
  return h.service.projectTemplates.get(id);
}

describe('ProjectTemplate', () => {
  const web = name('web');
  let id = '';

  it('creates the template and reads it back', async () => {
    await createTemplate(web, spec(web, { pollInterval: '10s' }));
    const ready = await h.waitForReady('ProjectTemplate', web);
    id = ready.status?.id ?? '';
    expect(ready.metadata.namespace).toBeUndefined();
    expect(ready.metadata.annotations?.[ANNOTATION_EXTERNAL_ID]).toBe(id);
    expect(ready.status?.organizationId).toBe(h.admin.organizationId);
    const stored = await serviceTemplate(id);
    expect(stored).toMatchObject({ name: web, description: 'Web services', type: 'secret-manager' });
    expect(stored.roles).toEqual([
      {
        name: 'Readers',
        slug: 'readers',
        permissions: [{ subject: 'secrets', action: ['read'], conditions: { secretPath: { $glob: '/**' } } }],
      },
    ]);
    expect(stored.environments?.map((e) => [e.slug, e.position])).toEqual([
      ['dev', 1],
      ['prod', 2],
    ]);
  });

  it('reports a template of another type as TypeMismatch instead of updating in a loop', async () => {
    const kms = name('kms');
    const existing = await h.service.projectTemplates.create({ name: kms, type: 'kms' });
    await createTemplate(kms, spec(kms), { [ANNOTATION_EXTERNAL_ID]: existing.id });
    const failed = await h.waitForCondition('ProjectTemplate', kms, {
      type: 'Synced',
      status: 'False',
      reason: 'TypeMismatch',
    });
    const synced = failed.status?.conditions?.find((c) => c.type === 'Synced');
    expect(synced?.message).toContain('cannot change a template');
    expect((await serviceTemplate(existing.id)).type).toBe('kms');
  });

  it('is refused by the API server for a reserved name and for a changed type', async () => {
    const refused = await h.create('ProjectTemplate', name('bad'), spec('default')).catch((e: unknown) => e);
    expect(statusCodeOf(refused)).toBe(422);
    expect(String((refused as { body?: unknown }).body)).toContain('name must not be default');

    const typed = name('typed');
    await createTemplate(typed, spec(typed));
    const changed = await h
      .patch('ProjectTemplate', typed, { spec: { type: 'kms' } })
      .catch((e: unknown) => e);
    expect(statusCodeOf(changed)).toBe(422);
    expect(String((changed as { body?: unknown }).body)).toContain('type is immutable');
  });

  it('never logs the connection token', () => {
    expect(h.logs()).not.toContain(h.admin.token);
  });
});
