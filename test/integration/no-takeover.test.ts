// Coffer never takes over what it did not create, against the real control plane and a
// devserver: hostile and careless manifests naming objects made outside Coffer (the instance
// admin identity by name or id, through a ClusterConnection from an unadmitted namespace, a
// Connection's credential Secret as a WorkloadSecret target) change and delete nothing; explicit
// adoption and the protected-object opt-in still work. Every managed kind's refusal of an object
// found by natural key (AlreadyExists) is conformance.test.ts.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { additionalPrivilegeController } from '../../src/controllers/additional-privilege/index.ts';
import { identityAuthController } from '../../src/controllers/identity-auth/index.ts';
import { identityController } from '../../src/controllers/identity/index.ts';
import { projectRoleController } from '../../src/controllers/project-role/index.ts';
import { projectTemplateController } from '../../src/controllers/project-template/index.ts';
import { projectController } from '../../src/controllers/project/index.ts';
import { ANNOTATION_EXTERNAL_ID, ANNOTATION_MANAGE_PROTECTED } from '../../src/runtime/object-meta.ts';
import {
  HARNESS_CONNECTION,
  HARNESS_TOKEN_SECRET,
  startOperatorHarness,
  type CofferObject,
  type OperatorHarness,
} from '../support/operator.ts';

let h: OperatorHarness;
let projectId = '';
let botId = '';
const suffix = randomBytes(3).toString('hex');
const connectionRef = { name: HARNESS_CONNECTION };
const slug = (base: string) => `${base}-${suffix}`;

beforeAll(async () => {
  h = await startOperatorHarness({
    extraNamespaces: [{}, {}],
    operator: {
      kinds: [
        projectController,
        projectRoleController,
        projectTemplateController,
        identityController,
        identityAuthController,
        additionalPrivilegeController,
      ],
    },
  });
  // The project and identity the foreign objects live in, made outside Coffer.
  projectId = (
    await h.service.projects.create({
      projectName: 'Foreign',
      slug: slug('foreign'),
      shouldCreateDefaultEnvs: true,
    })
  ).id;
  botId = (await h.service.identities.create({ name: slug('bot'), organizationId: h.admin.organizationId }))
    .id;
  await h.service.memberships.create(projectId, botId, { roles: [{ role: 'viewer', isTemporary: false }] });
  // Kubernetes handles for them, adopted explicitly (ObserveOnly: never written).
  await h.create(
    'Project',
    'foreign',
    { connectionRef, name: 'Foreign', slug: slug('foreign'), managementPolicy: 'ObserveOnly' },
    { annotations: { [ANNOTATION_EXTERNAL_ID]: projectId } },
  );
  await h.create(
    'Identity',
    'bot',
    { connectionRef, name: slug('bot'), managementPolicy: 'ObserveOnly' },
    { annotations: { [ANNOTATION_EXTERNAL_ID]: botId } },
  );
  await h.waitForReady('Project', 'foreign');
  await h.waitForReady('Identity', 'bot');
});

afterAll(async () => {
  await h?.stop();
});

function message(obj: CofferObject, type: string): string {
  return obj.status?.conditions?.find((c) => c.type === type)?.message ?? '';
}

async function refused(
  kind: string,
  name: string,
  reason: string,
  namespace?: string,
): Promise<CofferObject> {
  return h.waitForCondition(
    kind,
    name,
    { type: 'Synced', status: 'False', reason },
    namespace ? { namespace } : {},
  );
}

/** Deletes the resource and waits until it is gone. */
async function deleteResource(kind: string, name: string, namespace?: string): Promise<void> {
  const at = namespace ? { namespace } : {};
  await h.delete(kind, name, at);
  await h.waitForDeletion(kind, name, at);
}

describe('no implicit adoption', () => {
  it('refuses an Identity whose name exists, even the instance admin’s, and the admin keeps working', async () => {
    const admin = await h.service.identities.get(h.admin.identityId);
    await h.create('Identity', 'admin-by-name', {
      connectionRef,
      name: admin.name,
      role: 'no-access',
      deletionPolicy: 'Delete',
    });
    expect(message(await refused('Identity', 'admin-by-name', 'AlreadyExists'), 'Synced')).toContain(
      h.admin.identityId,
    );
    await deleteResource('Identity', 'admin-by-name');
    const after = await h.service.identities.get(h.admin.identityId);
    expect(after.role).toBe(admin.role);
    // The admin token still works everywhere.
    expect((await h.service.projects.get(projectId)).id).toBe(projectId);
  });
});

describe('protected objects', () => {
  it('never changes or deletes the instance admin named by id without the opt-in', async () => {
    const admin = await h.service.identities.get(h.admin.identityId);
    await h.create(
      'Identity',
      'admin-by-id',
      { connectionRef, name: admin.name, role: 'no-access', deletionPolicy: 'Delete' },
      { annotations: { [ANNOTATION_EXTERNAL_ID]: h.admin.identityId } },
    );
    const obj = await refused('Identity', 'admin-by-id', 'ProtectedObject');
    expect(message(obj, 'Synced')).toContain(`identity ${h.admin.identityId} is the identity Connection`);
    expect(message(obj, 'Synced')).toContain(ANNOTATION_MANAGE_PROTECTED);
    await deleteResource('Identity', 'admin-by-id');
    expect((await h.service.identities.get(h.admin.identityId)).role).toBe(admin.role);
  });

  it('never attaches or revokes an auth method of the instance admin without the opt-in', async () => {
    await h.create(
      'Identity',
      'admin-observed',
      { connectionRef, name: 'ignored', managementPolicy: 'ObserveOnly' },
      { annotations: { [ANNOTATION_EXTERNAL_ID]: h.admin.identityId } },
    );
    await h.waitForReady('Identity', 'admin-observed');
    await h.create('IdentityAuth', 'admin-ua', {
      connectionRef,
      identityRef: { name: 'admin-observed' },
      method: 'universal',
      deletionPolicy: 'Delete',
    });
    await refused('IdentityAuth', 'admin-ua', 'ProtectedObject');
    await expect(h.service.identityAuth.universal.get(h.admin.identityId)).rejects.toMatchObject({
      status: 404,
    });
    await deleteResource('IdentityAuth', 'admin-ua');
  });

  it('changes a protected identity when the resource names it and opts in', async () => {
    // A second identity made protected by a Connection that authenticates as it.
    const other = await h.service.identities.create({
      name: slug('ops'),
      organizationId: h.admin.organizationId,
      role: 'admin',
    });
    await h.service.identityAuth.token.attach(other.id, {});
    const token = await h.service.tokenAuthTokens.create(other.id, { name: 'ops' });
    await h.createSecret('ops-token', { token: token.accessToken });
    await h.create('Connection', 'ops', {
      url: h.url,
      auth: { token: { secretRef: { name: 'ops-token', key: 'token' } } },
    });
    await h.waitForReady('Connection', 'ops');
    await h.create(
      'Identity',
      'ops',
      { connectionRef, name: slug('ops-renamed'), role: 'admin', deletionPolicy: 'Orphan' },
      { annotations: { [ANNOTATION_EXTERNAL_ID]: other.id } },
    );
    await refused('Identity', 'ops', 'ProtectedObject');
    await h.patch('Identity', 'ops', {
      metadata: { annotations: { [ANNOTATION_MANAGE_PROTECTED]: 'true' } },
    });
    await h.waitForReady('Identity', 'ops');
    expect((await h.service.identities.get(other.id)).name).toBe(slug('ops-renamed'));
  });
});

describe('explicit adoption through a ClusterConnection', () => {
  it('is refused from a namespace not admitted for adoption, and allowed once admitted', async () => {
    const [tenantA, tenantB] = h.namespaces.slice(1) as [string, string];
    await h.createSecret('shared-token', { token: h.admin.token }, { namespace: tenantA });
    await h.create('ClusterConnection', slug('shared'), {
      url: h.url,
      auth: { token: { secretRef: { name: 'shared-token', namespace: tenantA, key: 'token' } } },
      allowedNamespaces: { names: [tenantA, tenantB] },
    });
    await h.waitForReady('ClusterConnection', slug('shared'));
    const victim = await h.service.projects.create({
      projectName: 'Tenant B',
      slug: slug('tenant-b'),
      shouldCreateDefaultEnvs: false,
    });
    const hostile = {
      connectionRef: { kind: 'ClusterConnection', name: slug('shared') },
      name: 'Stolen',
      slug: slug('tenant-b'),
      deletionPolicy: 'Delete',
    };
    await h.create('Project', 'stolen', hostile, {
      namespace: tenantA,
      annotations: { [ANNOTATION_EXTERNAL_ID]: victim.id },
    });
    const obj = await refused('Project', 'stolen', 'AdoptionNotAllowed', tenantA);
    expect(message(obj, 'Synced')).toContain('spec.adoption.allowedNamespaces');
    await deleteResource('Project', 'stolen', tenantA);
    expect((await h.service.projects.get(victim.id)).name).toBe('Tenant B');

    // An administrator admits tenant A for adoption: the same manifest now adopts.
    await h.patch('ClusterConnection', slug('shared'), {
      spec: { adoption: { allowedNamespaces: { names: [tenantA] } } },
    });
    await h.create(
      'Project',
      'adopted',
      { ...hostile, name: 'Tenant B', deletionPolicy: 'Orphan' },
      {
        namespace: tenantA,
        annotations: { [ANNOTATION_EXTERNAL_ID]: victim.id },
      },
    );
    const adopted = await h.waitForReady('Project', 'adopted', { namespace: tenantA });
    expect(adopted.status?.id).toBe(victim.id);
    await deleteResource('Project', 'adopted', tenantA);
    await h.delete('ClusterConnection', slug('shared'));
  });

  it('lets a resource it created through a ClusterConnection delete its own object', async () => {
    const [tenantA] = h.namespaces.slice(1) as [string];
    await h.create('ClusterConnection', slug('own'), {
      url: h.url,
      auth: { token: { secretRef: { name: 'shared-token', namespace: tenantA, key: 'token' } } },
      allowedNamespaces: { names: [tenantA] },
    });
    await h.create(
      'Project',
      'own',
      {
        connectionRef: { kind: 'ClusterConnection', name: slug('own') },
        name: 'Own',
        slug: slug('own'),
        deletionPolicy: 'Delete',
      },
      { namespace: tenantA },
    );
    const ready = await h.waitForReady('Project', 'own', { namespace: tenantA });
    const id = ready.status?.id ?? '';
    expect(ready.metadata.annotations?.[ANNOTATION_EXTERNAL_ID]).toBe(id);
    await deleteResource('Project', 'own', tenantA);
    await expect(h.service.projects.get(id)).rejects.toMatchObject({ status: 404 });
    await h.delete('ClusterConnection', slug('own'));
  });
});

describe('WorkloadSecret targets', () => {
  it('never overwrites a Connection’s credential Secret, even with adoptExisting', async () => {
    await h.create('WorkloadSecret', 'token-taker', {
      connectionRef,
      sources: [{ projectRef: { name: 'foreign' }, environment: 'dev' }],
      target: { secret: { name: HARNESS_TOKEN_SECRET }, adoptExisting: true, creationPolicy: 'Owner' },
    });
    const obj = await refused('WorkloadSecret', 'token-taker', 'TargetConflict');
    expect(message(obj, 'Synced')).toContain(`coffer.dev/adopt-by: WorkloadSecret/token-taker`);
    expect(await h.readSecret(HARNESS_TOKEN_SECRET)).toEqual({ token: h.admin.token });
    await deleteResource('WorkloadSecret', 'token-taker');
    expect(await h.readSecret(HARNESS_TOKEN_SECRET)).toEqual({ token: h.admin.token });
  });
});
