// A Connection naming the identity it logs in as by `identityRef` (an Identity resource of its
// namespace) instead of copying its id: while the Identity is missing, and while it exists but is
// not Ready, the Connection waits (Synced=False ReferenceNotReady, Ready=False, the message naming
// the field and the Identity) and so does a Project using it; once the Identity is Ready the
// Connection logs in as it through Kubernetes auth (a real TokenReview) and the Project is created.
// The operator's waiting requeue is 10 minutes here, so only the Identity's watch can wake the
// Connection, and only the Connection's watch the Project. A ClusterConnection names the Identity's
// namespace. A Connection whose Identity has no Kubernetes auth yet waits with LoginMethodNotFound
// and logs in once an IdentityAuth attaches the method: the IdentityAuth getting Ready wakes it
// (with the 10-minute requeue, nothing else could). No ServiceAccount token appears in logs or status.
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { clusterFromInjected, waitFor } from '../support/kube.ts';
import { startOperatorHarness, type CofferObject, type OperatorHarness } from '../support/operator.ts';

const AUDIENCE = 'coffer';
const suffix = Math.random().toString(36).slice(2, 7);
const cluster = clusterFromInjected();
const rbac = cluster.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
const reviewerBinding = `identity-ref-reviewer-${suffix}`;
/** Every ServiceAccount token the test minted, to check none leaks. */
const minted: string[] = [];

let h: OperatorHarness;
/** The identity created in the service before its Identity resource (which adopts it). */
let identityId = '';

const loginSpec = (identityRef: Record<string, string>, serviceAccountRef: Record<string, unknown>) => ({
  kubernetes: { identityRef, serviceAccountToken: { serviceAccountRef } },
});

function synced(obj: CofferObject | undefined) {
  return obj?.status?.conditions?.find((c) => c.type === 'Synced');
}

function expectNoMintedToken(text: string): void {
  for (const token of minted) if (token) expect(text.includes(token)).toBe(false);
}

/** Waits until the Connection waits (Synced=False ReferenceNotReady) with exactly `message`. */
async function expectWaiting(name: string, message: string): Promise<CofferObject> {
  return waitFor(
    async () => {
      const obj = await h.get('Connection', name);
      const condition = synced(obj);
      const current = condition?.observedGeneration === obj?.metadata.generation;
      return current && condition?.reason === 'ReferenceNotReady' && condition.message === message
        ? obj
        : undefined;
    },
    {
      timeoutMs: 30_000,
      intervalMs: 200,
      message: `Connection ${name} to wait with "${message}"`,
    },
  );
}

beforeAll(async () => {
  h = await startOperatorHarness({ operator: { waitRequeueMs: 600_000 } });
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
  minted.push(review.status?.token ?? '');
  await h.createSecret('reviewer-token', { token: review.status?.token ?? '' });
  // The identity exists in the service, with Kubernetes auth for the ServiceAccount app, before
  // any Identity resource: the resource adopts it (coffer.dev/external-id).
  const identity = await h.service.identities.create({
    name: `app-${suffix}`,
    organizationId: h.admin.organizationId,
    role: 'member',
  });
  identityId = identity.id;
  await h.service.identityAuth.kubernetes.attach(identityId, {
    kubernetesHost: cluster.server,
    caCert: readFileSync(cluster.info.caCertPath, 'utf8'),
    tokenReviewerJwt: review.status?.token ?? '',
    allowedNamespaces: h.namespace,
    allowedNames: 'app',
    allowedAudience: AUDIENCE,
  });
}, 120_000);

afterAll(async () => {
  await h?.stop();
  await rbac.deleteClusterRoleBinding({ name: reviewerBinding }).catch(() => undefined);
});

describe('a Connection naming its login identity by identityRef', () => {
  it('waits while the Identity is missing or not Ready, then logs in as it and a Project follows', async () => {
    await h.create('Connection', 'as-app', {
      url: h.url,
      auth: loginSpec({ name: 'app' }, { name: 'app', audiences: [AUDIENCE] }),
    });
    const missing = await expectWaiting(
      'as-app',
      'spec.auth.kubernetes.identityRef: waiting for Identity app: it does not exist',
    );
    expect(missing.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      message: synced(missing)?.message,
    });
    await h.create('Project', 'p-app', {
      connectionRef: { name: 'as-app' },
      name: 'p-app',
      slug: `p-app-${suffix}`,
    });
    const project = await h.waitForCondition('Project', 'p-app', {
      type: 'Synced',
      status: 'False',
      reason: 'ReferenceNotReady',
    });
    expect(synced(project)?.message).toContain('waiting for Connection as-app: it is not Ready');

    // The Identity exists but waits for a Project that is not there yet: not Ready, no id.
    await h.create(
      'Identity',
      'app',
      {
        connectionRef: { name: 'coffer' },
        name: `app-${suffix}`,
        role: 'member',
        projectMemberships: [{ projectRef: { name: 'later' }, roles: [{ role: 'viewer' }] }],
      },
      { annotations: { 'coffer.dev/external-id': identityId } },
    );
    await expectWaiting(
      'as-app',
      'spec.auth.kubernetes.identityRef: waiting for Identity app: it is not Ready',
    );

    // The Identity gets Ready: its watch wakes the Connection, the Connection's the Project.
    await h.create('Project', 'later', {
      connectionRef: { name: 'coffer' },
      name: 'later',
      slug: `later-${suffix}`,
    });
    const identity = await h.waitForReady('Identity', 'app', { timeoutMs: 60_000 });
    expect(identity.status?.id).toBe(identityId);
    const connection = await h.waitForReady('Connection', 'as-app', { timeoutMs: 60_000 });
    expect(connection.status?.id).toBe(identityId);
    expect(synced(connection)?.status).toBe('True');
    const ready = await h.waitForReady('Project', 'p-app', { timeoutMs: 60_000 });
    const stored = await h.service.projects.get(ready.status?.id ?? '');
    expect(stored).toMatchObject({ name: 'p-app', slug: `p-app-${suffix}` });
    expectNoMintedToken(h.logs());
    expectNoMintedToken(JSON.stringify(connection.status));
  }, 180_000);

  it('waits for its login method, and an IdentityAuth attaching it wakes the Connection', async () => {
    await h.create('Identity', 'bare', {
      connectionRef: { name: 'coffer' },
      name: `bare-${suffix}`,
      role: 'member',
    });
    const bare = await h.waitForReady('Identity', 'bare', { timeoutMs: 60_000 });
    await h.create('Connection', 'as-bare', {
      url: h.url,
      auth: loginSpec({ name: 'bare' }, { name: 'app', audiences: [AUDIENCE] }),
    });
    const waiting = await h.waitForCondition('Connection', 'as-bare', {
      type: 'Synced',
      status: 'False',
      reason: 'LoginMethodNotFound',
    });
    expect(waiting.status?.conditions?.find((c) => c.type === 'Ready')?.reason).toBe('LoginMethodNotFound');

    await h.create('IdentityAuth', 'bare-k8s', {
      connectionRef: { name: 'coffer' },
      identityRef: { name: 'bare' },
      method: 'kubernetes',
      kubernetes: {
        allowedNamespaces: [h.namespace],
        allowedNames: ['app'],
        allowedAudience: AUDIENCE,
        tokenReviewerJwtSecretRef: { name: 'reviewer-token' },
      },
    });
    await h.waitForReady('IdentityAuth', 'bare-k8s', { timeoutMs: 60_000 });
    const connection = await h.waitForReady('Connection', 'as-bare', { timeoutMs: 60_000 });
    expect(connection.status?.id).toBe(bare.status?.id);
    expectNoMintedToken(h.logs());
    expectNoMintedToken(JSON.stringify(connection.status));
  }, 180_000);

  it('a ClusterConnection names the namespace of its Identity', async () => {
    const name = `as-app-${suffix}`;
    await h.create('ClusterConnection', name, {
      url: h.url,
      auth: loginSpec(
        { name: 'app', namespace: h.namespace },
        { name: 'app', namespace: h.namespace, audiences: [AUDIENCE] },
      ),
      allowedNamespaces: { names: [h.namespace] },
    });
    const ready = await h.waitForReady('ClusterConnection', name, { timeoutMs: 60_000 });
    expect(ready.status?.id).toBe(identityId);

    const elsewhere = `elsewhere-${suffix}`;
    await h.create('ClusterConnection', elsewhere, {
      url: h.url,
      auth: loginSpec(
        { name: 'app', namespace: 'kube-public' },
        { name: 'app', namespace: h.namespace, audiences: [AUDIENCE] },
      ),
      allowedNamespaces: { names: [h.namespace] },
    });
    const waiting = await h.waitForCondition('ClusterConnection', elsewhere, {
      type: 'Synced',
      status: 'False',
      reason: 'ReferenceNotReady',
    });
    expect(synced(waiting)?.message).toBe(
      'spec.auth.kubernetes.identityRef: waiting for Identity kube-public/app: it does not exist',
    );
  }, 120_000);
});
