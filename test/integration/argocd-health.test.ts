/**
 * The generated Argo CD health checks and the kstatus reading (Flux), proven on live objects:
 * every kind is driven by the real operator against the real API server and a devserver into
 * the states it can reach (Ready, waiting on a reference / Secret / folder / role / membership,
 * terminal failures, an expired privilege, a pending CA, a deletion the service blocks, a
 * connection waiting for its users, paused), and each object, exactly as the API server returns
 * it, is evaluated by resource_customizations/coffer.dev/<Kind>/health.lua in gopher-lua (Argo
 * CD's VM) and in lua5.4, and by kstatus's rules. Each verdict must be the one the class of the
 * reason the operator set calls for (the tables of src/controllers/reasons.ts), and each state
 * must match its committed case in health_test.yaml and testdata/ (test/support/argocd-cases.ts;
 * `npm run capture:argocd` rewrites them from this run).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import '../../src/controllers/reasons.ts';
import { ANNOTATION_EXTERNAL_ID, ANNOTATION_PAUSED } from '../../src/runtime/object-meta.ts';
import { classOfReason, type ReasonClass } from '../../src/runtime/reasons.ts';
import { capturing, HealthCases } from '../support/argocd-cases.ts';
import { buildGopherLua, healthInGopherLua, healthInLua54 } from '../support/argocd-health.ts';
import { kstatusOf, type KstatusStatus } from '../support/kstatus.ts';
import { startPostgres } from '../support/postgres.ts';
import {
  HARNESS_CONNECTION,
  HARNESS_TOKEN_SECRET,
  startOperatorHarness,
  type CofferObject,
  type OperatorHarness,
} from '../support/operator.ts';

let h: OperatorHarness;
let gopherLua = '';
const suffix = randomBytes(3).toString('hex');
const connectionRef = { name: HARNESS_CONNECTION };
const projectRef = { name: 'shop' };
const cases = new HealthCases(() => ({ namespace: h.namespace, suffix, devserverUrl: h.devserver.url }));

/** The Argo CD health a reason's class calls for. */
const argoOfClass: Readonly<Record<ReasonClass, string>> = {
  healthy: 'Healthy',
  progressing: 'Progressing',
  waiting: 'Progressing',
  terminal: 'Degraded',
  suspended: 'Suspended',
};

/** The kstatus status a reason's class calls for (kstatus has no "suspended"). */
const kstatusOfClass: Readonly<Record<ReasonClass, KstatusStatus>> = {
  healthy: 'Current',
  progressing: 'InProgress',
  waiting: 'InProgress',
  terminal: 'Failed',
  suspended: 'Current',
};

interface Expected {
  /** The condition and reason the operator set. */
  readonly type: 'Ready' | 'Synced';
  readonly status: 'True' | 'False';
  readonly reason: string;
  /** What Argo CD must show. */
  readonly argo: 'Healthy' | 'Progressing' | 'Degraded' | 'Suspended';
  readonly namespace?: string;
}

/**
 * Waits until the operator set `expected` on the object, then evaluates the health check in both
 * interpreters and kstatus on the object as read back, and checks each against the class of the
 * reason. Returns the object.
 */
async function expectHealth(kind: string, name: string, expected: Expected): Promise<CofferObject> {
  const at = expected.namespace ? { namespace: expected.namespace } : {};
  const obj = await h.waitForCondition(kind, name, expected, { ...at, timeoutMs: 45_000 });
  const reasonClass = classOfReason(expected.reason);
  expect(reasonClass, `${expected.reason} is declared`).toBeDefined();
  const deleting = obj.metadata.deletionTimestamp !== undefined;
  const [gopher] = await healthInGopherLua(gopherLua, kind, [obj]);
  const [lua] = healthInLua54(kind, [obj]);
  const what = `${kind} ${name} (${expected.type} ${expected.reason}, ${reasonClass})`;
  expect(gopher?.status, `${what} in gopher-lua: ${gopher?.message}`).toBe(expected.argo);
  expect(gopher?.status, `${what}: the verdict its class calls for`).toBe(
    argoOfClass[reasonClass ?? 'waiting'],
  );
  expect(lua, `${what}: lua5.4 agrees with gopher-lua`).toEqual(gopher);
  const kstatus = kstatusOf(obj);
  expect(kstatus.status, `${what} in kstatus: ${kstatus.message}`).toBe(
    deleting ? 'Terminating' : kstatusOfClass[reasonClass ?? 'waiting'],
  );
  if (expected.argo !== 'Healthy')
    expect(gopher?.message.toLowerCase()).toContain(expected.reason.toLowerCase());
  cases.record(kind, obj, gopher ?? { status: '', message: '' }, expected.reason);
  return obj;
}

const synced = (reason: string, argo: Expected['argo']): Expected => ({
  type: 'Synced',
  status: 'False',
  reason,
  argo,
});
const notReady = (reason: string, argo: Expected['argo']): Expected => ({
  type: 'Ready',
  status: 'False',
  reason,
  argo,
});
const ready: Expected = { type: 'Ready', status: 'True', reason: 'Available', argo: 'Healthy' };

const tokenAuth = (secret: string, namespace?: string) => ({
  token: { secretRef: { name: secret, key: 'token', ...(namespace ? { namespace } : {}) } },
});

beforeAll(async () => {
  [h, gopherLua] = await Promise.all([startOperatorHarness(), buildGopherLua()]);
  await h.create('Project', 'shop', {
    connectionRef,
    name: 'Shop',
    slug: `shop-${suffix}`,
    deletionPolicy: 'Delete',
    environments: [{ name: 'Development', slug: 'dev' }],
  });
  await h.waitForReady('Project', 'shop');
  await h.create('Identity', 'bot', {
    connectionRef,
    name: `bot-${suffix}`,
    projectMemberships: [{ projectRef, roles: [{ role: 'viewer' }] }],
  });
  await h.waitForReady('Identity', 'bot');
}, 180_000);

afterAll(async () => {
  await h?.stop();
});

describe('Connection and ClusterConnection', () => {
  it('Ready is Healthy', async () => {
    await expectHealth('Connection', HARNESS_CONNECTION, ready);
  });

  it('a missing credentials Secret is Progressing (it clears once the Secret comes), then Healthy', async () => {
    await h.create('Connection', 'early', { url: h.devserver.url, auth: tokenAuth('early-token') });
    await expectHealth('Connection', 'early', synced('CredentialsNotFound', 'Progressing'));
    await h.createSecret('early-token', { token: h.admin.token });
    await expectHealth('Connection', 'early', ready);
  });

  it('credentials the service rejects are Degraded', async () => {
    await h.createSecret('wrong-token', { token: 'not-a-valid-token' });
    await h.create('Connection', 'wrong', { url: h.devserver.url, auth: tokenAuth('wrong-token') });
    await expectHealth('Connection', 'wrong', synced('InvalidCredentials', 'Degraded'));
  });

  it('a ClusterConnection: Ready is Healthy, a missing Secret Progressing', async () => {
    const allowedNamespaces = { names: [h.namespace] };
    await h.create('ClusterConnection', `cc-${suffix}`, {
      url: h.devserver.url,
      auth: tokenAuth(HARNESS_TOKEN_SECRET, h.namespace),
      allowedNamespaces,
    });
    await expectHealth('ClusterConnection', `cc-${suffix}`, ready);
    await h.create('ClusterConnection', `cc-missing-${suffix}`, {
      url: h.devserver.url,
      auth: tokenAuth('no-such-secret', h.namespace),
      allowedNamespaces,
    });
    await expectHealth(
      'ClusterConnection',
      `cc-missing-${suffix}`,
      synced('CredentialsNotFound', 'Progressing'),
    );
  });

  it('a resource in a namespace its ClusterConnection stops admitting is Degraded (NamespaceNotAllowed)', async () => {
    await h.create('ClusterConnection', `cc-narrow-${suffix}`, {
      url: h.devserver.url,
      auth: tokenAuth(HARNESS_TOKEN_SECRET, h.namespace),
      allowedNamespaces: { names: [h.namespace] },
    });
    await h.waitForReady('ClusterConnection', `cc-narrow-${suffix}`);
    await h.create('Project', 'admitted', {
      connectionRef: { kind: 'ClusterConnection', name: `cc-narrow-${suffix}` },
      name: 'Admitted',
      slug: `admitted-${suffix}`,
    });
    await expectHealth('Project', 'admitted', ready);
    await h.patch('ClusterConnection', `cc-narrow-${suffix}`, {
      spec: { allowedNamespaces: { names: ['elsewhere'] } },
    });
    await h.requestReconcile('Project', 'admitted');
    await expectHealth('Project', 'admitted', synced('NamespaceNotAllowed', 'Degraded'));
    // Its user gone (deletionPolicy Orphan: no service call), the ClusterConnection can finish its
    // deletion when the harness stops instead of waiting for it until the harness gives up.
    await h.delete('Project', 'admitted');
    await h.waitForDeletion('Project', 'admitted');
  });

  it('a Connection deleted while a resource uses it waits for it (Progressing, kstatus Terminating)', async () => {
    await h.create('Connection', 'holder', { url: h.devserver.url, auth: tokenAuth(HARNESS_TOKEN_SECRET) });
    await h.waitForReady('Connection', 'holder');
    await h.create('Project', 'held', {
      connectionRef: { name: 'holder' },
      name: 'Held',
      slug: `held-${suffix}`,
      deletionPolicy: 'Delete',
    });
    await h.waitForReady('Project', 'held');
    await h.delete('Connection', 'holder');
    await expectHealth('Connection', 'holder', notReady('DeletionWaiting', 'Progressing'));
    await h.delete('Project', 'held');
    await h.waitForDeletion('Connection', 'holder', { timeoutMs: 45_000 });
  });
});

describe('Bootstrap', () => {
  it('an instance set up before is Degraded (AlreadyBootstrapped)', async () => {
    await h.createSecret('bootstrap-password', { password: 'sample-only-password' });
    await h.create('Bootstrap', 'again', {
      url: h.devserver.url,
      email: 'admin@example.com',
      passwordSecretRef: { name: 'bootstrap-password', key: 'password' },
      organization: 'Again',
      outputSecretName: 'again-admin',
    });
    await expectHealth('Bootstrap', 'again', synced('AlreadyBootstrapped', 'Degraded'));
  });
});

// These three suites work on objects of their own (the shared Project shop and Identity bot are
// only referenced), and some wait for a poll or an expiry: their tests all run at the same time.
describe('Project', { concurrent: true }, () => {
  it('Ready is Healthy; a missing Connection is Progressing', async () => {
    await expectHealth('Project', 'shop', ready);
    await h.create('Project', 'orphan', {
      connectionRef: { name: 'not-yet' },
      name: 'Orphan',
      slug: `orphan-${suffix}`,
    });
    await expectHealth('Project', 'orphan', synced('ReferenceNotReady', 'Progressing'));
  });

  it('an object of the same slug it did not create is Degraded (AlreadyExists)', async () => {
    await h.service.projects.create({
      projectName: 'Taken',
      slug: `taken-${suffix}`,
      shouldCreateDefaultEnvs: false,
    });
    await h.create('Project', 'taken', { connectionRef, name: 'Taken', slug: `taken-${suffix}` });
    await expectHealth('Project', 'taken', synced('AlreadyExists', 'Degraded'));
  });

  it('a deletion the service blocks is Degraded while being deleted (DeletionBlocked)', async () => {
    await h.create('Project', 'kept', {
      connectionRef,
      name: 'Kept',
      slug: `kept-${suffix}`,
      deletionPolicy: 'Delete',
      hasDeleteProtection: true,
      pollInterval: '10s',
    });
    const id = (await h.waitForReady('Project', 'kept')).status?.id ?? '';
    await h.delete('Project', 'kept');
    await expectHealth('Project', 'kept', synced('DeletionBlocked', 'Degraded'));
    await h.service.projects.update(id, { hasDeleteProtection: false });
    await h.waitForDeletion('Project', 'kept', { timeoutMs: 45_000 });
  });

  it('paused is Suspended (kstatus: Current)', async () => {
    await h.create(
      'Project',
      'still',
      { connectionRef, name: 'Still', slug: `still-${suffix}` },
      { annotations: { [ANNOTATION_PAUSED]: 'true' } },
    );
    await expectHealth('Project', 'still', synced('Paused', 'Suspended'));
  });
});

describe('ProjectRole, ProjectTemplate', { concurrent: true }, () => {
  it('a ProjectRole: Ready is Healthy; a missing Project is Progressing', async () => {
    const permissions = [{ subject: 'secrets', action: ['describeSecret'] }];
    await h.create('ProjectRole', 'reader', {
      connectionRef,
      projectRef,
      slug: 'reader',
      name: 'Reader',
      permissions,
    });
    await expectHealth('ProjectRole', 'reader', ready);
    await h.create('ProjectRole', 'lost', {
      connectionRef,
      projectRef: { name: 'no-project' },
      slug: 'lost',
      name: 'Lost',
      permissions,
    });
    await expectHealth('ProjectRole', 'lost', synced('ReferenceNotReady', 'Progressing'));
  });

  it('a ProjectTemplate through a ClusterConnection is Healthy', async () => {
    await h.create('ProjectTemplate', `tpl-${suffix}`, {
      connectionRef: { kind: 'ClusterConnection', name: `cc-${suffix}` },
      name: `tpl-${suffix}`,
      environments: [{ name: 'Development', slug: 'dev', position: 1 }],
    });
    await expectHealth('ProjectTemplate', `tpl-${suffix}`, ready);
  });
});

describe('Identity, IdentityAuth, AdditionalPrivilege', { concurrent: true }, () => {
  it('an Identity: Ready is Healthy; a role the project lacks is Progressing (UnknownRole)', async () => {
    await expectHealth('Identity', 'bot', ready);
    await h.create('Identity', 'hopeful', {
      connectionRef,
      name: `hopeful-${suffix}`,
      projectMemberships: [{ projectRef, roles: [{ role: 'no-such-role' }] }],
    });
    await expectHealth('Identity', 'hopeful', synced('UnknownRole', 'Progressing'));
  });

  it('an Identity naming the admin identity by id is Degraded (ProtectedObject)', async () => {
    await h.create(
      'Identity',
      'admin-copy',
      { connectionRef, name: `admin-copy-${suffix}` },
      { annotations: { [ANNOTATION_EXTERNAL_ID]: h.admin.identityId } },
    );
    await expectHealth('Identity', 'admin-copy', synced('ProtectedObject', 'Degraded'));
  });

  it('an IdentityAuth: Ready is Healthy; a missing Identity is Progressing', async () => {
    await h.create('IdentityAuth', 'bot-token', {
      connectionRef,
      identityRef: { name: 'bot' },
      method: 'token',
      accessTokenTTL: 3600,
      accessTokenMaxTTL: 3600,
    });
    await expectHealth('IdentityAuth', 'bot-token', ready);
    await h.create('IdentityAuth', 'nobody-token', {
      connectionRef,
      identityRef: { name: 'nobody' },
      method: 'token',
    });
    await expectHealth('IdentityAuth', 'nobody-token', synced('ReferenceNotReady', 'Progressing'));
  });

  const privilege = (slug: string, extra: Record<string, unknown> = {}) => ({
    connectionRef,
    identityRef: { name: 'bot' },
    projectRef,
    slug,
    permissions: [{ subject: 'secrets', action: 'read', conditions: { environment: 'dev' } }],
    ...extra,
  });

  it('an AdditionalPrivilege: Ready is Healthy; an ended window is Degraded (Expired)', async () => {
    await h.create('AdditionalPrivilege', 'extra', privilege('extra'));
    await expectHealth('AdditionalPrivilege', 'extra', ready);
    await h.create('AdditionalPrivilege', 'brief', privilege('brief', { temporary: { range: '3s' } }));
    await expectHealth('AdditionalPrivilege', 'brief', notReady('Expired', 'Degraded'));
  });

  it('an AdditionalPrivilege for an identity without membership is Progressing (MembershipMissing)', async () => {
    await h.create('Identity', 'loner', { connectionRef, name: `loner-${suffix}` });
    await h.waitForReady('Identity', 'loner');
    await h.create('AdditionalPrivilege', 'lonely', {
      ...privilege('lonely'),
      identityRef: { name: 'loner' },
    });
    await expectHealth('AdditionalPrivilege', 'lonely', synced('MembershipMissing', 'Progressing'));
  });
});

describe('SecretBatch, Integration, CertificateAuthority', () => {
  const batch = (extra: Record<string, unknown>) => ({
    connectionRef,
    projectRef,
    environment: 'dev',
    ...extra,
  });

  it('a SecretBatch waiting for its Secret is Progressing, then Healthy once it exists', async () => {
    await h.create(
      'SecretBatch',
      'config',
      batch({ secretPath: '/app', fromSecret: { name: 'app-config' } }),
    );
    await expectHealth('SecretBatch', 'config', synced('SecretNotFound', 'Progressing'));
    await h.createSecret('app-config', { LOG_LEVEL: 'info' });
    await expectHealth('SecretBatch', 'config', ready);
  });

  it('a SecretBatch whose folder does not exist is Progressing (FolderNotFound)', async () => {
    const secrets = [{ key: 'MODE', value: 'x' }];
    await h.create(
      'SecretBatch',
      'nofolder',
      batch({ secretPath: '/missing', createFolders: false, secrets }),
    );
    await expectHealth('SecretBatch', 'nofolder', synced('FolderNotFound', 'Progressing'));
  });

  const integration = (app: string) => ({
    connectionRef,
    projectRef,
    integration: 'aws-secret-manager',
    environment: 'dev',
    app,
    region: 'eu-west-1',
    auth: {
      accessIdSecretRef: { name: 'aws', key: 'id' },
      accessTokenSecretRef: { name: 'aws', key: 'secret' },
    },
  });

  it('an Integration waiting for its credentials Secret is Progressing; one the service refuses Degraded', async () => {
    await h.create('Integration', 'waiting', integration('waiting-app'));
    await expectHealth('Integration', 'waiting', synced('SecretNotFound', 'Progressing'));
    await h.createSecret('aws', { id: 'AKIA-HEALTH', secret: 'sample-only' });
    await expectHealth('Integration', 'waiting', synced('IntegrationsDeprecated', 'Degraded'));
  });

  const ca = (commonName: string, extra: Record<string, unknown> = {}) => ({
    connectionRef,
    projectRef,
    type: 'root',
    commonName,
    organization: 'Shop',
    country: 'DE',
    validity: '8760h',
    keyAlgorithm: 'EC_prime256v1',
    ...extra,
  });

  it('a root CA is Healthy; an intermediate waiting for a signature is Degraded (PendingCertificate)', async () => {
    await h.create('CertificateAuthority', 'root', ca('Shop Root', { outputSecretName: 'root-ca' }));
    await expectHealth('CertificateAuthority', 'root', ready);
    await h.create('CertificateAuthority', 'issuing', ca('Shop Issuing', { type: 'intermediate' }));
    await expectHealth('CertificateAuthority', 'issuing', notReady('PendingCertificate', 'Degraded'));
  });
});

describe('DynamicSecret', () => {
  it('waiting for its Secret is Progressing; an unreachable database Degraded; a reachable one Healthy', async () => {
    const db = await startPostgres();
    onTestFinished(() => db.stop());
    const spec = (name: string, host: string, port: number) => ({ connectionRef, projectRef, environment: 'dev', name, defaultTTL: '1h', provider: { sqlDatabase: { client: 'postgres', host, port, database: db.database, username: db.user, passwordSecretRef: { name: 'db-admin', key: 'password' }, creationStatement: 'SELECT 1', revocationStatement: 'SELECT 1' } } }); // prettier-ignore
    await h.create('DynamicSecret', 'unreachable', spec('unreachable', '127.0.0.1', 1));
    await expectHealth('DynamicSecret', 'unreachable', synced('SecretNotFound', 'Progressing'));
    await h.createSecret('db-admin', { password: db.password });
    await expectHealth('DynamicSecret', 'unreachable', synced('Rejected', 'Degraded'));
    await h.create('DynamicSecret', 'db', spec('db', db.host, db.port));
    await expectHealth('DynamicSecret', 'db', ready);
  });
});

describe('health_test.yaml', () => {
  it('every committed case is a state a live object was in', () => {
    if (capturing) cases.write();
    expect(cases.unseen(), 'run npm run capture:argocd').toEqual([]);
  });
});
