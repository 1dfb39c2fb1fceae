// Client conformance: Infisical's official Go SDK (github.com/infisical/go-sdk, pinned in
// test/clients/go-sdk/go.mod) runs unchanged against a devserver on loopback. The Go program
// (test/clients/go-sdk) makes every SDK call and reports each outcome; this test asserts each
// call (the JWT login with a JWT this test signs). Calls whose endpoints the devserver does not serve are listed in NOT_SERVED and asserted
// to answer the devserver's route-not-found 404, so serving one later makes this test point at it.
import { generateKeyPairSync, sign } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildClient,
  callNamed,
  runClient,
  type ClientCall,
  type ClientProgram,
  type ClientReport,
} from '../support/client-conformance.ts';
import { startContract, type Contract } from '../support/client-contract.ts';

const goSdk: ClientProgram = {
  name: 'go-sdk-conformance',
  sourceDir: fileURLToPath(new URL('../clients/go-sdk/', import.meta.url)),
  toolchain: 'go',
  versionArgs: ['version'],
  buildArgs: (out) => ['build', '-trimpath', '-o', out, '.'],
  buildEnv: { GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod -buildvcs=false' },
};

const TOKEN_TTL = 3600;
/** The dynamic secret the Go program reads (see test/clients/go-sdk/dynamic.go). */
const DYNAMIC_SECRET = 'go-sdk-gcp';
const TOKEN_MAX_TTL = 7200;

/** What each served call must have returned. */
const SERVED: Record<string, (call: ClientCall) => void> = {
  'auth.universalAuthLogin': (c) =>
    expect(c.detail).toEqual({
      tokenType: 'Bearer',
      expiresIn: TOKEN_TTL,
      accessTokenMaxTTL: TOKEN_MAX_TTL,
      hasToken: true,
      clientUsesToken: true,
    }),
  'auth.renewAccessToken': (c) =>
    expect(c.detail).toEqual({
      tokenType: 'Bearer',
      expiresIn: TOKEN_TTL,
      accessTokenMaxTTL: TOKEN_MAX_TTL,
      renewedTokenWorks: true,
    }),
  'secrets.create': (c) =>
    expect(c.detail).toEqual({
      secretKey: 'KEY_A',
      version: 1,
      type: 'shared',
      valueMatches: true,
      comment: 'from the Go SDK',
    }),
  'secrets.batch.create': (c) => expect(c.detail).toEqual({ keys: ['KEY_B', 'KEY_C'] }),
  'secrets.listSecrets': (c) =>
    expect(c.detail).toEqual({ keys: ['KEY_A', 'KEY_B', 'KEY_C'], hasETag: true }),
  // The SDK turns the service's 304 into a NotModifiedError.
  'secrets.listSecrets.ifNoneMatch': (c) => expect([c.ok, c.status]).toEqual([false, 304]),
  'secrets.list.bySlug.attachToProcessEnv': (c) =>
    expect(c.detail).toEqual({ keys: ['KEY_A', 'KEY_B', 'KEY_C'], processEnvSet: true }),
  'secrets.retrieve': (c) => expect(c.detail).toEqual({ secretKey: 'KEY_A', version: 1, valueMatches: true }),
  'secrets.update': (c) => expect(c.detail).toEqual({ version: 2, valueMatches: true }),
  'secrets.retrieve.bySlug.version1': (c) => expect(c.detail).toEqual({ version: 1, valueMatches: true }),
  'secrets.delete': (c) => expect(c.detail).toEqual({ secretKey: 'KEY_A' }),
  'secrets.retrieve.afterDelete': (c) => expect([c.ok, c.status]).toEqual([false, 404]),
  'folders.create': (c) => expect(c.detail).toEqual({ name: 'app', hasId: true, hasEnvId: true }),
  'secrets.create.inFolder': (c) => expect(c.detail).toEqual({ secretKey: 'KEY_D' }),
  'secrets.listSecrets.recursive': (c) =>
    expect(c.detail).toEqual({
      keys: ['KEY_B', 'KEY_C', 'KEY_D'],
      paths: { KEY_B: '/', KEY_C: '/', KEY_D: '/app' },
    }),
  'folders.list': (c) => expect(c.detail).toEqual({ names: ['app'] }),
  'folders.update': (c) => expect(c.detail).toEqual({ name: 'app-renamed', sameId: true }),
  'folders.delete': (c) => expect(c.detail).toEqual({ sameId: true }),
  // A real JWT-auth login with a token signed by the key attached as the identity's static key.
  'auth.jwtAuthLogin': (c) =>
    expect(c.detail).toEqual({
      tokenType: 'Bearer',
      expiresIn: TOKEN_TTL,
      accessTokenMaxTTL: TOKEN_MAX_TTL,
      hasToken: true,
      clientUsesToken: true,
    }),
  // Called for an identity without the method: the route answers the method's own 404.
  'auth.oidcAuthLogin': (c) => {
    expect([c.ok, c.status]).toEqual([false, 404]);
    expect(c.error).toContain('OIDC auth method not found for identity');
  },
  'auth.kubernetesRawServiceAccountTokenLogin': (c) => {
    expect([c.ok, c.status]).toEqual([false, 404]);
    expect(c.error).toContain('Kubernetes auth method not found for identity');
  },
  'auth.revokeAccessToken': (c) => expect(c.detail).toEqual({ clientTokenCleared: true }),
  // Dynamic secrets: a stored-only provider type, so the lease request ends in the devserver's
  // "not available" 400 (its body was accepted) and lease ids that do not exist in 404s.
  'dynamicSecrets.list': (c) => expect(c.detail).toEqual({ names: [`${DYNAMIC_SECRET}:gcp-iam`] }),
  'dynamicSecrets.getByName': (c) =>
    expect(c.detail).toEqual({ name: DYNAMIC_SECRET, type: 'gcp-iam', defaultTTL: '1h' }),
  'dynamicSecrets.leases.list': (c) => expect(c.detail).toEqual({ count: 0 }),
  'dynamicSecrets.leases.create': (c) => {
    expect([c.ok, c.status]).toEqual([false, 400]);
    expect(c.error).toContain('is not available in the devserver');
  },
  'dynamicSecrets.leases.getById': (c) => {
    expect([c.ok, c.status]).toEqual([false, 404]);
    expect(c.error).toContain('Dynamic secret lease with ID');
  },
  'dynamicSecrets.leases.renewById': (c) => {
    expect([c.ok, c.status]).toEqual([false, 404]);
    expect(c.error).toContain('Dynamic secret lease with ID');
  },
  'dynamicSecrets.leases.deleteById': (c) => {
    expect([c.ok, c.status]).toEqual([false, 404]);
    expect(c.error).toContain('Dynamic secret lease with ID');
  },
  'secrets.listSecrets.afterRevoke': (c) => expect([c.ok, c.status]).toEqual([false, 401]),
};

/** SDK calls the devserver does not serve (route not found), with the route the SDK calls. */
const NOT_SERVED: Record<string, string> = {
  'kms.keys.create': 'POST /api/v1/kms/keys',
  'ssh.getSshHosts': 'GET /api/v1/ssh/hosts',
  'auth.ldapAuthLogin': 'POST /api/v1/auth/ldap-auth/login',
};

/**
 * SDK calls not made at all: they need a cloud provider's credentials or metadata service before
 * any request reaches the service (AWS IAM, GCP ID token and IAM, Azure, OCI), and the devserver
 * serves none of their login routes either.
 */
const NOT_EXERCISED = [
  'auth.awsIamAuthLogin',
  'auth.gcpIdTokenAuthLogin',
  'auth.gcpIamAuthLogin',
  'auth.azureAuthLogin',
  'auth.ociAuthLogin',
];

let ctx: Contract;
let report: ClientReport;

/** An identity with static-key JWT auth (a fresh P-256 key) and an ES256 JWT it accepts. */
async function jwtAuthIdentity(): Promise<{ identityId: string; token: string }> {
  const identity = await ctx.admin.identities.create({
    name: 'go-sdk-jwt',
    organizationId: ctx.orgId,
    role: 'member',
  });
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const attach = await fetch(`${ctx.dev.url}/api/v1/auth/jwt-auth/identities/${identity.id}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ctx.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      configurationType: 'static',
      publicKeys: [publicKey.export({ type: 'spki', format: 'pem' }).toString()],
      boundIssuer: 'https://issuer.example',
      boundClaims: {},
      accessTokenTTL: TOKEN_TTL,
      accessTokenMaxTTL: TOKEN_MAX_TTL,
    }),
  });
  if (attach.status !== 200) throw new Error(`cannot attach JWT auth: status ${attach.status}`);
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const input = `${part({ alg: 'ES256', typ: 'JWT' })}.${part({ iss: 'https://issuer.example', sub: 'go-sdk', iat: now, exp: now + 600 })}`;
  const signature = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return { identityId: identity.id, token: `${input}.${signature.toString('base64url')}` };
}

beforeAll(async () => {
  const binary = await buildClient(goSdk);
  ctx = await startContract();
  const project = await ctx.project();
  const identity = await ctx.admin.identities.create({
    name: 'go-sdk',
    organizationId: ctx.orgId,
    role: 'member',
  });
  await ctx.admin.memberships.create(project.id, identity.id, {
    roles: [{ role: 'admin', isTemporary: false }],
  });
  const ua = await ctx.admin.identityAuth.universal.attach(identity.id, {
    accessTokenTTL: TOKEN_TTL,
    accessTokenMaxTTL: TOKEN_MAX_TTL,
  });
  const secret = await ctx.admin.universalAuthSecrets.create(identity.id, { description: 'go-sdk' });
  const jwt = await jwtAuthIdentity();
  const dynamic = await fetch(`${ctx.dev.url}/api/v1/dynamic-secrets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ctx.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      projectSlug: project.slug,
      environmentSlug: 'dev',
      name: DYNAMIC_SECRET,
      provider: { type: 'gcp-iam', inputs: { serviceAccountEmail: 'sdk@example.iam.gserviceaccount.com' } },
      defaultTTL: '1h',
    }),
  });
  if (dynamic.status !== 200) throw new Error(`cannot create the dynamic secret: status ${dynamic.status}`);
  report = await runClient(binary, {
    JWT_IDENTITY_ID: jwt.identityId,
    JWT: jwt.token,
    SITE_URL: ctx.dev.url,
    CLIENT_ID: ua.clientId,
    CLIENT_SECRET: secret.clientSecret,
    PROJECT_ID: project.id,
    PROJECT_SLUG: project.slug,
    ENVIRONMENT: 'dev',
  });
}, 900_000);

afterAll(async () => {
  await ctx?.close();
});

describe('Infisical Go SDK against the devserver', () => {
  it('reports exactly the calls this test knows, served or not', () => {
    expect(report.calls.map((c) => c.name).sort()).toEqual(
      [...Object.keys(SERVED), ...Object.keys(NOT_SERVED)].sort(),
    );
  });

  it.each(Object.keys(SERVED))('%s', (name) => {
    const call = callNamed(report, name);
    if (call.status === undefined || call.status < 300) expect(call.error).toBeUndefined();
    SERVED[name]?.(call);
  });

  it.each(Object.entries(NOT_SERVED))('%s is not served (%s)', (name) => {
    const call = callNamed(report, name);
    expect(call.ok).toBe(false);
    expect(call.status).toBe(404);
  });

  it.each(NOT_EXERCISED)('%s is not exercised (needs cloud credentials)', (name) => {
    expect(report.calls.some((c) => c.name === name)).toBe(false);
  });

  it('puts no token or secret value into its report', () => {
    const text = JSON.stringify(report);
    for (const value of ['alpha-value', 'beta-value', 'eyJ']) expect(text).not.toContain(value);
  });
});
