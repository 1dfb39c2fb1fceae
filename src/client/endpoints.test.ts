// Every client method against a mock service: the HTTP method, path and query it uses, the
// operation name it reports, and that it unwraps the response envelope.
import { MockAgent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { staticToken } from './auth.ts';
import { ManualClock } from '../runtime/clock.ts';
import type { RequestInfo } from './http.ts';
import { createServiceClient, type ServiceClient } from './service-client.ts';
import { TransportRegistry } from './transport.ts';

const ORIGIN = 'http://svc.test';
const agent = new MockAgent();
agent.disableNetConnect();
const pool = agent.get(ORIGIN);
const seen: RequestInfo[] = [];
const client = createServiceClient({
  baseUrl: ORIGIN,
  dispatcher: agent,
  registry: new TransportRegistry(),
  clock: new ManualClock({ start: 1_700_000_000_000, autoAdvance: true }),
  auth: staticToken('endpoint-test-token'),
  onRequest: (info) => seen.push(info),
});

afterAll(async () => {
  await client.close();
  await agent.close();
});

const lifetime = {
  id: 'a1',
  identityId: 'i1',
  accessTokenTTL: 7200,
  accessTokenMaxTTL: 7200,
  accessTokenNumUsesLimit: 0,
  accessTokenTrustedIps: [{ ipAddress: '0.0.0.0', type: 'ipv4', prefix: 0 }],
};
const dynScope = { projectSlug: 'demo', environmentSlug: 'dev', path: '/' };
const dynamicSecret = { id: 'd1', name: 'db', type: 'sql-database', defaultTTL: '1h', maxTTL: null };
const project = {
  id: 'p1',
  name: 'Demo',
  slug: 'demo',
  environments: [{ id: 'e1', name: 'Dev', slug: 'dev' }],
};
const environment = { id: 'e1', name: 'Dev', slug: 'dev', position: 1 };
const identity = { id: 'i1', name: 'bot', authMethods: [], hasDeleteProtection: false, metadata: [] };
const wrapped = { role: 'member', identity: { id: 'i1', name: 'bot', authMethods: ['token-auth'] } };
const privilege = {
  id: 'pr1',
  slug: 'read-dev',
  isTemporary: false,
  permissions: [{ subject: 'secrets', action: 'read' }],
};
const secret = { id: 's1', secretKey: 'A', secretValue: 'v', version: 1 };
const folder = { id: 'f1', name: 'app' };
const dsLease = { id: 'l1', expireAt: '2026-01-01T00:00:00.000Z', createdAt: '2026-01-01T00:00:00.000Z' };
const dsScope = { projectSlug: 'demo', environmentSlug: 'dev', path: '/' };
const integration = { id: 'n1', integration: 'aws', integrationAuthId: 'ia1', isActive: true };
const integrationAuth = { id: 'ia1', projectId: 'p1', integration: 'aws-secret-manager' };
const ca = { id: 'ca1', status: 'active', type: 'root', keyAlgorithm: 'RSA_2048', dn: 'CN=x' };
const template = { id: 't1', name: 'tmpl', type: 'secret-manager', roles: [], environments: null };
const role = { id: 'r1', slug: 'reader', name: 'Reader', permissions: [] };
const membership = { id: 'm1', roles: [{ role: 'custom', customRoleSlug: 'reader', isTemporary: false }] };
const clientSecretData = { id: 'cs1', clientSecretPrefix: 'abc' };
const tokenData = { id: 'tk1', accessTokenTTL: 0, accessTokenMaxTTL: 0 };
const accessToken = { accessToken: 'jwt', expiresIn: 0, accessTokenMaxTTL: 0, tokenType: 'Bearer' };
const temp = { isTemporary: false as const };

interface Case {
  op: string;
  method: string;
  path: string;
  query?: Record<string, string>;
  reply: unknown;
  call: (c: ServiceClient) => Promise<unknown>;
  expected: unknown;
}

const auth = (name: keyof ServiceClient['identityAuth'], seg: string, key: string): Case[] => {
  const path = `/api/v1/auth/${seg}/identities/i1`;
  const cfg = {
    ...lifetime,
    clientId: 'cid',
    clientSecretTrustedIps: [],
    configurationType: 'jwks',
    oidcDiscoveryUrl: 'https://x',
  };
  const api = (c: ServiceClient) =>
    c.identityAuth[name] as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  const body =
    name === 'jwt'
      ? { configurationType: 'jwks', jwksUrl: 'https://x/jwks', boundClaims: {} }
      : name === 'oidc'
        ? { oidcDiscoveryUrl: 'https://x', boundIssuer: 'x', boundClaims: {} }
        : name === 'tlsCert'
          ? { caCertificate: 'PEM' }
          : {};
  const verbs = [
    { verb: 'attach', method: 'POST', call: (c: ServiceClient) => api(c).attach!('i1', body) },
    { verb: 'get', method: 'GET', call: (c: ServiceClient) => api(c).get!('i1') },
    { verb: 'update', method: 'PATCH', call: (c: ServiceClient) => api(c).update!('i1', body) },
    { verb: 'revoke', method: 'DELETE', call: (c: ServiceClient) => api(c).revoke!('i1') },
  ];
  return verbs.map((v) => ({
    op: `identityAuth.${name}.${v.verb}`,
    method: v.method,
    path,
    reply: { [key]: cfg },
    call: v.call,
    expected: { id: 'a1' },
  }));
};

const scope = { workspaceId: 'p1', environment: 'dev', secretPath: '/' };
// prettier-ignore
const cases: Case[] = [
  { op: 'admin.bootstrap', method: 'POST', path: '/api/v1/admin/bootstrap', reply: { message: 'ok', user: { id: 'u', email: 'admin@example.com' }, organization: { id: 'o', name: 'O', slug: 'o' }, identity: { id: 'i', name: 'I', credentials: { token: 't' } } }, call: (c) => c.admin.bootstrap({ email: 'admin@example.com', password: 'pw', organization: 'O' }), expected: { organization: { id: 'o' } } },
  { op: 'auth.loginUniversal', method: 'POST', path: '/api/v1/auth/universal-auth/login', reply: accessToken, call: (c) => c.auth.loginUniversal({ clientId: 'a', clientSecret: 'b' }), expected: { accessToken: 'jwt' } },
  { op: 'auth.renew', method: 'POST', path: '/api/v1/auth/token/renew', reply: accessToken, call: (c) => c.auth.renew('jwt'), expected: { accessToken: 'jwt' } },
  { op: 'auth.revoke', method: 'POST', path: '/api/v1/auth/token/revoke', reply: { message: 'revoked' }, call: (c) => c.auth.revoke('jwt'), expected: { message: 'revoked' } },
  { op: 'projects.create', method: 'POST', path: '/api/v2/workspace', reply: { project }, call: (c) => c.projects.create({ projectName: 'Demo' }), expected: project },
  { op: 'projects.get', method: 'GET', path: '/api/v1/workspace/p1', reply: { workspace: project }, call: (c) => c.projects.get('p1'), expected: project },
  { op: 'projects.update', method: 'PATCH', path: '/api/v1/workspace/p1', reply: { workspace: project }, call: (c) => c.projects.update('p1', { description: 'd' }), expected: project },
  { op: 'projects.delete', method: 'DELETE', path: '/api/v1/workspace/p1', reply: { workspace: project }, call: (c) => c.projects.delete('p1'), expected: project },
  { op: 'environments.create', method: 'POST', path: '/api/v1/workspace/p1/environments', reply: { message: 'm', workspace: 'p1', environment }, call: (c) => c.environments.create('p1', { name: 'Dev', slug: 'dev' }), expected: environment },
  { op: 'environments.get', method: 'GET', path: '/api/v1/workspace/p1/environments/e1', reply: { environment }, call: (c) => c.environments.get('p1', 'e1'), expected: environment },
  { op: 'environments.update', method: 'PATCH', path: '/api/v1/workspace/p1/environments/e1', reply: { message: 'm', workspace: 'p1', environment }, call: (c) => c.environments.update('p1', 'e1', { name: 'Dev' }), expected: environment },
  { op: 'environments.delete', method: 'DELETE', path: '/api/v1/workspace/p1/environments/e1', reply: { message: 'm', workspace: 'p1', environment }, call: (c) => c.environments.delete('p1', 'e1'), expected: environment },
  { op: 'identities.create', method: 'POST', path: '/api/v1/identities', reply: { identity }, call: (c) => c.identities.create({ name: 'bot', organizationId: 'o1' }), expected: identity },
  { op: 'identities.get', method: 'GET', path: '/api/v1/identities/i1', reply: { identity: wrapped }, call: (c) => c.identities.get('i1'), expected: { id: 'i1', name: 'bot', role: 'member', authMethods: ['token-auth'] } },
  { op: 'identities.update', method: 'PATCH', path: '/api/v1/identities/i1', reply: { identity }, call: (c) => c.identities.update('i1', { name: 'bot' }), expected: identity },
  { op: 'identities.delete', method: 'DELETE', path: '/api/v1/identities/i1', reply: { identity }, call: (c) => c.identities.delete('i1'), expected: identity },
  { op: 'identities.list', method: 'GET', path: '/api/v1/identities', query: { orgId: 'o1' }, reply: { identities: [wrapped], totalCount: 1 }, call: (c) => c.identities.list('o1'), expected: [{ id: 'i1' }] },
  ...auth('token', 'token-auth', 'identityTokenAuth'),
  ...auth('universal', 'universal-auth', 'identityUniversalAuth'),
  ...auth('jwt', 'jwt-auth', 'identityJwtAuth'),
  ...auth('oidc', 'oidc-auth', 'identityOidcAuth'),
  ...auth('tlsCert', 'tls-cert-auth', 'identityTlsCertAuth'),
  ...auth('aws', 'aws-auth', 'identityAwsAuth'),
  { op: 'universalAuthSecrets.create', method: 'POST', path: '/api/v1/auth/universal-auth/identities/i1/client-secrets', reply: { clientSecret: 'cs', clientSecretData }, call: (c) => c.universalAuthSecrets.create('i1', { description: 'x' }), expected: { clientSecretData: { id: 'cs1' } } },
  { op: 'universalAuthSecrets.list', method: 'GET', path: '/api/v1/auth/universal-auth/identities/i1/client-secrets', reply: { clientSecretData: [clientSecretData] }, call: (c) => c.universalAuthSecrets.list('i1'), expected: [{ id: 'cs1' }] },
  { op: 'universalAuthSecrets.get', method: 'GET', path: '/api/v1/auth/universal-auth/identities/i1/client-secrets/cs1', reply: { clientSecretData }, call: (c) => c.universalAuthSecrets.get('i1', 'cs1'), expected: { id: 'cs1' } },
  { op: 'universalAuthSecrets.revoke', method: 'POST', path: '/api/v1/auth/universal-auth/identities/i1/client-secrets/cs1/revoke', reply: { clientSecretData }, call: (c) => c.universalAuthSecrets.revoke('i1', 'cs1'), expected: { id: 'cs1' } },
  { op: 'tokenAuthTokens.create', method: 'POST', path: '/api/v1/auth/token-auth/identities/i1/tokens', reply: { ...accessToken, tokenData }, call: (c) => c.tokenAuthTokens.create('i1', { name: 'n' }), expected: { tokenData: { id: 'tk1' } } },
  { op: 'tokenAuthTokens.list', method: 'GET', path: '/api/v1/auth/token-auth/identities/i1/tokens', query: { limit: '5' }, reply: { tokens: [tokenData] }, call: (c) => c.tokenAuthTokens.list('i1', { limit: 5 }), expected: [{ id: 'tk1' }] },
  { op: 'tokenAuthTokens.get', method: 'GET', path: '/api/v1/auth/token-auth/tokens/tk1', reply: { token: tokenData }, call: (c) => c.tokenAuthTokens.get('tk1'), expected: { id: 'tk1' } },
  { op: 'tokenAuthTokens.update', method: 'PATCH', path: '/api/v1/auth/token-auth/tokens/tk1', reply: { token: tokenData }, call: (c) => c.tokenAuthTokens.update('tk1', { name: 'x' }), expected: { id: 'tk1' } },
  { op: 'tokenAuthTokens.revoke', method: 'POST', path: '/api/v1/auth/token-auth/tokens/tk1/revoke', reply: { message: 'ok' }, call: (c) => c.tokenAuthTokens.revoke('tk1'), expected: { message: 'ok' } },
  { op: 'memberships.create', method: 'POST', path: '/api/v1/projects/p1/memberships/identities/i1', reply: { identityMembership: membership }, call: (c) => c.memberships.create('p1', 'i1', { roles: [{ role: 'reader', ...temp }] }), expected: { id: 'm1', roles: [{ slug: 'reader' }] } },
  { op: 'memberships.get', method: 'GET', path: '/api/v1/projects/p1/memberships/identities/i1', reply: { identityMembership: membership }, call: (c) => c.memberships.get('p1', 'i1'), expected: { id: 'm1' } },
  { op: 'memberships.update', method: 'PATCH', path: '/api/v1/projects/p1/memberships/identities/i1', reply: { identityMembership: membership }, call: (c) => c.memberships.update('p1', 'i1', { roles: [{ role: 'viewer', ...temp }] }), expected: { id: 'm1' } },
  { op: 'memberships.delete', method: 'DELETE', path: '/api/v1/projects/p1/memberships/identities/i1', reply: { identityMembership: membership }, call: (c) => c.memberships.delete('p1', 'i1'), expected: { id: 'm1' } },
  { op: 'memberships.list', method: 'GET', path: '/api/v1/projects/p1/memberships/identities', reply: { identityMemberships: [membership], totalCount: 1 }, call: (c) => c.memberships.list('p1'), expected: { totalCount: 1 } },
  { op: 'privileges.create', method: 'POST', path: '/api/v2/identity-project-additional-privilege', reply: { privilege }, call: (c) => c.privileges.create({ identityId: 'i1', projectId: 'p1', permissions: [], type: temp }), expected: { id: 'pr1', permissions: [{ action: ['read'] }] } },
  { op: 'privileges.get', method: 'GET', path: '/api/v2/identity-project-additional-privilege/pr1', reply: { privilege }, call: (c) => c.privileges.get('pr1'), expected: { id: 'pr1' } },
  { op: 'privileges.getBySlug', method: 'GET', path: '/api/v2/identity-project-additional-privilege/slug/read-dev', query: { identityId: 'i1', projectSlug: 'demo' }, reply: { privilege }, call: (c) => c.privileges.getBySlug('read-dev', { identityId: 'i1', projectSlug: 'demo' }), expected: { id: 'pr1' } },
  { op: 'privileges.list', method: 'GET', path: '/api/v2/identity-project-additional-privilege', query: { identityId: 'i1', projectId: 'p1' }, reply: { privileges: [privilege] }, call: (c) => c.privileges.list({ identityId: 'i1', projectId: 'p1' }), expected: [{ id: 'pr1' }] },
  { op: 'privileges.update', method: 'PATCH', path: '/api/v2/identity-project-additional-privilege/pr1', reply: { privilege }, call: (c) => c.privileges.update('pr1', { slug: 'read-dev', type: temp }), expected: { id: 'pr1' } },
  { op: 'privileges.delete', method: 'DELETE', path: '/api/v2/identity-project-additional-privilege/pr1', reply: { privilege }, call: (c) => c.privileges.delete('pr1'), expected: { id: 'pr1' } },
  { op: 'privileges.v1.list', method: 'GET', path: '/api/v1/additional-privilege/identity', query: { identityId: 'i1', projectSlug: 'demo' }, reply: { privileges: [privilege] }, call: (c) => c.privileges.v1.list({ identityId: 'i1', projectSlug: 'demo' }), expected: [{ id: 'pr1' }] },
  { op: 'privileges.v1.update', method: 'PATCH', path: '/api/v1/additional-privilege/identity', reply: { privilege }, call: (c) => c.privileges.v1.update({ identityId: 'i1', projectSlug: 'demo', privilegeSlug: 'read-dev', privilegeDetails: { permissions: [{ action: 'read', subject: 'secrets' }] } }), expected: { id: 'pr1' } },
  { op: 'privileges.v1.delete', method: 'DELETE', path: '/api/v1/additional-privilege/identity', reply: { privilege }, call: (c) => c.privileges.v1.delete({ identityId: 'i1', projectSlug: 'demo', privilegeSlug: 'read-dev' }), expected: { id: 'pr1' } },
  { op: 'secrets.list', method: 'GET', path: '/api/v3/secrets/raw', query: { workspaceId: 'p1', environment: 'dev', secretPath: '/' }, reply: { secrets: [secret] }, call: (c) => c.secrets.list(scope), expected: { secrets: [secret] } },
  { op: 'secrets.get', method: 'GET', path: '/api/v3/secrets/raw/A', query: { workspaceSlug: 'demo', environment: 'dev' }, reply: { secret }, call: (c) => c.secrets.get('A', { projectSlug: 'demo', environment: 'dev' }), expected: secret },
  { op: 'secrets.create', method: 'POST', path: '/api/v3/secrets/raw/A', reply: { secret }, call: (c) => c.secrets.create('A', { ...scope, secretValue: 'v' }), expected: secret },
  { op: 'secrets.update', method: 'PATCH', path: '/api/v3/secrets/raw/A', reply: { secret }, call: (c) => c.secrets.update('A', { ...scope, secretValue: 'w' }), expected: secret },
  { op: 'secrets.delete', method: 'DELETE', path: '/api/v3/secrets/raw/A', reply: { secret }, call: (c) => c.secrets.delete('A', scope), expected: secret },
  { op: 'secrets.batchCreate', method: 'POST', path: '/api/v3/secrets/batch/raw', reply: { secrets: [secret] }, call: (c) => c.secrets.batchCreate({ ...scope, secrets: [{ secretKey: 'A', secretValue: 'v' }] }), expected: [secret] },
  { op: 'secrets.batchUpdate', method: 'PATCH', path: '/api/v3/secrets/batch/raw', reply: { secrets: [secret] }, call: (c) => c.secrets.batchUpdate({ ...scope, mode: 'upsert', secrets: [{ secretKey: 'A', secretValue: 'v' }] }), expected: [secret] },
  { op: 'secrets.batchDelete', method: 'DELETE', path: '/api/v3/secrets/batch/raw', reply: { secrets: [secret] }, call: (c) => c.secrets.batchDelete({ ...scope, secrets: [{ secretKey: 'A' }] }), expected: [secret] },
  { op: 'dynamicSecrets.create', method: 'POST', path: '/api/v1/dynamic-secrets', reply: { dynamicSecret }, call: (c) => c.dynamicSecrets.create({ ...dynScope, name: 'db', provider: { type: 'sql-database', inputs: {} }, defaultTTL: '1h' }), expected: dynamicSecret },
  { op: 'dynamicSecrets.get', method: 'GET', path: '/api/v1/dynamic-secrets/db', query: dynScope, reply: { dynamicSecret }, call: (c) => c.dynamicSecrets.get('db', dynScope), expected: dynamicSecret },
  { op: 'dynamicSecrets.list', method: 'GET', path: '/api/v1/dynamic-secrets', query: dynScope, reply: { dynamicSecrets: [dynamicSecret] }, call: (c) => c.dynamicSecrets.list(dynScope), expected: [dynamicSecret] },
  { op: 'dynamicSecrets.update', method: 'PATCH', path: '/api/v1/dynamic-secrets/db', reply: { dynamicSecret }, call: (c) => c.dynamicSecrets.update('db', { ...dynScope, data: { defaultTTL: '2h' } }), expected: dynamicSecret },
  { op: 'dynamicSecrets.delete', method: 'DELETE', path: '/api/v1/dynamic-secrets/db', reply: { dynamicSecret }, call: (c) => c.dynamicSecrets.delete('db', dynScope), expected: dynamicSecret },
  { op: 'dynamicSecretLeases.issue', method: 'POST', path: '/api/v1/dynamic-secrets/leases', reply: { lease: dsLease, data: { DB_USERNAME: 'u' } }, call: (c) => c.dynamicSecretLeases.issue({ ...dsScope, dynamicSecretName: 'db' }), expected: { lease: dsLease, data: { DB_USERNAME: 'u' } } },
  { op: 'dynamicSecretLeases.get', method: 'GET', path: '/api/v1/dynamic-secrets/leases/l1', query: dsScope, reply: { lease: dsLease }, call: (c) => c.dynamicSecretLeases.get('l1', dsScope), expected: dsLease },
  { op: 'dynamicSecretLeases.renew', method: 'POST', path: '/api/v1/dynamic-secrets/leases/l1/renew', reply: { lease: dsLease }, call: (c) => c.dynamicSecretLeases.renew('l1', dsScope), expected: dsLease },
  { op: 'dynamicSecretLeases.revoke', method: 'DELETE', path: '/api/v1/dynamic-secrets/leases/l1', reply: { lease: dsLease }, call: (c) => c.dynamicSecretLeases.revoke('l1', dsScope), expected: dsLease },
  { op: 'dynamicSecretLeases.list', method: 'GET', path: '/api/v1/dynamic-secrets/db/leases', query: dsScope, reply: { leases: [dsLease] }, call: (c) => c.dynamicSecretLeases.list('db', dsScope), expected: [dsLease] },
  { op: 'folders.create', method: 'POST', path: '/api/v2/folders', reply: { folder }, call: (c) => c.folders.create({ projectId: 'p1', environment: 'dev', name: 'app' }), expected: folder },
  { op: 'folders.list', method: 'GET', path: '/api/v2/folders', query: { projectId: 'p1', environment: 'dev', path: '/' }, reply: { folders: [folder] }, call: (c) => c.folders.list({ projectId: 'p1', environment: 'dev', path: '/' }), expected: [folder] },
  { op: 'folders.delete', method: 'DELETE', path: '/api/v2/folders/app', reply: { folder }, call: (c) => c.folders.delete('app', { projectId: 'p1', environment: 'dev', path: '/' }), expected: folder },
  { op: 'folders.v1.create', method: 'POST', path: '/api/v1/folders', reply: { folder }, call: (c) => c.folders.v1.create({ workspaceId: 'p1', environment: 'dev', name: 'app' }), expected: folder },
  { op: 'folders.v1.list', method: 'GET', path: '/api/v1/folders', query: { workspaceId: 'p1', environment: 'dev' }, reply: { folders: [folder] }, call: (c) => c.folders.v1.list({ workspaceId: 'p1', environment: 'dev' }), expected: [folder] },
  { op: 'folders.v1.delete', method: 'DELETE', path: '/api/v1/folders/f1', reply: { folder }, call: (c) => c.folders.v1.delete('f1', { workspaceId: 'p1', environment: 'dev' }), expected: folder },
  { op: 'integrations.list', method: 'GET', path: '/api/v1/workspace/p1/integrations', reply: { integrations: [integration] }, call: (c) => c.integrations.list('p1'), expected: [integration] },
  { op: 'integrations.get', method: 'GET', path: '/api/v1/integration/n1', reply: { integration }, call: (c) => c.integrations.get('n1'), expected: integration },
  { op: 'integrations.update', method: 'PATCH', path: '/api/v1/integration/n1', reply: { integration }, call: (c) => c.integrations.update('n1', { isActive: false, secretPath: '/' }), expected: integration },
  { op: 'integrations.delete', method: 'DELETE', path: '/api/v1/integration/n1', query: { shouldDeleteIntegrationSecrets: 'false' }, reply: { integration }, call: (c) => c.integrations.delete('n1', { shouldDeleteIntegrationSecrets: false }), expected: integration },
  { op: 'integrationAuth.createWithAccessToken', method: 'POST', path: '/api/v1/integration-auth/access-token', reply: { integrationAuth }, call: (c) => c.integrations.auth.createWithAccessToken({ workspaceId: 'p1', integration: 'aws-secret-manager', accessId: 'id', accessToken: 'key' }), expected: integrationAuth },
  { op: 'integrationAuth.get', method: 'GET', path: '/api/v1/integration-auth/ia1', reply: { integrationAuth }, call: (c) => c.integrations.auth.get('ia1'), expected: integrationAuth },
  { op: 'integrationAuth.list', method: 'GET', path: '/api/v1/workspace/p1/authorizations', reply: { authorizations: [integrationAuth] }, call: (c) => c.integrations.auth.list('p1'), expected: [integrationAuth] },
  { op: 'integrationAuth.delete', method: 'DELETE', path: '/api/v1/integration-auth/ia1', reply: { integrationAuth }, call: (c) => c.integrations.auth.delete('ia1'), expected: integrationAuth },
  { op: 'pki.createCa', method: 'POST', path: '/api/v1/pki/ca', reply: { ca }, call: (c) => c.pki.createCa({ projectSlug: 'demo', type: 'root', commonName: 'x', organization: '', ou: '', country: '', province: '', locality: '' }), expected: ca },
  { op: 'pki.getCa', method: 'GET', path: '/api/v1/pki/ca/ca1', reply: { ca }, call: (c) => c.pki.getCa('ca1'), expected: ca },
  { op: 'pki.updateCa', method: 'PATCH', path: '/api/v1/pki/ca/ca1', reply: { ca }, call: (c) => c.pki.updateCa('ca1', { status: 'disabled' }), expected: ca },
  { op: 'pki.deleteCa', method: 'DELETE', path: '/api/v1/pki/ca/ca1', reply: { ca }, call: (c) => c.pki.deleteCa('ca1'), expected: ca },
  { op: 'pki.getCaCertificate', method: 'GET', path: '/api/v1/pki/ca/ca1/certificate', reply: { certificate: 'PEM', certificateChain: '', serialNumber: '01' }, call: (c) => c.pki.getCaCertificate('ca1'), expected: { certificate: 'PEM' } },
  { op: 'projectTemplates.create', method: 'POST', path: '/api/v1/project-templates', reply: { projectTemplate: template }, call: (c) => c.projectTemplates.create({ name: 'tmpl', type: 'secret-manager' }), expected: template },
  { op: 'projectTemplates.get', method: 'GET', path: '/api/v1/project-templates/t1', reply: { projectTemplate: template }, call: (c) => c.projectTemplates.get('t1'), expected: template },
  { op: 'projectTemplates.list', method: 'GET', path: '/api/v1/project-templates', reply: { projectTemplates: [template] }, call: (c) => c.projectTemplates.list(), expected: [template] },
  { op: 'projectTemplates.update', method: 'PATCH', path: '/api/v1/project-templates/t1', reply: { projectTemplate: template }, call: (c) => c.projectTemplates.update('t1', { description: 'd' }), expected: template },
  { op: 'projectTemplates.delete', method: 'DELETE', path: '/api/v1/project-templates/t1', reply: { projectTemplate: template }, call: (c) => c.projectTemplates.delete('t1'), expected: template },
  { op: 'roles.create', method: 'POST', path: '/api/v2/workspace/p1/roles', reply: { role }, call: (c) => c.roles.create('p1', { slug: 'reader', name: 'Reader', permissions: [] }), expected: role },
  { op: 'roles.getBySlug', method: 'GET', path: '/api/v2/workspace/p1/roles/slug/reader', reply: { role }, call: (c) => c.roles.getBySlug('p1', 'reader'), expected: role },
  { op: 'roles.update', method: 'PATCH', path: '/api/v2/workspace/p1/roles/r1', reply: { role }, call: (c) => c.roles.update('p1', 'r1', { name: 'R' }), expected: role },
  { op: 'roles.delete', method: 'DELETE', path: '/api/v2/workspace/p1/roles/r1', reply: { role }, call: (c) => c.roles.delete('p1', 'r1'), expected: role },
  { op: 'roles.list', method: 'GET', path: '/api/v2/workspace/p1/roles', reply: { roles: [role] }, call: (c) => c.roles.list('p1'), expected: [role] },
];

describe('endpoints', () => {
  it.each(cases)('$op → $method $path', async (c) => {
    pool
      .intercept({ path: c.path, method: c.method, ...(c.query ? { query: c.query } : {}) })
      .reply(200, c.reply as object);
    seen.length = 0;
    const result = await c.call(client);
    expect(result).toMatchObject(c.expected as object);
    expect(seen.map((s) => [s.operation, s.method, s.status])).toEqual([[c.op, c.method, 200]]);
  });

  it('covers every operation of the client', () => {
    expect(new Set(cases.map((c) => c.op)).size).toBe(cases.length);
    expect(cases.length).toBeGreaterThanOrEqual(90);
  });

  it('turns an approval answer into ApprovalRequiredError', async () => {
    pool
      .intercept({ path: '/api/v3/secrets/batch/raw', method: 'PATCH' })
      .reply(200, { approval: { id: 'ap1', status: 'open' } });
    await expect(
      client.secrets.batchUpdate({ ...scope, secrets: [{ secretKey: 'A', secretValue: 'v' }] }),
    ).rejects.toMatchObject({ name: 'ApprovalRequiredError', approvalId: 'ap1' });
  });

  it('requires exactly one of workspaceId and projectSlug for secrets', async () => {
    await expect(client.secrets.list({ environment: 'dev' })).rejects.toThrow(
      /exactly one of workspaceId and projectSlug/,
    );
  });
});
