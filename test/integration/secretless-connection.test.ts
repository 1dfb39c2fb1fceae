// Connections that store no credential: the operator logs in to the devserver with Kubernetes
// ServiceAccount tokens through Kubernetes auth (a real TokenReview against the run's
// kube-apiserver), JWT auth (the API server's JWKS over HTTPS with its CA) and OIDC auth (a local
// HTTPS discovery document pointing at that JWKS). Each reconciles a Project to Ready with no
// credential in any Secret; mismatches (namespace, name, audience, issuer, expiry) and the
// operator's own refusals (AudienceNotAllowed, TokenSourceNotAllowed) are Synced=False with a
// precise reason and message; a projected token file rotated as the kubelet does (behind its
// `..data` symlink, in the operator's projected-token directory) with tokens bound to Secrets that
// are then deleted keeps a Project Ready and updatable while the service hands out access tokens of
// a few seconds. No ServiceAccount token may appear in logs, status or events.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthenticationV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterFromInjected, waitFor } from '../support/kube.ts';
import { startOidcFixture, type OidcFixture } from '../support/oidc-fixture.ts';
import { startOperatorHarness, type CofferObject, type OperatorHarness } from '../support/operator.ts';
import { writeProjectedToken } from '../support/projected-token.ts';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const AUDIENCE = 'coffer';
const suffix = Math.random().toString(36).slice(2, 7);
const cluster = clusterFromInjected();
const ca = readFileSync(cluster.info.caCertPath, 'utf8');
const rbac = cluster.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
const authn = cluster.kubeConfig().makeApiClient(AuthenticationV1Api);
const bindings: string[] = [];
/** Every ServiceAccount token the test minted, to check none leaks. */
const minted: string[] = [];
const tmp = mkdtempSync(join(tmpdir(), 'coffer-secretless-'));
/** The operator's projected-token directory (`--projected-token-dir`). */
const tokenDir = join(tmp, 'serviceaccount');

let h: OperatorHarness;
let ns = '';
let otherNs = '';
/** Added to the devserver's clock (it judges JWT expiry on it). */
let clockOffsetMs = 0;
let oidc: OidcFixture | undefined;
const identities = { kubernetes: '', jwt: '', oidc: '', wrongIssuer: '' };

/** A call to the devserver's API as the bootstrap admin. */
async function call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${h.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${h.admin.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${String(json['message'])}`);
  return json;
}

async function newIdentity(): Promise<string> {
  const name = `secretless-${Math.random().toString(36).slice(2, 8)}`;
  const res = await call('POST', '/api/v1/identities', {
    name,
    organizationId: h.admin.organizationId,
    role: 'admin',
  });
  return (res['identity'] as { id: string }).id;
}

/** Short service access tokens, so that the operator logs in (and renews) many times. */
const shortTtl = { accessTokenTTL: 2, accessTokenMaxTTL: 3 };

async function mint(
  namespace: string,
  name: string,
  audiences: string[],
  boundSecret?: { name: string; uid: string },
): Promise<string> {
  const res = await h.core.createNamespacedServiceAccountToken({
    namespace,
    name,
    body: {
      spec: {
        audiences,
        expirationSeconds: 600,
        ...(boundSecret ? { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', ...boundSecret } } : {}),
      },
    },
  });
  const token = res.status?.token ?? '';
  minted.push(token);
  return token;
}

async function bind(name: string, role: string, subject: Record<string, string>): Promise<void> {
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [subject as never],
    },
  });
  bindings.push(name);
}

async function attachMethods(reviewerToken: string): Promise<void> {
  identities.kubernetes = await newIdentity();
  await call('POST', `/api/v1/auth/kubernetes-auth/identities/${identities.kubernetes}`, {
    kubernetesHost: cluster.server,
    caCert: ca,
    tokenReviewerJwt: reviewerToken,
    allowedNamespaces: ns,
    allowedNames: 'workload',
    allowedAudience: AUDIENCE,
    ...shortTtl,
  });
  const jwtBody = (boundIssuer: string) => ({
    configurationType: 'jwks',
    jwksUrl: `${cluster.server}/openid/v1/jwks`,
    jwksCaCert: ca,
    boundIssuer,
    boundAudiences: AUDIENCE,
    boundSubject: `system:serviceaccount:${ns}:workload`,
    boundClaims: {},
    ...shortTtl,
  });
  identities.jwt = await newIdentity();
  await call('POST', `/api/v1/auth/jwt-auth/identities/${identities.jwt}`, jwtBody(ISSUER));
  identities.wrongIssuer = await newIdentity();
  await call(
    'POST',
    `/api/v1/auth/jwt-auth/identities/${identities.wrongIssuer}`,
    jwtBody('https://issuer.example'),
  );
  identities.oidc = await newIdentity();
  await call('POST', `/api/v1/auth/oidc-auth/identities/${identities.oidc}`, {
    oidcDiscoveryUrl: oidc?.url,
    caCert: ca,
    boundIssuer: ISSUER,
    boundAudiences: AUDIENCE,
    boundSubject: `system:serviceaccount:${ns}:workload`,
    boundClaims: {},
    ...shortTtl,
  });
}

beforeAll(async () => {
  h = await startOperatorHarness({
    connection: false,
    extraNamespaces: [{}],
    devserver: { now: () => Date.now() + clockOffsetMs },
    // Not the test namespace: a Connection there may not use the operator's projected token.
    operator: { operatorNamespace: `coffer-system-${suffix}`, projectedTokenDir: tokenDir },
  });
  [ns = '', otherNs = ''] = h.namespaces;
  for (const name of ['workload', 'other', 'reviewer'])
    await h.core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name } } });
  await h.core.createNamespacedServiceAccount({
    namespace: otherNs,
    body: { metadata: { name: 'workload' } },
  });
  await bind(`secretless-reviewer-${suffix}`, 'system:auth-delegator', {
    kind: 'ServiceAccount',
    name: 'reviewer',
    namespace: ns,
  });
  // Clusters that publish their issuer let anyone read the JWKS.
  await bind(`secretless-discovery-${suffix}`, 'system:service-account-issuer-discovery', {
    kind: 'Group',
    name: 'system:unauthenticated',
    apiGroup: 'rbac.authorization.k8s.io',
  });
  oidc = await startOidcFixture(cluster, ISSUER);
  // The reviewer's own token is for the API server (no audiences: its default).
  await attachMethods(await mint(ns, 'reviewer', []));
}, 120_000);

afterAll(async () => {
  await h?.stop();
  oidc?.close();
  for (const name of bindings) await rbac.deleteClusterRoleBinding({ name });
  rmSync(tmp, { recursive: true, force: true });
});

type Method = 'kubernetes' | 'jwt' | 'oidc';

function connectionSpec(method: Method, identityId: string, serviceAccountToken: Record<string, unknown>) {
  return { url: h.url, auth: { [method]: { identityId, serviceAccountToken } } };
}

const workloadRef = (audiences = [AUDIENCE]) => ({ serviceAccountRef: { name: 'workload', audiences } });

function projectSpec(name: string, connectionRef: Record<string, string>, description = 'secretless') {
  return { connectionRef, name, slug: `${name}-${suffix}`, description };
}

/** Every ServiceAccount token minted so far is absent from `text`. */
function expectNoMintedToken(text: string): void {
  for (const token of minted) if (token) expect(text.includes(token)).toBe(false);
}

/** No Secret in `namespace` holds anything that looks like a token (a JWT) or names a credential. */
async function expectNoCredentialInSecrets(namespace: string): Promise<void> {
  const secrets = await h.core.listNamespacedSecret({ namespace });
  for (const secret of secrets.items) {
    const values = Object.values(secret.data ?? {}).map((v) => Buffer.from(v, 'base64').toString('utf8'));
    for (const value of values) expect(value).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
    expect(Object.keys(secret.data ?? {})).not.toContainEqual(expect.stringMatching(/token|secret|jwt/i));
  }
}

async function expectSyncedFalse(
  name: string,
  reason: string,
  message: RegExp,
  namespace = ns,
): Promise<CofferObject> {
  const obj = await h.waitForCondition(
    'Connection',
    name,
    { type: 'Synced', status: 'False', reason },
    {
      namespace,
      timeoutMs: 60_000,
    },
  );
  const synced = obj.status?.conditions?.find((c) => c.type === 'Synced');
  expect(synced?.message).toMatch(message);
  expect(obj.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason });
  expectNoMintedToken(JSON.stringify(obj.status));
  return obj;
}

describe('a Connection logging in with a ServiceAccount token', () => {
  it.each(['kubernetes', 'jwt', 'oidc'] as const)(
    '%s auth: the Connection is Ready as the identity and a Project reconciles, with no credential in a Secret',
    async (method) => {
      const name = `sa-${method}`;
      await h.create('Connection', name, connectionSpec(method, identities[method], workloadRef()));
      const connection = await h.waitForReady('Connection', name, { timeoutMs: 60_000 });
      expect(connection.status?.id).toBe(identities[method]);
      const project = `p-${method}`;
      await h.create('Project', project, projectSpec(project, { name }));
      const ready = await h.waitForReady('Project', project, { timeoutMs: 60_000 });
      const stored = await h.service.projects.get(ready.status?.id ?? '');
      expect(stored).toMatchObject({ name: project, slug: `${project}-${suffix}` });
      await expectNoCredentialInSecrets(ns);
      expectNoMintedToken(h.logs());
      expectNoMintedToken(JSON.stringify(await h.events(name)));
    },
  );
});

describe('a ClusterConnection logging in with a ServiceAccount token', () => {
  it('requests the token for a ServiceAccount of the namespace it names', async () => {
    const name = `sa-cluster-${suffix}`;
    await h.create('ClusterConnection', name, {
      ...connectionSpec('oidc', identities.oidc, {
        serviceAccountRef: { name: 'workload', namespace: ns, audiences: [AUDIENCE] },
      }),
      allowedNamespaces: { names: [ns] },
    });
    const ready = await h.waitForReady('ClusterConnection', name, { timeoutMs: 60_000 });
    expect(ready.status?.id).toBe(identities.oidc);
    expectNoMintedToken(JSON.stringify(ready.status));
  });
});

describe('refusals name what did not match', () => {
  it('kubernetes auth: a ServiceAccount name that is not allowed; a Project using it says why', async () => {
    await h.create(
      'Connection',
      'wrong-name',
      connectionSpec('kubernetes', identities.kubernetes, {
        serviceAccountRef: { name: 'other', audiences: [AUDIENCE] },
      }),
    );
    await expectSyncedFalse(
      'wrong-name',
      'InvalidCredentials',
      /^the service rejected the credentials: Access denied: K8s name not allowed\.$/,
    );
    await h.create('Project', 'p-wrong-name', projectSpec('p-wrong-name', { name: 'wrong-name' }));
    const project = await h.waitForCondition('Project', 'p-wrong-name', {
      type: 'Synced',
      status: 'False',
      reason: 'ReferenceNotReady',
    });
    expect(project.status?.conditions?.find((c) => c.type === 'Synced')?.message).toContain(
      'InvalidCredentials: the service rejected the credentials: Access denied: K8s name not allowed.',
    );
  });

  it('kubernetes auth: a ServiceAccount of a namespace that is not allowed', async () => {
    await h.create(
      'Connection',
      'wrong-namespace',
      connectionSpec('kubernetes', identities.kubernetes, workloadRef()),
      {
        namespace: otherNs,
      },
    );
    await expectSyncedFalse(
      'wrong-namespace',
      'InvalidCredentials',
      /Access denied: K8s namespace not allowed\./,
      otherNs,
    );
  });

  it('kubernetes auth: a token for another audience fails the service’s TokenReview', async () => {
    await h.create(
      'Connection',
      'wrong-audience',
      connectionSpec('kubernetes', identities.kubernetes, workloadRef(['elsewhere'])),
    );
    await expectSyncedFalse('wrong-audience', 'InvalidCredentials', /audience/i);
  });

  it('jwt auth: a token whose issuer is not the bound one', async () => {
    await h.create(
      'Connection',
      'wrong-issuer',
      connectionSpec('jwt', identities.wrongIssuer, workloadRef()),
    );
    await expectSyncedFalse('wrong-issuer', 'InvalidCredentials', /Access denied: issuer mismatch/);
  });

  it('jwt auth: an expired token (the service’s clock is past its exp)', async () => {
    clockOffsetMs = 700_000;
    try {
      await h.create('Connection', 'expired', connectionSpec('jwt', identities.jwt, workloadRef()));
      await expectSyncedFalse('expired', 'InvalidCredentials', /Access denied: jwt expired/);
    } finally {
      clockOffsetMs = 0;
    }
  });

  it('never sends a token the API server itself accepts (AudienceNotAllowed)', async () => {
    // The service would accept this token (its audiences include coffer): only the guard stops it.
    await h.create(
      'Connection',
      'deputy',
      connectionSpec('jwt', identities.jwt, workloadRef([AUDIENCE, ISSUER])),
    );
    await expectSyncedFalse(
      'deputy',
      'AudienceNotAllowed',
      /ServiceAccount .*\/workload is accepted by the Kubernetes API server itself/,
    );
  });

  it('a Connection outside the operator’s namespace may not use the operator’s projected token', async () => {
    await h.create(
      'Connection',
      'projected-elsewhere',
      connectionSpec('oidc', identities.oidc, { projected: {} }),
    );
    await expectSyncedFalse(
      'projected-elsewhere',
      'TokenSourceNotAllowed',
      /projected is the operator’s own token: a Connection may use it only in the operator’s namespace \(coffer-system-\w+\), not in test-/,
    );
  });

  it('a ServiceAccount that does not exist: no token, retried (ServiceAccountTokenUnavailable)', async () => {
    const missing = { serviceAccountRef: { name: 'missing', audiences: [AUDIENCE] } };
    await h.create('Connection', 'no-account', connectionSpec('jwt', identities.jwt, missing));
    await expectSyncedFalse(
      'no-account',
      'ServiceAccountTokenUnavailable',
      /^cannot request a token for ServiceAccount test-\w+\/missing: serviceaccounts "missing" not found$/,
    );
  });
});

async function boundSecret(name: string): Promise<{ name: string; uid: string }> {
  const created = await h.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name } } });
  return { name, uid: created.metadata?.uid ?? '' };
}

async function apiServerAccepts(token: string): Promise<boolean> {
  const review = await authn.createTokenReview({ body: { spec: { token, audiences: [AUDIENCE] } } });
  return review.status?.authenticated === true;
}

const count = (text: string, needle: string) => text.split(needle).length - 1;

describe('token refreshes', () => {
  it('a projected token rotated three times (the old one revoked each time) keeps a Project Ready and updatable', async () => {
    let bound = await boundSecret('bound-0');
    const path = writeProjectedToken(tokenDir, await mint(ns, 'workload', [AUDIENCE], bound));
    const cc = `secretless-${suffix}`;
    await h.create('ClusterConnection', cc, {
      ...connectionSpec('kubernetes', identities.kubernetes, { projected: { path } }),
      allowedNamespaces: { names: [ns] },
    });
    await h.waitForReady('ClusterConnection', cc, { timeoutMs: 60_000 });
    await h.create('Project', 'rotating', projectSpec('rotating', { kind: 'ClusterConnection', name: cc }));
    const id = (await h.waitForReady('Project', 'rotating', { timeoutMs: 60_000 })).status?.id ?? '';
    // When the devserver last answered anyone (polled every 50 ms).
    let requestsSeen = h.devserver.stats.requests.total;
    let lastRequestAt = Date.now();
    const tracker = setInterval(() => {
      if (h.devserver.stats.requests.total === requestsSeen) return;
      requestsSeen = h.devserver.stats.requests.total;
      lastRequestAt = Date.now();
    }, 50).unref();
    const logins = () => count(h.logs(), 'logged in with Kubernetes auth');
    const refusals = () => count(h.logs(), 'login refused; trying once with a fresh JWT');
    const update = async (description: string) => {
      // Idle past the access token’s max TTL (3 s): no request to the service for 3.5 s (a login is
      // one), so the update needs a new login. Waiting for the old token to stop working usually
      // took longer than that already.
      await waitFor(() => Date.now() - lastRequestAt >= 3_500, {
        timeoutMs: 60_000,
        intervalMs: 100,
        message: 'the service to be idle for 3.5 s',
      });
      await h.patch('Project', 'rotating', { spec: { description } });
      await waitFor(async () => (await h.service.projects.get(id)).description === description, {
        timeoutMs: 60_000,
        message: `description "${description}" in the service`,
      });
      const project = await h.waitForReady('Project', 'rotating');
      expect(project.status?.conditions?.find((c) => c.type === 'Synced')?.status).toBe('True');
    };
    for (let round = 1; round <= 3; round += 1) {
      const old = bound;
      const oldToken = readFileSync(path, 'utf8');
      bound = await boundSecret(`bound-${round}`);
      writeProjectedToken(tokenDir, await mint(ns, 'workload', [AUDIENCE], bound));
      await h.core.deleteNamespacedSecret({ namespace: ns, name: old.name });
      await waitFor(async () => !(await apiServerAccepts(oldToken)), {
        timeoutMs: 30_000,
        message: 'the old token to stop working',
      });
      const [loginsBefore, refusalsBefore] = [logins(), refusals()];
      // The operator still holds the old token: the login is refused once, then the re-read file's works.
      await update(`rotation ${round}`);
      expect(refusals()).toBeGreaterThan(refusalsBefore);
      expect(logins()).toBeGreaterThan(loginsBefore);
      const loginsAfter = logins();
      await update(`rotation ${round}, again`);
      expect(logins()).toBeGreaterThan(loginsAfter);
      const connection = await h.waitForReady('ClusterConnection', cc);
      expect(connection.status?.conditions?.find((c) => c.type === 'Synced')?.status).toBe('True');
    }
    clearInterval(tracker);
    // The old token was refused at least once per rotation and replaced by the new file's.
    expect(refusals()).toBeGreaterThanOrEqual(3);
    expect(logins()).toBeGreaterThanOrEqual(7);
    expectNoMintedToken(h.logs());
    await h.delete('Project', 'rotating');
    await h.waitForDeletion('Project', 'rotating');
  }, 300_000);
});
