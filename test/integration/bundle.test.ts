// The bundle `npm run build` writes is what the container image runs, without node_modules. This
// builds it, copies the image's files (dist/, bin/, package.json) to a directory with no
// node_modules above it, and runs `coffer version`, `coffer crds` and `coffer operator` from
// there against the real control plane and devserver (templates render in the bundle's worker).
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAllCrds } from '../../src/api/crd/build.ts';
import { allCrdsYaml } from '../../src/api/crd/render.ts';
import { kindDefinitions } from '../../src/controllers/registry.ts';
import { injectedControlPlane } from '../support/kube.ts';
import { HARNESS_TOKEN_SECRET, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';
import {
  newProcessDir,
  removeProcessDir,
  startOperatorProcess,
  type OperatorProcess,
} from '../support/processes.ts';

const run = promisify(execFile);
const repoRoot = join(import.meta.dirname, '..', '..');

let image: string;
let h: OperatorHarness;
let dir: string;
let operator: OperatorProcess | undefined;

beforeAll(async () => {
  await run(process.execPath, [join(repoRoot, 'scripts', 'build.ts')], { cwd: repoRoot });
  image = mkdtempSync(join(tmpdir(), 'coffer-image-'));
  for (const path of ['dist', 'bin', 'package.json']) {
    cpSync(join(repoRoot, path), join(image, path), { recursive: true });
  }
  h = await startOperatorHarness({ connection: false, operator: { kinds: [], directKinds: [] } });
  dir = newProcessDir('coffer-bundle-');
}, 120_000);

afterAll(async () => {
  await operator?.kill();
  await h?.stop();
  if (dir) removeProcessDir(dir);
  if (image) rmSync(image, { recursive: true, force: true });
});

function coffer(...args: string[]) {
  return run(process.execPath, [join(image, 'bin', 'coffer.js'), ...args], {
    cwd: image,
    maxBuffer: 64 << 20,
  });
}

describe('the bundled CLI (what the image runs)', () => {
  it('has no node_modules to fall back on', () => {
    for (let at = image; at !== '/'; at = join(at, '..')) {
      expect(existsSync(join(at, 'node_modules')), `node_modules in ${at}`).toBe(false);
    }
    expect(existsSync(join(image, 'dist', 'cli', 'main.mjs'))).toBe(true);
  });

  it('prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    expect((await coffer('version')).stdout.trim()).toBe(`coffer ${pkg.version}`);
  });

  it('renders the same CRDs as the source', async () => {
    expect((await coffer('crds')).stdout).toBe(allCrdsYaml(buildAllCrds(kindDefinitions)));
  });

  it('runs the operator: a Project and a SecretBatch become Ready and reach the service', async () => {
    await h.createSecret(HARNESS_TOKEN_SECRET, { token: h.admin.token });
    await h.create('Connection', 'coffer', {
      url: h.url,
      auth: { token: { secretRef: { name: HARNESS_TOKEN_SECRET, key: 'token' } } },
    });
    operator = await startOperatorProcess({
      kubeconfigPath: injectedControlPlane().kubeconfigPath,
      dir,
      name: 'bundled',
      namespaces: [h.namespace],
      entry: join(image, 'bin', 'coffer.js'),
      nodeArgs: ['--max-semi-space-size=8'],
    });
    const slug = `bundled-${h.namespace}`.slice(0, 36);
    await h.create('Project', 'bundled', {
      connectionRef: { name: 'coffer' },
      name: 'bundled',
      slug,
      environments: [{ name: 'Development', slug: 'dev' }],
    });
    await h.createSecret('app-config', { API_URL: 'https://api.example.com' });
    await h.create('SecretBatch', 'app', {
      connectionRef: { name: 'coffer' },
      projectRef: { name: 'bundled' },
      environment: 'dev',
      secretPath: '/',
      fromSecret: { name: 'app-config' },
    });
    const project = await h.waitForReady('Project', 'bundled', { timeoutMs: 60_000 });
    await h.waitForReady('SecretBatch', 'app', { timeoutMs: 60_000 });
    const query = { workspaceId: String(project.status?.id), environment: 'dev', secretPath: '/' };
    expect((await h.service.secrets.get('API_URL', query)).secretValue).toBe('https://api.example.com');
    expect(await operator.metric('coffer_reconcile_total')).toBeGreaterThan(0);
  });

  it('renders WorkloadSecret templates in its render worker (dist/workers), limits included', async () => {
    const spec = (template: string) => ({
      connectionRef: { name: 'coffer' },
      sources: [{ projectRef: { name: 'bundled' }, environment: 'dev' }],
      target: { secret: {} },
      template: { data: { out: template } },
    });
    await h.create('WorkloadSecret', 'templated', spec('{{ API_URL | b64enc | b64dec | append: "/v1" }}'));
    await h.create(
      'WorkloadSecret',
      'endless',
      spec(
        '{% for i in (1..100000) %}{% for j in (1..100000) %}{% if i == j %}{% endif %}{% endfor %}{% endfor %}',
      ),
    );
    await h.waitForReady('WorkloadSecret', 'templated', { timeoutMs: 60_000 });
    expect(await h.readSecret('templated')).toEqual({ out: 'https://api.example.com/v1' });
    const failed = await h.waitForCondition('WorkloadSecret', 'endless', {
      type: 'Synced',
      status: 'False',
      reason: 'TemplateError',
    });
    expect(failed.status?.conditions?.find((c) => c.type === 'Synced')?.message).toMatch(
      /^template of key "out"(, line 1 column \d+)?: time limit exceeded/,
    );
  });
});
