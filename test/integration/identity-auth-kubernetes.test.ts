// IdentityAuth method kubernetes and jwt.clusterIssuer on the real control plane, with real logins
// through the devserver over HTTP: ServiceAccount tokens from the TokenRequest API, reviewed by a
// real TokenReview (Kubernetes auth) or verified with the keys the operator read from the API
// server's /.well-known/openid-configuration and /openid/v1/jwks (JWT auth). Kubernetes auth is
// attached with the operator's own API server and CA (kubernetesHost unset), its drift corrected,
// updated and revoked on delete; logins pass for the bound ServiceAccount and fail for another
// namespace, name or audience; a Connection with auth.kubernetes / auth.jwt and a requested token
// of the bound ServiceAccount gets Ready through them. No token appears in status, events or logs.
import { createHash, createPublicKey, randomBytes, type JsonWebKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { OpenidApi, RbacAuthorizationV1Api, WellKnownApi } from '@kubernetes/client-node';
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityAuthController } from '../../src/controllers/identity-auth/index.ts';
import { identityController } from '../../src/controllers/identity/index.ts';
import { clusterFromInjected, waitFor } from '../support/kube.ts';
import { HARNESS_CONNECTION, startOperatorHarness, type OperatorHarness } from '../support/operator.ts';

const suffix = randomBytes(3).toString('hex');
const otherNs = `k8s-auth-other-${suffix}`;
const cluster = clusterFromInjected();
const rbac = cluster.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
const ca = readFileSync(cluster.info.caCertPath, 'utf8');
const connectionRef = { name: HARNESS_CONNECTION };
const binding = `k8s-auth-reviewer-${suffix}`;
/** Every ServiceAccount token handed out, to check none leaked. */
const tokens: string[] = [];
const identityIds: Record<string, string> = {};

let h: OperatorHarness;

async function tokenFor(namespace: string, name: string, audiences: string[]): Promise<string> {
  const res = await h.core.createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { spec: { audiences, expirationSeconds: 3600 } },
  });
  const token = res.status?.token ?? '';
  tokens.push(token);
  return token;
}

/** A login over HTTP as a workload would do it: the HTTP status and the service's message. */
async function login(method: string, identityId: string, jwt: string) {
  const res = await fetch(`${h.url}/api/v1/auth/${method}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identityId, jwt }),
  });
  const body = (await res.json()) as { accessToken?: string; message?: string };
  for (const token of tokens) expect(JSON.stringify(body)).not.toContain(token);
  return { status: res.status, message: body.message, accessToken: body.accessToken };
}

beforeAll(async () => {
  h = await startOperatorHarness({ operator: { kinds: [identityController, identityAuthController] } });
  await h.core.createNamespace({ body: { metadata: { name: otherNs } } });
  for (const name of ['workload', 'other', 'reviewer'])
    await h.core.createNamespacedServiceAccount({ namespace: h.namespace, body: { metadata: { name } } });
  await h.core.createNamespacedServiceAccount({
    namespace: otherNs,
    body: { metadata: { name: 'workload' } },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: binding },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:auth-delegator' },
      subjects: [{ kind: 'ServiceAccount', name: 'reviewer', namespace: h.namespace }],
    },
  });
  // The reviewer's token, as a service-account-token Secret would hold it (audience: the API server).
  await h.createSecret('reviewer-token', { token: await tokenFor(h.namespace, 'reviewer', []) });
  for (const name of ['k8s-ident', 'jwt-ident']) {
    await h.create('Identity', name, { connectionRef, name: `${name}-${suffix}`, role: 'no-access' });
    identityIds[name] = (await h.waitForReady('Identity', name)).status?.id ?? '';
  }
});

afterAll(async () => {
  await h?.stop();
  await rbac.deleteClusterRoleBinding({ name: binding }).catch(() => undefined);
  await h?.core.deleteNamespace({ name: otherNs }).catch(() => undefined);
});

describe('IdentityAuth method kubernetes', () => {
  const identityId = () => identityIds['k8s-ident'] ?? '';
  const kubernetes = {
    allowedNamespaces: [] as string[],
    allowedNames: ['workload'],
    allowedAudience: 'coffer',
    tokenReviewerJwtSecretRef: { name: 'reviewer-token' },
  };

  it('attaches Kubernetes auth with the operator’s own API server and CA', async () => {
    kubernetes.allowedNamespaces = [h.namespace];
    await h.create('IdentityAuth', 'k8s', {
      connectionRef,
      identityRef: { name: 'k8s-ident' },
      method: 'kubernetes',
      pollInterval: '10s',
      kubernetes,
    });
    const ready = await h.waitForReady('IdentityAuth', 'k8s');
    expect(ready.status).toMatchObject({ method: 'kubernetes', identityId: identityId() });
    expect(ready.status?.['reviewerJwtHash']).toMatch(/^[0-9a-f]{64}$/);
    const config = await h.service.identityAuth.kubernetes.get(identityId());
    expect(config).toMatchObject({
      id: ready.status?.id,
      kubernetesHost: cluster.server.replace(/\/+$/, ''),
      allowedNamespaces: h.namespace,
      allowedNames: 'workload',
      allowedAudience: 'coffer',
    });
    expect(config.caCert?.trim()).toBe(ca.trim());
  });

  it('logs the bound ServiceAccount in after a real TokenReview', async () => {
    const res = await login(
      'kubernetes-auth',
      identityId(),
      await tokenFor(h.namespace, 'workload', ['coffer']),
    );
    expect(res.status).toBe(200);
    expect(res.accessToken).toEqual(expect.any(String));
  });

  it('refuses another name, another namespace and another audience', async () => {
    const other = await login(
      'kubernetes-auth',
      identityId(),
      await tokenFor(h.namespace, 'other', ['coffer']),
    );
    expect(other).toMatchObject({ status: 401, message: 'Access denied: K8s name not allowed.' });
    const elsewhere = await login(
      'kubernetes-auth',
      identityId(),
      await tokenFor(otherNs, 'workload', ['coffer']),
    );
    expect(elsewhere).toMatchObject({ status: 401, message: 'Access denied: K8s namespace not allowed.' });
    const audience = await login(
      'kubernetes-auth',
      identityId(),
      await tokenFor(h.namespace, 'workload', ['not-coffer']),
    );
    expect(audience.status).toBe(401);
  });

  it('corrects drift made in the service on the next poll', async () => {
    await h.service.identityAuth.kubernetes.update(identityId(), {
      allowedNames: 'other',
      kubernetesHost: 'https://elsewhere.example:6443',
    });
    await waitFor(
      async () => {
        const config = await h.service.identityAuth.kubernetes.get(identityId());
        return (
          config.allowedNames === 'workload' && config.kubernetesHost === cluster.server.replace(/\/+$/, '')
        );
      },
      { timeoutMs: 60_000, intervalMs: 500, message: 'allowedNames and kubernetesHost restored by the poll' },
    );
  });

  it('updates the allowed names: the second ServiceAccount logs in too', async () => {
    await h.patch('IdentityAuth', 'k8s', {
      spec: { kubernetes: { ...kubernetes, allowedNames: ['workload', 'other'] } },
    });
    await waitFor(
      async () =>
        (await h.service.identityAuth.kubernetes.get(identityId())).allowedNames === 'workload, other',
      { timeoutMs: 60_000, message: 'both names in the service' },
    );
    const res = await login(
      'kubernetes-auth',
      identityId(),
      await tokenFor(h.namespace, 'other', ['coffer']),
    );
    expect(res.status).toBe(200);
  });

  it('sends a changed reviewer token (noticed by its hash) and keeps logins working', async () => {
    const before = (await h.get('IdentityAuth', 'k8s'))?.status?.['reviewerJwtHash'];
    const fresh = await tokenFor(h.namespace, 'reviewer', []);
    await h.core.replaceNamespacedSecret({
      namespace: h.namespace,
      name: 'reviewer-token',
      body: { metadata: { name: 'reviewer-token' }, stringData: { token: fresh } },
    });
    const expected = createHash('sha256').update(fresh).digest('hex');
    await waitFor(
      async () => (await h.get('IdentityAuth', 'k8s'))?.status?.['reviewerJwtHash'] === expected,
      {
        timeoutMs: 60_000,
        message: 'the new reviewer token sent',
      },
    );
    expect(expected).not.toBe(before);
    const res = await login(
      'kubernetes-auth',
      identityId(),
      await tokenFor(h.namespace, 'workload', ['coffer']),
    );
    expect(res.status).toBe(200);
  });

  it('lets a Connection log in through it with a requested token, nothing stored', async () => {
    await h.create('Connection', 'as-workload-k8s', {
      url: h.url,
      auth: {
        kubernetes: {
          identityId: identityId(),
          serviceAccountToken: { serviceAccountRef: { name: 'workload', audiences: ['coffer'] } },
        },
      },
    });
    await h.waitForReady('Connection', 'as-workload-k8s', { timeoutMs: 60_000 });
    await h.delete('Connection', 'as-workload-k8s');
  });

  it('refuses a Connection whose ServiceAccount the IdentityAuth does not name, saying so', async () => {
    await h.create('Connection', 'as-reviewer-k8s', {
      url: h.url,
      auth: {
        kubernetes: {
          identityId: identityId(),
          serviceAccountToken: { serviceAccountRef: { name: 'reviewer', audiences: ['coffer'] } },
        },
      },
    });
    const refused = await h.waitForCondition(
      'Connection',
      'as-reviewer-k8s',
      { type: 'Ready', status: 'False', reason: 'InvalidCredentials' },
      { timeoutMs: 60_000 },
    );
    const ready = refused.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready?.message).toContain('Access denied: K8s name not allowed.');
    await h.delete('Connection', 'as-reviewer-k8s');
  });

  it('revokes the method when deleted', async () => {
    await h.delete('IdentityAuth', 'k8s');
    await h.waitForDeletion('IdentityAuth', 'k8s');
    await expect(h.service.identityAuth.kubernetes.get(identityId())).rejects.toMatchObject({ status: 404 });
    const res = await login(
      'kubernetes-auth',
      identityId(),
      await tokenFor(h.namespace, 'workload', ['coffer']),
    );
    expect(res.status).toBe(404);
  });
});

/** The typed clients declare a string but hand over the parsed document. */
const parsed = <T>(answer: unknown): T => (typeof answer === 'string' ? JSON.parse(answer) : answer) as T;

/** The API server's issuer and JWKS as sorted PEM, read here with the typed clients. */
async function apiServerKeys(): Promise<{ issuer: string; pems: string[] }> {
  const kc = cluster.kubeConfig();
  const discovery = parsed<{ issuer: string }>(
    await kc.makeApiClient(WellKnownApi).getServiceAccountIssuerOpenIDConfiguration(),
  );
  const jwks = parsed<{ keys: JsonWebKey[] }>(
    await kc.makeApiClient(OpenidApi).getServiceAccountIssuerOpenIDKeyset(),
  );
  const pems = jwks.keys
    .map((key) =>
      createPublicKey({ key, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString().trim(),
    )
    .sort();
  return { issuer: discovery.issuer, pems };
}

describe('IdentityAuth jwt.clusterIssuer', () => {
  const identityId = () => identityIds['jwt-ident'] ?? '';

  it('configures the API server’s issuer and keys, and a ServiceAccount token logs in', async () => {
    await h.create('IdentityAuth', 'jwt-cluster', {
      connectionRef,
      identityRef: { name: 'jwt-ident' },
      method: 'jwt',
      jwt: {
        clusterIssuer: {},
        boundAudiences: ['coffer'],
        boundSubject: `system:serviceaccount:${h.namespace}:workload`,
      },
    });
    const ready = await h.waitForReady('IdentityAuth', 'jwt-cluster');
    const expected = await apiServerKeys();
    const config = await h.service.identityAuth.jwt.get(identityId());
    expect(config).toMatchObject({ configurationType: 'static', boundIssuer: expected.issuer });
    const hash = createHash('sha256')
      .update(JSON.stringify([expected.pems, '']))
      .digest('hex');
    expect(ready.status?.['jwtKeysHash']).toBe(hash);

    const ok = await login('jwt-auth', identityId(), await tokenFor(h.namespace, 'workload', ['coffer']));
    expect(ok.status).toBe(200);
    const wrongSubject = await login(
      'jwt-auth',
      identityId(),
      await tokenFor(h.namespace, 'other', ['coffer']),
    );
    expect(wrongSubject).toMatchObject({ status: 403, message: 'Access denied: subject not allowed' });
    const forged = await login('jwt-auth', identityId(), forgedToken(expected.issuer));
    expect(forged.status).toBe(401);
  });

  it('puts the cluster’s issuer back when it is changed in the service', async () => {
    await h.service.identityAuth.jwt.update(identityId(), {
      configurationType: 'static',
      publicKeys: [
        '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----',
      ],
      boundIssuer: 'https://issuer.example',
      boundClaims: {},
    });
    const { issuer } = await apiServerKeys();
    await h.requestReconcile('IdentityAuth', 'jwt-cluster');
    await waitFor(async () => (await h.service.identityAuth.jwt.get(identityId())).boundIssuer === issuer, {
      timeoutMs: 60_000,
      message: 'boundIssuer restored',
    });
    const ok = await login('jwt-auth', identityId(), await tokenFor(h.namespace, 'workload', ['coffer']));
    expect(ok.status).toBe(200);
  });

  it('lets a Connection log in through it with auth.jwt', async () => {
    await h.create('Connection', 'as-workload-jwt', {
      url: h.url,
      auth: {
        jwt: {
          identityId: identityId(),
          serviceAccountToken: { serviceAccountRef: { name: 'workload', audiences: ['coffer'] } },
        },
      },
    });
    await h.waitForReady('Connection', 'as-workload-jwt', { timeoutMs: 60_000 });
    await h.delete('Connection', 'as-workload-jwt');
  });

  it('leaks no ServiceAccount token into status, events or logs', async () => {
    const objects = JSON.stringify([
      await h.get('IdentityAuth', 'jwt-cluster'),
      await h.events('jwt-cluster'),
    ]);
    const logs = h.logs();
    for (const token of tokens) {
      expect(objects).not.toContain(token);
      expect(logs).not.toContain(token);
    }
  });
});

/** A token with the right issuer and claims, signed by a key that is not the cluster's. */
function forgedToken(issuer: string): string {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = b64({ alg: 'RS256', typ: 'JWT' });
  const now = Math.floor(Date.now() / 1000);
  const payload = b64({
    iss: issuer,
    aud: ['coffer'],
    sub: `system:serviceaccount:${h.namespace}:workload`,
    exp: now + 600,
    iat: now,
  });
  return `${header}.${payload}.${Buffer.from('not-a-signature').toString('base64url')}`;
}
