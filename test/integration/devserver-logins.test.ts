// The devserver's Kubernetes, JWT and OIDC logins against the real kube-apiserver the suite
// starts: ServiceAccount tokens from the TokenRequest API, verified by a real TokenReview
// (Kubernetes auth), by the API server's own JWKS fetched over HTTPS with its CA (JWT auth, and
// static keys taken from it), and through a discovery document served by a local HTTPS fixture
// pointing at that JWKS (OIDC auth). Each method: a successful login, then the failures the
// service answers (wrong namespace, name, audience, subject, issuer; expired, malformed or
// revoked tokens; revoked method; unknown identity), none of which may echo a token. Also the
// TLS-certificate login, with certificates from a test CA passed as a TLS terminator passes them.
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCertificateAuthority,
  issueClientCertificate,
  issueServingCertificate,
} from '../../src/sandbox/control-plane/certs.ts';
import { startTestServer, type CallResult, type TestServer } from '../../src/devserver/test-support.ts';
import { clusterFromInjected } from '../support/kube.ts';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const suffix = Math.random().toString(36).slice(2, 7);
const ns = `logins-${suffix}`;
const otherNs = `logins-other-${suffix}`;
const cluster = clusterFromInjected();
const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
const rbac = cluster.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
const ca = readFileSync(cluster.info.caCertPath, 'utf8');
const bindings: string[] = [];
/** Every ServiceAccount token handed out, to check none is echoed. */
const tokens: string[] = [];

let t: TestServer;
let orgId = '';
/** Added to the real clock: the devserver judges token expiry on it. */
let clockOffsetMs = 0;
let oidcFixture: Server;
let oidcUrl = '';

async function serviceAccount(namespace: string, name: string): Promise<void> {
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
}

async function tokenFor(namespace: string, name: string, audiences: string[]): Promise<string> {
  const res = await core.createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { spec: { audiences, expirationSeconds: 600 } },
  });
  const token = res.status?.token ?? '';
  tokens.push(token);
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

async function newIdentity(): Promise<string> {
  const res = await t.call('POST', '/api/v1/identities', {
    body: {
      name: `login-${Math.random().toString(36).slice(2, 8)}`,
      organizationId: orgId,
      role: 'no-access',
    },
  });
  return (res.body as { identity: { id: string } }).identity.id;
}

function login(method: string, identityId: string, jwt: string): Promise<CallResult> {
  return t.call('POST', `/api/v1/auth/${method}/login`, { token: null, body: { identityId, jwt } });
}

/** The service's error envelope. */
interface ErrorBody {
  statusCode?: number;
  message?: string;
  error?: string;
}

function errorOf(res: CallResult): ErrorBody {
  return (res.body ?? {}) as ErrorBody;
}

function expectDenied(res: CallResult, status: number, message: string | RegExp): void {
  const body = errorOf(res);
  expect({ status: res.status, statusCode: body.statusCode }).toEqual({ status, statusCode: status });
  if (typeof message === 'string') expect(body.message).toBe(message);
  else expect(body.message).toMatch(message);
  for (const token of tokens) expect(JSON.stringify(res.body)).not.toContain(token);
}

function expectToken(res: CallResult): void {
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ tokenType: 'Bearer', expiresIn: 2592000, accessTokenMaxTTL: 2592000 });
  expect(typeof accessTokenOf(res)).toBe('string');
}

function accessTokenOf(res: CallResult): string {
  return (res.body as { accessToken: string }).accessToken;
}

async function startOidcFixture(): Promise<void> {
  const serving = await issueServingCertificate({
    certPem: ca,
    keyPem: readFileSync(cluster.info.caKeyPath, 'utf8'),
  });
  const agent = new Agent({ connect: { ca } });
  oidcFixture = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    void (async () => {
      if (req.url === '/.well-known/openid-configuration') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ issuer: ISSUER, jwks_uri: `${oidcUrl}/jwks` }));
        return;
      }
      const jwks = await fetch(`${cluster.server}/openid/v1/jwks`, { dispatcher: agent });
      res.setHeader('content-type', 'application/json');
      res.end(await jwks.text());
    })();
  });
  await new Promise<void>((resolve) => oidcFixture.listen(0, '127.0.0.1', resolve));
  oidcUrl = `https://127.0.0.1:${(oidcFixture.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  await core.createNamespace({ body: { metadata: { name: ns } } });
  await core.createNamespace({ body: { metadata: { name: otherNs } } });
  for (const name of ['workload', 'reviewer', 'other', 'doomed']) await serviceAccount(ns, name);
  await serviceAccount(otherNs, 'workload');
  await bind(`logins-reviewer-${suffix}`, 'system:auth-delegator', {
    kind: 'ServiceAccount',
    name: 'reviewer',
    namespace: ns,
  });
  await bind(`logins-self-review-${suffix}`, 'system:auth-delegator', {
    kind: 'ServiceAccount',
    name: 'workload',
    namespace: ns,
  });
  // The issuer discovery role lets anyone read the JWKS, as on clusters that publish it.
  await bind(`logins-discovery-${suffix}`, 'system:service-account-issuer-discovery', {
    kind: 'Group',
    name: 'system:unauthenticated',
    apiGroup: 'rbac.authorization.k8s.io',
  });
  t = await startTestServer({ now: () => Date.now() + clockOffsetMs });
  ({ orgId } = await t.bootstrap());
  await startOidcFixture();
});

afterAll(async () => {
  await t?.close();
  oidcFixture?.close();
  for (const name of bindings) await rbac.deleteClusterRoleBinding({ name });
  await core.deleteNamespace({ name: ns });
  await core.deleteNamespace({ name: otherNs });
});

describe('kubernetes auth', () => {
  let identityId = '';
  let reviewerToken = '';

  beforeAll(async () => {
    identityId = await newIdentity();
    reviewerToken = await tokenFor(ns, 'reviewer', []);
    const attached = await t.call('POST', `/api/v1/auth/kubernetes-auth/identities/${identityId}`, {
      body: {
        kubernetesHost: cluster.server,
        caCert: ca,
        tokenReviewerJwt: reviewerToken,
        allowedNamespaces: ns,
        allowedNames: 'work*',
        allowedAudience: 'coffer',
      },
    });
    expect(attached.status).toBe(200);
    expect((attached.body as { identityKubernetesAuth: unknown }).identityKubernetesAuth).toMatchObject({
      kubernetesHost: cluster.server,
      allowedNamespaces: ns,
      allowedNames: 'work*',
      allowedAudience: 'coffer',
    });
    expect(JSON.stringify(attached.body)).not.toContain(reviewerToken);
  });

  it('logs the bound ServiceAccount in after a real TokenReview, and the token works', async () => {
    const res = await login('kubernetes-auth', identityId, await tokenFor(ns, 'workload', ['coffer']));
    expectToken(res);
    const read = await t.call('GET', `/api/v1/auth/kubernetes-auth/identities/${identityId}`, {
      token: accessTokenOf(res),
    });
    expect(read.status).not.toBe(401);
  });

  it('refuses a ServiceAccount whose name is not allowed', async () => {
    const res = await login('kubernetes-auth', identityId, await tokenFor(ns, 'other', ['coffer']));
    expectDenied(res, 401, 'Access denied: K8s name not allowed.');
  });

  it('refuses a ServiceAccount from a namespace that is not allowed', async () => {
    const res = await login('kubernetes-auth', identityId, await tokenFor(otherNs, 'workload', ['coffer']));
    expectDenied(res, 401, 'Access denied: K8s namespace not allowed.');
  });

  it('refuses a token for another audience (the review asks for the allowed one)', async () => {
    const res = await login('kubernetes-auth', identityId, await tokenFor(ns, 'workload', ['elsewhere']));
    expectDenied(res, 401, /audience|invalid/i);
    expect(errorOf(res).error).toBe('KubernetesTokenReviewError');
  });

  it('refuses a malformed token and the token of a deleted ServiceAccount', async () => {
    expectDenied(await login('kubernetes-auth', identityId, 'not-a-token'), 401, /.+/);
    const doomed = await tokenFor(ns, 'doomed', ['coffer']);
    await core.deleteNamespacedServiceAccount({ namespace: ns, name: 'doomed' });
    const res = await login('kubernetes-auth', identityId, doomed);
    expectDenied(res, 401, /.+/);
    expect(errorOf(res).error).toBe('KubernetesTokenReviewError');
  });

  it('without a reviewer token, the presented token reviews itself', async () => {
    const patched = await t.call('PATCH', `/api/v1/auth/kubernetes-auth/identities/${identityId}`, {
      body: { tokenReviewerJwt: null },
    });
    expect(patched.status).toBe(200);
    // Also meant for the API server, so that it accepts the token as the review's credentials.
    const selfReviewing = await tokenFor(ns, 'workload', ['coffer', ISSUER]);
    expectToken(await login('kubernetes-auth', identityId, selfReviewing));
    await t.call('PATCH', `/api/v1/auth/kubernetes-auth/identities/${identityId}`, {
      body: { tokenReviewerJwt: reviewerToken },
    });
  });

  it('answers 404 for an unknown identity and after the method is revoked', async () => {
    const jwt = await tokenFor(ns, 'workload', []);
    const message = 'Kubernetes auth method not found for identity, did you configure Kubernetes auth?';
    expectDenied(await login('kubernetes-auth', '00000000-0000-4000-8000-000000000000', jwt), 404, message);
    const revokedId = await newIdentity();
    await t.call('POST', `/api/v1/auth/kubernetes-auth/identities/${revokedId}`, {
      body: { kubernetesHost: cluster.server, caCert: ca, tokenReviewerJwt: reviewerToken },
    });
    expectToken(await login('kubernetes-auth', revokedId, jwt));
    expect((await t.call('DELETE', `/api/v1/auth/kubernetes-auth/identities/${revokedId}`)).status).toBe(200);
    expectDenied(await login('kubernetes-auth', revokedId, jwt), 404, message);
  });
});

describe('jwt auth with the API server as issuer', () => {
  let identityId = '';

  beforeAll(async () => {
    identityId = await newIdentity();
    const attached = await t.call('POST', `/api/v1/auth/jwt-auth/identities/${identityId}`, {
      body: {
        configurationType: 'jwks',
        jwksUrl: `${cluster.server}/openid/v1/jwks`,
        jwksCaCert: ca,
        boundIssuer: ISSUER,
        boundAudiences: 'coffer, other-*',
        boundSubject: `system:serviceaccount:${ns}:work*`,
        boundClaims: { sub: `system:serviceaccount:${ns}:*` },
      },
    });
    expect(attached.status).toBe(200);
  });

  it('logs in with a TokenRequest token verified against the JWKS, with globbed audiences', async () => {
    expectToken(await login('jwt-auth', identityId, await tokenFor(ns, 'workload', ['coffer'])));
    expectToken(await login('jwt-auth', identityId, await tokenFor(ns, 'workload', ['other-x'])));
  });

  it('refuses wrong audience (401), subject (403), issuer (403)', async () => {
    const wrongAud = await login('jwt-auth', identityId, await tokenFor(ns, 'workload', ['elsewhere']));
    expectDenied(wrongAud, 401, 'Access denied: token audience not allowed');
    const wrongSub = await login('jwt-auth', identityId, await tokenFor(ns, 'other', ['coffer']));
    expectDenied(wrongSub, 403, 'Access denied: subject not allowed');
    const otherId = await newIdentity();
    await t.call('POST', `/api/v1/auth/jwt-auth/identities/${otherId}`, {
      body: {
        configurationType: 'jwks',
        jwksUrl: `${cluster.server}/openid/v1/jwks`,
        jwksCaCert: ca,
        boundIssuer: 'https://issuer.example',
        boundClaims: {},
      },
    });
    const wrongIss = await login('jwt-auth', otherId, await tokenFor(ns, 'workload', ['coffer']));
    expectDenied(wrongIss, 403, 'Access denied: issuer mismatch');
  });

  it('refuses an expired token and a malformed one', async () => {
    const jwt = await tokenFor(ns, 'workload', ['coffer']);
    clockOffsetMs = 700_000;
    try {
      expectDenied(await login('jwt-auth', identityId, jwt), 401, 'Access denied: jwt expired');
    } finally {
      clockOffsetMs = 0;
    }
    expectDenied(await login('jwt-auth', identityId, 'a.b'), 401, 'Invalid JWT');
  });

  it('verifies with static public keys taken from the JWKS, and refuses a forged signature', async () => {
    const jwks = (await (
      await fetch(`${cluster.server}/openid/v1/jwks`, { dispatcher: new Agent({ connect: { ca } }) })
    ).json()) as { keys: JsonWebKey[] };
    const publicKeys = jwks.keys.map((key) =>
      createPublicKey({ key, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString(),
    );
    const staticId = await newIdentity();
    const attached = await t.call('POST', `/api/v1/auth/jwt-auth/identities/${staticId}`, {
      body: {
        configurationType: 'static',
        publicKeys,
        boundIssuer: ISSUER,
        boundAudiences: 'coffer',
        boundClaims: {},
      },
    });
    expect(attached.body).toMatchObject({ identityJwtAuth: { configurationType: 'static' } });
    const jwt = await tokenFor(ns, 'workload', ['coffer']);
    expectToken(await login('jwt-auth', staticId, jwt));
    const [head, payload] = jwt.split('.');
    const forged = `${head}.${payload}.${Buffer.from('forged').toString('base64url')}`;
    expectDenied(
      await login('jwt-auth', staticId, forged),
      401,
      'Access denied: JWT verification failed with all keys. Errors - invalid signature',
    );
  });
});

describe('oidc auth through a discovery document', () => {
  let identityId = '';

  beforeAll(async () => {
    identityId = await newIdentity();
    const attached = await t.call('POST', `/api/v1/auth/oidc-auth/identities/${identityId}`, {
      body: {
        oidcDiscoveryUrl: oidcUrl,
        caCert: ca,
        boundIssuer: ISSUER,
        boundAudiences: 'coffer',
        boundSubject: `system:serviceaccount:${ns}:workload`,
        boundClaims: {},
      },
    });
    expect(attached.status).toBe(200);
  });

  it('logs in with a ServiceAccount token', async () => {
    expectToken(await login('oidc-auth', identityId, await tokenFor(ns, 'workload', ['coffer'])));
  });

  it('refuses wrong audience (401), subject (403) and issuer (401)', async () => {
    const wrongAud = await login('oidc-auth', identityId, await tokenFor(ns, 'workload', ['elsewhere']));
    expectDenied(wrongAud, 401, 'Access denied: OIDC audience not allowed.');
    const wrongSub = await login('oidc-auth', identityId, await tokenFor(ns, 'other', ['coffer']));
    expectDenied(wrongSub, 403, 'Access denied: OIDC subject not allowed.');
    await t.call('PATCH', `/api/v1/auth/oidc-auth/identities/${identityId}`, {
      body: { boundIssuer: 'https://issuer.example' },
    });
    const wrongIss = await login('oidc-auth', identityId, await tokenFor(ns, 'workload', ['coffer']));
    expectDenied(wrongIss, 401, 'Access denied: jwt issuer invalid. expected: https://issuer.example');
  });

  it('refuses when the discovery document cannot be fetched with the configured CA', async () => {
    const otherId = await newIdentity();
    const unrelatedCa = await createCertificateAuthority('unrelated');
    await t.call('POST', `/api/v1/auth/oidc-auth/identities/${otherId}`, {
      body: { oidcDiscoveryUrl: oidcUrl, caCert: unrelatedCa.certPem, boundIssuer: ISSUER, boundClaims: {} },
    });
    const res = await login('oidc-auth', otherId, await tokenFor(ns, 'workload', ['coffer']));
    expectDenied(res, 401, /^Access denied: Failed to fetch OIDC discovery document from /);
  });
});

describe('tls-cert auth with the certificate from the TLS terminator header', () => {
  let identityId = '';
  const certLogin = (id: string, certPem?: string): Promise<CallResult> =>
    t.call('POST', '/api/v1/auth/tls-cert-auth/login', {
      token: null,
      body: { identityId: id },
      headers: certPem ? { 'x-identity-tls-cert-auth-client-cert': encodeURIComponent(certPem) } : {},
    });
  let trusted = { certPem: '', keyPem: '' };

  beforeAll(async () => {
    trusted = await createCertificateAuthority('logins-ca');
    identityId = await newIdentity();
    const attached = await t.call('POST', `/api/v1/auth/tls-cert-auth/identities/${identityId}`, {
      body: { caCertificate: trusted.certPem, allowedCommonNames: 'workload, batch' },
    });
    expect(attached.status).toBe(200);
  });

  it('logs in with a certificate of an allowed common name signed by the CA', async () => {
    const cert = await issueClientCertificate(trusted, 'workload', ['team']);
    expectToken(await certLogin(identityId, cert.certPem));
  });

  it('refuses another common name, another CA, an expired certificate, no header, no method', async () => {
    const intruder = await issueClientCertificate(trusted, 'intruder', []);
    expectDenied(
      await certLogin(identityId, intruder.certPem),
      401,
      'Access denied: TLS Certificate Auth common name not allowed.',
    );
    const foreign = await issueClientCertificate(await createCertificateAuthority('foreign'), 'workload', []);
    expectDenied(
      await certLogin(identityId, foreign.certPem),
      401,
      'Access denied: Certificate not issued by the provided CA.',
    );
    const cert = await issueClientCertificate(trusted, 'batch', []);
    clockOffsetMs = 30 * 24 * 3600 * 1000;
    try {
      expectDenied(await certLogin(identityId, cert.certPem), 401, 'Access denied: Certificate has expired.');
    } finally {
      clockOffsetMs = 0;
    }
    expectDenied(await certLogin(identityId), 400, 'Missing TLS certificate in header');
    expectDenied(
      await certLogin(await newIdentity(), cert.certPem),
      404,
      'TLS Certificate auth method not found for identity, did you configure TLS Certificate auth?',
    );
  });
});
