/**
 * The CRDs' printer columns render: the real `kubectl get -o wide` against the real API server,
 * for every kind, shows a REASON column holding the failing reason (and `Available` when all is
 * well), no column name twice, and no `<invalid>` cell — an AdditionalPrivilege with an open
 * temporary window shows when it EXPIRES.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kindDefinitions } from '../../src/controllers/registry.ts';
import { locateBinaries } from '../support/control-plane-binaries.ts';
import { clusterFromInjected, waitFor } from '../support/kube.ts';
import {
  HARNESS_CONNECTION,
  HARNESS_TOKEN_SECRET,
  startOperatorHarness,
  type OperatorHarness,
} from '../support/operator.ts';

let h: OperatorHarness;
const suffix = randomBytes(3).toString('hex');
const connectionRef = { name: HARNESS_CONNECTION };
const projectRef = { name: 'cols' };

/** `kubectl get <plural> -o wide` as rows of cells (columns split on two or more spaces). */
function kubectlGet(plural: string, namespaced: boolean): { header: string[]; rows: string[][] } {
  const kubectl = locateBinaries().kubectl;
  if (!kubectl) throw new Error('cannot run kubectl: not found; run `npm run control-plane:install`');
  const scope = namespaced ? ['-n', h.namespace] : [];
  const args = ['--kubeconfig', clusterFromInjected().kubeconfigPath, 'get', plural, ...scope, '-o', 'wide'];
  const result = spawnSync(kubectl, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`kubectl get ${plural} failed: ${result.stderr}`);
  const [header = '', ...lines] = result.stdout.trimEnd().split('\n');
  const split = (line: string) => line.trim().split(/\s{2,}/);
  return { header: split(header), rows: lines.map(split) };
}

function cell(
  table: { header: string[]; rows: string[][] },
  name: string,
  column: string,
): string | undefined {
  const row = table.rows.find((r) => r[0] === name);
  return row?.[table.header.indexOf(column)];
}

/** Bootstrap, ProjectRole, IdentityAuth, SecretBatch, Integration, CertificateAuthority, WorkloadSecret, DynamicSecret: one each. */
async function createOneOfTheOtherKinds(): Promise<void> {
  await h.createSecret('cols-password', { password: 'sample-only-password' });
  await h.createSecret('aws', { id: 'AKIA-COLUMNS', secret: 'sample-only' });
  await h.create('Bootstrap', 'again', {
    url: h.devserver.url,
    email: 'admin@example.com',
    passwordSecretRef: { name: 'cols-password', key: 'password' },
    organization: 'Again',
    outputSecretName: 'again-admin',
  });
  const permissions = [{ subject: 'secrets', action: ['describeSecret'] }];
  await h.create('ProjectRole', 'reader', {
    connectionRef,
    projectRef,
    slug: 'reader',
    name: 'Reader',
    permissions,
  });
  await h.create('IdentityAuth', 'bot-token', {
    connectionRef,
    identityRef: { name: 'bot' },
    method: 'token',
  });
  const secrets = [{ key: 'MODE', value: 'x' }];
  await h.create('SecretBatch', 'config', { connectionRef, projectRef, environment: 'dev', secrets });
  await h.create('Integration', 'aws', {
    connectionRef,
    projectRef,
    integration: 'aws-secret-manager',
    environment: 'dev',
    app: 'cols',
    region: 'eu-west-1',
    auth: {
      accessIdSecretRef: { name: 'aws', key: 'id' },
      accessTokenSecretRef: { name: 'aws', key: 'secret' },
    },
  });
  await h.create('CertificateAuthority', 'root', {
    connectionRef,
    projectRef,
    type: 'root',
    commonName: 'Cols Root',
    organization: 'Cols',
    country: 'DE',
    validity: '8760h',
    keyAlgorithm: 'EC_prime256v1',
  });
  const sources = [{ projectRef, environment: 'dev' }];
  await h.create('WorkloadSecret', 'config', { connectionRef, sources, target: { secret: {} } });
  const sqlDatabase = { client: 'postgres', host: 'db.cols.svc', port: 5432, database: 'cols', username: 'admin', passwordSecretRef: { name: 'no-such-secret', key: 'password' }, creationStatement: 'SELECT 1', revocationStatement: 'SELECT 1' }; // prettier-ignore
  await h.create('DynamicSecret', 'db', { connectionRef, projectRef, environment: 'dev', name: 'db', defaultTTL: '1h', provider: { sqlDatabase } }); // prettier-ignore
}

beforeAll(async () => {
  h = await startOperatorHarness();
  await h.create('ClusterConnection', `cols-${suffix}`, {
    url: h.devserver.url,
    auth: { token: { secretRef: { name: HARNESS_TOKEN_SECRET, key: 'token', namespace: h.namespace } } },
    allowedNamespaces: { names: [h.namespace] },
  });
  await h.create('Project', 'cols', {
    connectionRef,
    name: 'Cols',
    slug: `cols-${suffix}`,
    deletionPolicy: 'Delete',
    environments: [{ name: 'Development', slug: 'dev' }],
  });
  await h.create('Project', 'orphan', {
    connectionRef: { name: 'not-yet' },
    name: 'Orphan',
    slug: `o-${suffix}`,
  });
  await h.create('Identity', 'bot', {
    connectionRef,
    name: `bot-${suffix}`,
    projectMemberships: [{ projectRef, roles: [{ role: 'viewer' }] }],
  });
  await h.create('AdditionalPrivilege', 'window', {
    connectionRef,
    identityRef: { name: 'bot' },
    projectRef,
    slug: 'window',
    permissions: [{ subject: 'secrets', action: 'read', conditions: { environment: 'dev' } }],
    temporary: { range: '1h' },
  });
  await h.create('ProjectTemplate', `cols-${suffix}`, {
    connectionRef: { kind: 'ClusterConnection', name: `cols-${suffix}` },
    name: `cols-${suffix}`,
    environments: [{ name: 'Development', slug: 'dev', position: 1 }],
  });
  await createOneOfTheOtherKinds();
  await h.waitForReady('AdditionalPrivilege', 'window', { timeoutMs: 45_000 });
  await h.waitForReady('ProjectTemplate', `cols-${suffix}`);
  for (const [kind, name] of [
    ['Bootstrap', 'again'],
    ['ProjectRole', 'reader'],
    ['IdentityAuth', 'bot-token'],
    ['SecretBatch', 'config'],
    ['Integration', 'aws'],
    ['CertificateAuthority', 'root'],
    ['DynamicSecret', 'db'],
  ] as const) {
    await waitFor(async () => ((await h.get(kind, name))?.status?.conditions?.length ?? 0) > 0, {
      message: `${kind} ${name} to report conditions`,
    });
  }
  await h.waitForCondition('Project', 'orphan', {
    type: 'Synced',
    status: 'False',
    reason: 'ReferenceNotReady',
  });
}, 180_000);

afterAll(async () => {
  await h?.stop();
});

describe('kubectl get -o wide', () => {
  it.each(kindDefinitions.map((d) => [d.kind, d] as const))(
    '%s: a REASON column, no column twice, no <invalid>',
    (_kind, definition) => {
      const table = kubectlGet(definition.plural, definition.scope === 'Namespaced');
      expect(table.rows.length, 'one object of the kind at least').toBeGreaterThan(0);
      expect(table.header).toContain('REASON');
      for (const row of table.rows) expect(row[table.header.indexOf('REASON')]).toMatch(/^[A-Z][A-Za-z]+$/);
      expect(table.header.filter((name, i) => table.header.indexOf(name) !== i)).toEqual([]);
      for (const row of table.rows) expect(row).not.toContain('<invalid>');
    },
  );

  it('REASON shows the failing reason, and Available once Ready', () => {
    const projects = kubectlGet('projects', true);
    expect(cell(projects, 'orphan', 'REASON')).toBe('ReferenceNotReady');
    expect(cell(projects, 'cols', 'REASON')).toBe('Available');
    expect(cell(kubectlGet('connections', true), HARNESS_CONNECTION, 'REASON')).toBe('Available');
  });

  it('an open temporary window shows when it EXPIRES', async () => {
    const end = (await h.get('AdditionalPrivilege', 'window'))?.status?.temporaryAccessEndTime;
    expect(typeof end).toBe('string');
    const expires = cell(kubectlGet('additionalprivileges', true), 'window', 'EXPIRES') ?? '';
    expect(Date.parse(expires)).toBe(Date.parse(String(end)));
    expect(Date.parse(expires)).toBeGreaterThan(Date.now());
  });

  it('ProjectTemplate names its service name SERVICE NAME beside the object NAME', () => {
    const templates = kubectlGet('projecttemplates', false);
    expect(templates.header.slice(0, 1)).toEqual(['NAME']);
    expect(cell(templates, `cols-${suffix}`, 'SERVICE NAME')).toBe(`cols-${suffix}`);
  });
});
