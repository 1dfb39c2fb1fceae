// WorkloadSecret against the real control plane and a devserver over HTTP: sources merged in
// order with collisions listed by key, recursive folders, include/exclude, reference expansion,
// templates (a key and a whole document, errors with their position), and every bad-input case
// (SourceNotFound leaving an existing target as it is, TemplateError, InvalidKey, TooLarge; the
// CRD's refusals are in bad-input-cases.yaml, connections of other namespaces in
// workload-secret-access.test.ts).
// No secret value may appear in status, events or the operator's log.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectController } from '../../src/controllers/project/index.ts';
import { createCertificateAuthority } from '../../src/sandbox/control-plane/certs.ts';
import { waitFor } from '../support/kube.ts';
import {
  HARNESS_CONNECTION,
  startOperatorHarness,
  type CofferObject,
  type OperatorHarness,
} from '../support/operator.ts';

let h: OperatorHarness;
let projectId = '';
let projectSlug = '';
const connectionRef = { name: HARNESS_CONNECTION };
/** Recognisable values: none may appear outside the target objects and the service. */
const marker = `wsv${randomBytes(6).toString('hex')}`;
const value = (name: string) => `${marker}-${name}`;

async function put(environment: string, secretPath: string, secrets: Record<string, string>): Promise<void> {
  await h.service.secrets.batchUpdate({
    workspaceId: projectId,
    environment,
    secretPath,
    mode: 'upsert',
    secrets: Object.entries(secrets).map(([secretKey, secretValue]) => ({ secretKey, secretValue })),
  });
}

async function folder(environment: string, path: string, name: string): Promise<void> {
  await h.service.folders.create({ projectId, environment, path, name });
}

beforeAll(async () => {
  h = await startOperatorHarness({ operator: { kinds: [projectController] } });
  await h.create('Project', 'shop', {
    connectionRef,
    name: 'Shop',
    slug: (projectSlug = `shop-${randomBytes(3).toString('hex')}`),
    environments: [
      { name: 'Development', slug: 'dev' },
      { name: 'Production', slug: 'prod' },
    ],
    deletionPolicy: 'Delete',
  });
  projectId = (await h.waitForReady('Project', 'shop')).status?.id ?? '';
  await folder('dev', '/', 'app');
  await folder('dev', '/app', 'db');
  await put('dev', '/', { A: value('root-a'), B: value('root-b'), SHARED: value('root-shared') });
  await put('dev', '/app', { B: value('app-b'), C: value('app-c') });
  await put('dev', '/app/db', { C: value('db-c'), DB_USER: 'app', DB_DEBUG: 'true' });
  await put('prod', '/', { PROD_KEY: value('prod') });
}, 120_000);

afterAll(async () => {
  await h?.stop();
});

const source = (extra: Record<string, unknown>) => ({
  projectRef: { name: 'shop' },
  environment: 'dev',
  ...extra,
});

async function createWorkloadSecret(name: string, spec: Record<string, unknown>): Promise<CofferObject> {
  await h.create('WorkloadSecret', name, { connectionRef, target: { secret: {} }, ...spec });
  return h.waitForReady('WorkloadSecret', name);
}

/** Status and events hold key names, counts and hashes, never a value. */
async function expectNoValues(name: string): Promise<void> {
  const obj = await h.get('WorkloadSecret', name);
  expect(JSON.stringify(obj?.status)).not.toContain(marker);
  const events = await h.events(name);
  expect(JSON.stringify(events.map((e) => e.message))).not.toContain(marker);
  expect(h.logs()).not.toContain(marker);
}

describe('WorkloadSecret sources', () => {
  it('merges sources in order (later wins), lists collisions by key, records counts and a hash', async () => {
    const ready = await createWorkloadSecret('merged', {
      sources: [source({ secretPath: '/' }), source({ secretPath: '/app' })],
    });
    expect(await h.readSecret('merged')).toEqual({
      A: value('root-a'),
      B: value('app-b'),
      SHARED: value('root-shared'),
      C: value('app-c'),
    });
    expect(ready.status).toMatchObject({
      secretCount: 4,
      collisions: ['B'],
      sources: [
        { project: projectId, environment: 'dev', secretPath: '/', count: 3, latestVersion: 1 },
        { project: projectId, environment: 'dev', secretPath: '/app', count: 2, latestVersion: 1 },
      ],
    });
    expect(ready.status?.contentHash).toMatch(/^[0-9a-f]{16}$/);
    await h.waitForEvent('merged', (e) => e.reason === 'Delivered');
    await expectNoValues('merged');
  });

  it('reads subfolders with recursive (the deepest folder wins) and filters keys', async () => {
    const ready = await createWorkloadSecret('recursive', {
      sources: [
        { projectId, environment: 'dev', secretPath: '/app', recursive: true, exclude: ['DB_DEBUG'] },
      ],
    });
    expect(await h.readSecret('recursive')).toEqual({ B: value('app-b'), C: value('db-c'), DB_USER: 'app' });
    expect(ready.status?.collisions).toEqual(['C']);
    await createWorkloadSecret('filtered', {
      sources: [
        {
          projectSlug,
          environment: 'dev',
          secretPath: '/app/db',
          include: ['DB_*', 'C'],
          exclude: ['*_DEBUG'],
        },
      ],
    });
    expect(await h.readSecret('filtered')).toEqual({ C: value('db-c'), DB_USER: 'app' });
  });

  it('expands secret references as the service does, or delivers them as stored', async () => {
    await put('dev', '/app', { REF: '${C}/${prod.PROD_KEY}/${dev.app.db.DB_USER}/${NOPE}' });
    await createWorkloadSecret('expanded', { sources: [source({ secretPath: '/app', include: ['REF'] })] });
    expect(await h.readSecret('expanded')).toEqual({
      REF: `${value('app-c')}/${value('prod')}/app/\${NOPE}`,
    });
    await createWorkloadSecret('raw', {
      sources: [source({ secretPath: '/app', include: ['REF'], expandReferences: false })],
    });
    expect(await h.readSecret('raw')).toEqual({ REF: '${C}/${prod.PROD_KEY}/${dev.app.db.DB_USER}/${NOPE}' });
  });

  it('includes the folder imports with expandReferences (own keys win), not without', async () => {
    await folder('dev', '/', 'imp');
    await put('dev', '/imp', { C: value('imp-c') });
    const created = await fetch(`${h.url}/api/v1/secret-imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.admin.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        workspaceId: projectId,
        environment: 'dev',
        path: '/imp',
        import: { environment: 'dev', path: '/app/db' },
      }),
    });
    expect(created.status).toBe(200);
    await createWorkloadSecret('imported', { sources: [source({ secretPath: '/imp' })] });
    expect(await h.readSecret('imported')).toEqual({ C: value('imp-c'), DB_USER: 'app', DB_DEBUG: 'true' });
    await createWorkloadSecret('not-imported', {
      sources: [source({ secretPath: '/imp', expandReferences: false })],
    });
    expect(await h.readSecret('not-imported')).toEqual({ C: value('imp-c') });
  });

  it('delivers a change made in the service (its change event)', async () => {
    const before = (await h.get('WorkloadSecret', 'merged'))?.status?.contentHash;
    await put('dev', '/', { A: value('root-a2') });
    await waitFor(async () => (await h.readSecret('merged'))?.A === value('root-a2'), {
      timeoutMs: 20_000,
      message: 'the new value in the target',
    });
    const after = await waitFor(async () => {
      const obj = await h.get('WorkloadSecret', 'merged');
      return obj?.status?.contentHash !== before ? obj : undefined;
    });
    expect((after.status?.sources as { latestVersion: number }[])[0]?.latestVersion).toBe(2);
  });
});

describe('WorkloadSecret templates', () => {
  it('renders a key and a whole document; mergeSourceKeys decides whether source keys stay', async () => {
    const template = {
      data: {
        DATABASE_URL: 'postgres://{{ DB_USER }}:{{ C }}@db/app',
        'config.yaml':
          'db:\n  user: {{ DB_USER }}\n  password: {{ C | toJson }}\n  port: {{ PORT | default: 5432 }}\n',
      },
    };
    await createWorkloadSecret('templated', { sources: [source({ secretPath: '/app/db' })], template });
    expect(await h.readSecret('templated')).toEqual({
      DATABASE_URL: `postgres://app:${value('db-c')}@db/app`,
      'config.yaml': `db:\n  user: app\n  password: "${value('db-c')}"\n  port: 5432\n`,
    });
    await h.patch('WorkloadSecret', 'templated', { spec: { template: { mergeSourceKeys: true } } });
    await waitFor(async () => Object.keys((await h.readSecret('templated')) ?? {}).length === 5, {
      timeoutMs: 20_000,
      message: 'the source keys beside the templated ones',
    });
  });

  it('builds a kubernetes.io/tls Secret from a PEM bundle with the PEM filters', async () => {
    const ca = await createCertificateAuthority('ws-test');
    await folder('dev', '/', 'tls');
    await put('dev', '/tls', { BUNDLE: `${ca.keyPem}\n${ca.certPem}` });
    await createWorkloadSecret('tls', {
      sources: [source({ secretPath: '/tls' })],
      target: { secret: { type: 'kubernetes.io/tls' } },
      template: {
        data: { 'tls.crt': '{{ BUNDLE | pemCertificates }}', 'tls.key': '{{ BUNDLE | pemPrivateKey }}' },
      },
    });
    const secret = await h.core.readNamespacedSecret({ namespace: h.namespace, name: 'tls' });
    expect(secret.type).toBe('kubernetes.io/tls');
    const data = await h.readSecret('tls');
    expect(data?.['tls.crt']?.trim()).toBe(ca.certPem.trim());
    expect(data?.['tls.key']?.trim()).toBe(ca.keyPem.trim());
  });

  it('reports a template error with its key, line and column, terminal, and delivers nothing new', async () => {
    const template = { data: { 'app.yaml': 'a: 1\nb: {{ DB_HOST }}\n' } };
    await h.create('WorkloadSecret', 'broken', {
      connectionRef,
      sources: [source({ secretPath: '/app/db' })],
      target: { secret: {} },
      template,
    });
    const failed = await h.waitForCondition('WorkloadSecret', 'broken', {
      type: 'Synced',
      status: 'False',
      reason: 'TemplateError',
    });
    const synced = failed.status?.conditions?.find((c) => c.type === 'Synced');
    expect(synced?.message).toBe('template of key "app.yaml", line 2 column 7: undefined variable: DB_HOST');
    expect(await h.readSecret('broken')).toBeUndefined();
    await h.patch('WorkloadSecret', 'broken', {
      spec: { template: { data: { 'app.yaml': 'b: {{ DB_USER }}\n' } } },
    });
    await h.waitForReady('WorkloadSecret', 'broken');
    expect(await h.readSecret('broken')).toEqual({ 'app.yaml': 'b: app\n' });
    await expectNoValues('broken');
  });
});

describe('WorkloadSecret bad input', () => {
  async function waitForSynced(name: string, reason: string): Promise<string> {
    const obj = await h.waitForCondition('WorkloadSecret', name, { type: 'Synced', status: 'False', reason });
    return obj.status?.conditions?.find((c) => c.type === 'Synced')?.message ?? '';
  }

  it('waits with SourceNotFound for a missing project, environment or folder, delivering nothing', async () => {
    const missingProjects = {
      'no-project-id': { projectId: '5f7c0a4e-0000-4000-8000-000000000000', environment: 'dev' },
      'no-project-slug': { projectSlug: 'no-such-project', environment: 'dev' },
    };
    for (const [name, missing] of Object.entries(missingProjects))
      await h.create('WorkloadSecret', name, { connectionRef, sources: [missing], target: { secret: {} } });
    expect(await waitForSynced('no-project-id', 'SourceNotFound')).toContain(
      'project 5f7c0a4e-0000-4000-8000-000000000000',
    );
    expect(await waitForSynced('no-project-slug', 'SourceNotFound')).toContain('project no-such-project');
    await h.create('WorkloadSecret', 'no-env', {
      connectionRef,
      sources: [source({ environment: 'staging' })],
      target: { secret: {} },
    });
    expect(await waitForSynced('no-env', 'SourceNotFound')).toContain('environment staging');
    await h.create('WorkloadSecret', 'no-folder', {
      connectionRef,
      sources: [source({ secretPath: '/' }), source({ secretPath: '/missing' })],
      target: { secret: {} },
    });
    expect(await waitForSynced('no-folder', 'SourceNotFound')).toContain('path /missing');
    // No empty Secret: nothing is created while a source is missing.
    for (const name of ['no-project-id', 'no-project-slug', 'no-env', 'no-folder'])
      expect(await h.readSecret(name)).toBeUndefined();
  });

  it('delivers an existing empty folder as an empty source, unlike a missing one', async () => {
    await folder('prod', '/', 'empty');
    const ready = await createWorkloadSecret('empty-folder', {
      sources: [source({ environment: 'prod', secretPath: '/empty' })],
    });
    expect(await h.readSecret('empty-folder')).toEqual({});
    expect(ready.status).toMatchObject({ secretCount: 0 });
  });

  it('leaves an existing target as it is when a source goes missing, and resumes when it is back', async () => {
    await folder('dev', '/', 'temp');
    await put('dev', '/temp', { T: value('temp') });
    await createWorkloadSecret('vanishing', { sources: [source({ secretPath: '/temp' })] });
    expect(await h.readSecret('vanishing')).toEqual({ T: value('temp') });
    await h.service.folders.delete('temp', { projectId, environment: 'dev', path: '/', forceDelete: true });
    // A folder deletion sends no change event: a spec change makes the sources be read again.
    await h.patch('WorkloadSecret', 'vanishing', { spec: { resyncInterval: '11m' } });
    await waitForSynced('vanishing', 'SourceNotFound');
    expect(await h.readSecret('vanishing')).toEqual({ T: value('temp') });
    await folder('dev', '/', 'temp');
    await put('dev', '/temp', { T: value('temp2') });
    await waitFor(async () => (await h.readSecret('vanishing'))?.T === value('temp2'), {
      timeoutMs: 45_000,
      message: 'the delivery to resume once the folder is back',
    });
  });

  it('waits for a Project that does not exist (ReferenceNotReady)', async () => {
    await h.create('WorkloadSecret', 'no-project', {
      connectionRef,
      sources: [{ projectRef: { name: 'nope' }, environment: 'dev' }],
      target: { secret: {} },
    });
    expect(await waitForSynced('no-project', 'ReferenceNotReady')).toContain('Project nope');
  });

  it('names a key that is no valid Secret key (InvalidKey)', async () => {
    await folder('dev', '/', 'odd');
    await put('dev', '/odd', { 'BAD@KEY': value('odd'), GOOD: 'x' });
    await h.create('WorkloadSecret', 'bad-key', {
      connectionRef,
      sources: [source({ secretPath: '/odd' })],
      target: { secret: {} },
    });
    expect(await waitForSynced('bad-key', 'InvalidKey')).toContain('"BAD@KEY"');
    expect(await h.readSecret('bad-key')).toBeUndefined();
    await expectNoValues('bad-key');
  });

  it('refuses content over 1 MiB with its size (TooLarge)', async () => {
    await folder('dev', '/', 'big');
    const half = 'x'.repeat(600 * 1024);
    await put('dev', '/big', { ONE: half });
    await put('dev', '/big', { TWO: half });
    await h.create('WorkloadSecret', 'too-large', {
      connectionRef,
      sources: [source({ secretPath: '/big' })],
      target: { secret: {} },
    });
    expect(await waitForSynced('too-large', 'TooLarge')).toContain(`${2 * half.length} bytes`);
    expect(await h.readSecret('too-large')).toBeUndefined();
  });
});
