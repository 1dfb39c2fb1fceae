/* eslint-disable @typescript-eslint/no-unsafe-member-access -- the tests read fields of arbitrary JSON answers */
// The devserver's Kubernetes dynamic-secret provider against this worker's real API server, over
// HTTP: a static lease is a TokenRequest for the configured ServiceAccount (with the configured
// audience and the lease's TTL) that the API server authenticates in a TokenReview; a dynamic lease
// creates a ServiceAccount and a RoleBinding, its token authenticates as that ServiceAccount, and
// revoking deletes both. Namespace rules and a bad cluster token answer the service's 400s. No token
// is printed: assertions look at TokenReview results and at messages, never at token values.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AuthenticationV1Api, CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../src/devserver/test-support.ts';
import { clusterFromInjected, statusCodeOf, waitFor } from '../support/kube.ts';

const suffix = randomBytes(3).toString('hex');
const namespace = `dyn-k8s-${suffix}`;
const provisionerBinding = `dyn-k8s-provisioner-${suffix}`;
const cluster = clusterFromInjected();
const kc = cluster.kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
const authn = kc.makeApiClient(AuthenticationV1Api);
const ca = readFileSync(cluster.info.caCertPath, 'utf8');
const scope = { projectSlug: 'dyn-k8s', environmentSlug: 'dev', path: '/' };

let t: TestServer;
let clusterToken = '';

/** The TokenReview of `token` (never printed): whether it authenticates, and as whom. */
async function review(token: string, audiences: string[]) {
  const res = await authn.createTokenReview({ body: { spec: { token, audiences } } });
  return { authenticated: res.status?.authenticated ?? false, username: res.status?.user?.username ?? '' };
}

function inputs(overrides: Record<string, unknown>) {
  return { url: cluster.info.server, clusterToken, ca, sslEnabled: true, namespace, audiences: ['dyn-test'], ...overrides }; // prettier-ignore
}

async function createDynamicSecret(name: string, providerInputs: Record<string, unknown>) {
  return t.call('POST', '/api/v1/dynamic-secrets', {
    body: { ...scope, name, provider: { type: 'kubernetes', inputs: providerInputs }, defaultTTL: '1h' },
  });
}

async function lease(name: string, config?: unknown) {
  return t.call('POST', '/api/v1/dynamic-secrets/leases', {
    body: { ...scope, dynamicSecretName: name, ...(config ? { config } : {}) },
  });
}

beforeAll(async () => {
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  for (const name of ['leased', 'provisioner']) {
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  }
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: provisionerBinding },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'provisioner', namespace }],
    },
  });
  await rbac.createNamespacedRole({
    namespace,
    body: {
      metadata: { name: 'reader' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    },
  });
  const issued = await core.createNamespacedServiceAccountToken({
    namespace,
    name: 'provisioner',
    body: { spec: { expirationSeconds: 3600 } },
  });
  clusterToken = issued.status?.token ?? '';
  t = await startTestServer();
  await t.bootstrap();
  await t.call('POST', '/api/v2/workspace', { body: { projectName: 'Dyn K8s', slug: scope.projectSlug } });
});

afterAll(async () => {
  await t?.close();
  await rbac.deleteClusterRoleBinding({ name: provisionerBinding }).catch(() => undefined);
  await core.deleteNamespace({ name: namespace }).catch(() => undefined);
});

describe('kubernetes dynamic secrets', () => {
  it('leases a token of the static ServiceAccount that the API server accepts', async () => {
    const created = await createDynamicSecret('k8s-static', inputs({ credentialType: 'static', serviceAccountName: 'leased' })); // prettier-ignore
    expect(created.status).toBe(200);
    expect(created.body.dynamicSecret).toMatchObject({ name: 'k8s-static', type: 'kubernetes' });
    const res = await lease('k8s-static');
    expect(res.status).toBe(200);
    expect(res.body.lease.externalEntityId).toBe('leased');
    const token = res.body.data.TOKEN as string;
    expect(await review(token, ['dyn-test'])).toEqual({
      authenticated: true,
      username: `system:serviceaccount:${namespace}:leased`,
    });
    // The configured audience is the token's only one.
    expect((await review(token, ['other-audience'])).authenticated).toBe(false);
    const wrongNs = await lease('k8s-static', { namespace: 'default' });
    expect([wrongNs.status, wrongNs.body.message]).toEqual([
      400,
      `Failed to create lease from provider: Namespace default is not allowed. Allowed namespace: ${namespace}.`,
    ]);
  });

  it('creates a ServiceAccount and RoleBinding per dynamic lease and deletes them on revoke', async () => {
    const created = await createDynamicSecret('k8s-dynamic', inputs({ credentialType: 'dynamic', roleType: 'role', role: 'reader' })); // prettier-ignore
    expect(created.status).toBe(200);
    const res = await lease('k8s-dynamic');
    expect(res.status).toBe(200);
    const name = res.body.lease.externalEntityId as string;
    expect(name).toMatch(/^dynamic-secret-sa-[a-z0-9]{10}$/);
    expect(await review(res.body.data.TOKEN as string, ['dyn-test'])).toEqual({
      authenticated: true,
      username: `system:serviceaccount:${namespace}:${name}`,
    });
    const binding = await rbac.readNamespacedRoleBinding({ namespace, name: `${name}-role-binding` });
    expect(binding.roleRef.name).toBe('reader');
    const revoked = await t.call('DELETE', `/api/v1/dynamic-secrets/leases/${res.body.lease.id}`, {
      body: scope,
    });
    expect(revoked.status).toBe(200);
    await waitFor(async () => {
      try {
        await core.readNamespacedServiceAccount({ namespace, name });
        return false;
      } catch (error) {
        return statusCodeOf(error) === 404;
      }
    });
    await expect(
      rbac.readNamespacedRoleBinding({ namespace, name: `${name}-role-binding` }),
    ).rejects.toThrow();
  });

  it('refuses a cluster token the API server rejects, without echoing it', async () => {
    const bad = `not-a-token-${suffix}`;
    const res = await createDynamicSecret('k8s-bad', inputs({ credentialType: 'static', serviceAccountName: 'leased', clusterToken: bad })); // prettier-ignore
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^Failed to connect with provider: /);
    expect(res.body.message).not.toContain(bad);
    const gateway = await createDynamicSecret('k8s-gw', inputs({ credentialType: 'static', serviceAccountName: 'leased', authMethod: 'gateway', gatewayId: 'gw-1' })); // prettier-ignore
    expect([gateway.status, gateway.body.message]).toEqual([404, 'Gateway with ID gw-1 not found']);
  });
});
