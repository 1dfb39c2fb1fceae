// Protection of identities a Connection authenticates as, against the real control plane and a
// devserver. The setup of docs/no-stored-credentials.md (Project, Identity, IdentityAuth with
// Kubernetes auth checked by a real TokenReview, AdditionalPrivilege, and a Connection logging in
// as the identity with a ServiceAccount token): the identity the resources created stays theirs,
// so after the login each one still applies a spec change and stays Synced=True, also on a
// reconcile with nothing to write. An identity adopted by coffer.dev/external-id that a Connection
// authenticates as is observed and Synced while nothing is to be written, and refused
// (ProtectedObject) once an update is due or a dependent would attach to it.
import { randomBytes } from 'node:crypto';
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION_EXTERNAL_ID, ANNOTATION_RECONCILE_REQUESTED_AT } from '../../src/runtime/object-meta.ts';
import { clusterFromInjected, waitFor } from '../support/kube.ts';
import {
  HARNESS_CONNECTION,
  startOperatorHarness,
  type CofferObject,
  type OperatorHarness,
} from '../support/operator.ts';

const AUDIENCE = 'coffer';
const suffix = randomBytes(3).toString('hex');
const connectionRef = { name: HARNESS_CONNECTION };
const rbac = clusterFromInjected().kubeConfig().makeApiClient(RbacAuthorizationV1Api);
const reviewerBinding = `protection-reviewer-${suffix}`;

let h: OperatorHarness;

function condition(obj: CofferObject | undefined, type: string) {
  return obj?.status?.conditions?.find((c) => c.type === type);
}

/** Waits until `kind/name` is Synced=True for its current generation. */
function synced(kind: string, name: string): Promise<CofferObject> {
  return h.waitForCondition(kind, name, { type: 'Synced', status: 'True' }, { timeoutMs: 60_000 });
}

/** Requests a reconcile, waits until the operator handled it, and returns the object then. */
async function reconcileNow(kind: string, name: string): Promise<CofferObject> {
  const requested = await h.requestReconcile(kind, name);
  const value = requested.metadata.annotations?.[ANNOTATION_RECONCILE_REQUESTED_AT];
  return waitFor(
    async () => {
      const obj = await h.get(kind, name);
      return obj?.status?.lastHandledReconcileAt === value ? obj : undefined;
    },
    { timeoutMs: 30_000, message: `the requested reconcile of ${kind} ${name} handled` },
  );
}

beforeAll(async () => {
  h = await startOperatorHarness();
  for (const name of ['app', 'reviewer'])
    await h.core.createNamespacedServiceAccount({ namespace: h.namespace, body: { metadata: { name } } });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: reviewerBinding },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:auth-delegator' },
      subjects: [{ kind: 'ServiceAccount', name: 'reviewer', namespace: h.namespace }],
    },
  });
  const review = await h.core.createNamespacedServiceAccountToken({
    namespace: h.namespace,
    name: 'reviewer',
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  await h.createSecret('reviewer-token', { token: review.status?.token ?? '' });
}, 120_000);

afterAll(async () => {
  await h?.stop();
  await rbac.deleteClusterRoleBinding({ name: reviewerBinding }).catch(() => undefined);
});

describe('an identity the resources created, once a Connection logs in as it', () => {
  it('stays theirs: Identity, IdentityAuth and AdditionalPrivilege apply changes and stay Synced', async () => {
    await h.create('Project', 'demo', { connectionRef, name: 'demo', slug: `demo-${suffix}` });
    await h.create('Identity', 'app', {
      connectionRef,
      name: `app-${suffix}`,
      role: 'no-access',
      projectMemberships: [{ projectRef: { name: 'demo' }, roles: [{ role: 'viewer' }] }],
    });
    await h.create('IdentityAuth', 'app-kubernetes', {
      connectionRef,
      identityRef: { name: 'app' },
      method: 'kubernetes',
      accessTokenTTL: 3600,
      accessTokenMaxTTL: 86400,
      kubernetes: {
        allowedNamespaces: [h.namespace],
        allowedNames: ['app'],
        allowedAudience: AUDIENCE,
        tokenReviewerJwtSecretRef: { name: 'reviewer-token' },
      },
    });
    const write = { subject: 'secrets', action: ['create', 'edit'], conditions: { environment: 'dev' } };
    await h.create('AdditionalPrivilege', 'app-dev-write', {
      connectionRef,
      identityRef: { name: 'app' },
      projectRef: { name: 'demo' },
      slug: 'dev-write',
      permissions: [write],
    });
    await h.create('Connection', 'app', {
      url: h.url,
      auth: {
        kubernetes: {
          identityRef: { name: 'app' },
          serviceAccountToken: { serviceAccountRef: { name: 'app', audiences: [AUDIENCE] } },
        },
      },
    });
    const identity = await h.waitForReady('Identity', 'app', { timeoutMs: 60_000 });
    const id = identity.status?.id ?? '';
    expect(identity.status?.createdId).toBe(id);
    // The login: the Connection names the identity it authenticated as, which makes it protected.
    const connection = await h.waitForReady('Connection', 'app', { timeoutMs: 60_000 });
    expect(connection.status?.id).toBe(id);
    const privilege = await h.waitForReady('AdditionalPrivilege', 'app-dev-write', { timeoutMs: 60_000 });
    await h.waitForReady('IdentityAuth', 'app-kubernetes', { timeoutMs: 60_000 });

    // Each resource changes its own objects after the login.
    await h.patch('IdentityAuth', 'app-kubernetes', { spec: { accessTokenTTL: 1800 } });
    await synced('IdentityAuth', 'app-kubernetes');
    expect((await h.service.identityAuth.kubernetes.get(id)).accessTokenTTL).toBe(1800);
    await h.patch('AdditionalPrivilege', 'app-dev-write', {
      spec: { permissions: [{ ...write, action: ['create', 'edit', 'delete'] }] },
    });
    await synced('AdditionalPrivilege', 'app-dev-write');
    const stored = await h.service.privileges.get(privilege.status?.id ?? '');
    expect(stored.permissions?.[0]?.action).toEqual(['create', 'edit', 'delete']);
    await h.patch('Identity', 'app', { spec: { role: 'member' } });
    await synced('Identity', 'app');
    expect((await h.service.identities.get(id)).role).toBe('member');

    // A reconcile with nothing to write, well after the login: all Synced, the login still works.
    for (const [kind, name] of [
      ['Identity', 'app'],
      ['IdentityAuth', 'app-kubernetes'],
      ['AdditionalPrivilege', 'app-dev-write'],
    ] as const)
      expect(condition(await reconcileNow(kind, name), 'Synced')).toMatchObject({ status: 'True' });
    expect(condition(await reconcileNow('Connection', 'app'), 'Ready')).toMatchObject({ status: 'True' });
  }, 180_000);
});

describe('an identity adopted by coffer.dev/external-id that a Connection authenticates as', () => {
  it('is Synced while nothing is to be written, and refused once a write is due', async () => {
    const other = await h.service.identities.create({
      name: `ops-${suffix}`,
      organizationId: h.admin.organizationId,
      role: 'member',
    });
    await h.service.identityAuth.token.attach(other.id, {});
    const token = await h.service.tokenAuthTokens.create(other.id, { name: 'ops' });
    await h.createSecret('ops-token', { token: token.accessToken });
    await h.create('Connection', 'ops', {
      url: h.url,
      auth: { token: { secretRef: { name: 'ops-token', key: 'token' } } },
    });
    expect((await h.waitForReady('Connection', 'ops')).status?.id).toBe(other.id);

    // The spec matches the identity: nothing to write, no refusal.
    await h.create(
      'Identity',
      'ops',
      { connectionRef, name: `ops-${suffix}`, role: 'member', deletionPolicy: 'Orphan' },
      { annotations: { [ANNOTATION_EXTERNAL_ID]: other.id } },
    );
    const adopted = await h.waitForReady('Identity', 'ops');
    expect(condition(adopted, 'Synced')).toMatchObject({ status: 'True' });
    expect(adopted.status?.id).toBe(other.id);
    expect(adopted.status?.createdId).toBeUndefined();
    expect(condition(await reconcileNow('Identity', 'ops'), 'Synced')).toMatchObject({ status: 'True' });

    // A dependent acting on it through the adopting Identity may not attach a method.
    await h.create('IdentityAuth', 'ops-universal', {
      connectionRef,
      identityRef: { name: 'ops' },
      method: 'universal',
    });
    const dependent = await h.waitForCondition('IdentityAuth', 'ops-universal', {
      type: 'Synced',
      status: 'False',
      reason: 'ProtectedObject',
    });
    expect(condition(dependent, 'Synced')?.message).toContain(
      `identity ${other.id} is the identity Connection ${h.namespace}/ops authenticates as and Identity ops did not create it`,
    );
    await expect(h.service.identityAuth.universal.get(other.id)).rejects.toMatchObject({ status: 404 });

    // An update is due: refused, the identity unchanged.
    await h.patch('Identity', 'ops', { spec: { role: 'no-access' } });
    const refused = await h.waitForCondition('Identity', 'ops', {
      type: 'Synced',
      status: 'False',
      reason: 'ProtectedObject',
    });
    expect(condition(refused, 'Synced')?.message).toContain(
      `identity ${other.id} is the identity Connection ${h.namespace}/ops authenticates as and this resource did not create it`,
    );
    expect((await h.service.identities.get(other.id)).role).toBe('member');
  }, 120_000);
});
