/**
 * `POST /api/v1/admin/bootstrap` (facts A12): one-shot instance setup creating the admin
 * user, the organisation, and an org-admin identity with token auth (TTL 0, max TTL 0, no use
 * limit, any IP) whose never-expiring token is returned. A second call answers 400.
 */
import { randomBytes, scryptSync } from 'node:crypto';
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import { issueAccessToken } from '../auth/access-tokens.ts';
import { badRequest } from '../domain/errors.ts';
import { parseTrustedIps } from '../domain/validation.ts';
import type { RequestContext, RouteDef } from '../http/types.ts';
import type { AuthMethodRecord, IdentityRecord, OrgRecord, UserRecord } from '../state/types.ts';

const bodySchema = z.object({
  email: z.email().trim().min(1),
  password: z.string().min(1),
  organization: z.string().trim().min(1),
});

/** Lowercase letters and digits joined by single hyphens. */
export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** Four random lowercase alphanumerics, as the service appends to generated slugs. */
export function slugSuffix(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(4)].map((b) => alphabet[b % alphabet.length]).join('');
}

// A low scrypt cost: the devserver stores the password only to mirror the service, and a
// costly hash would slow every test that bootstraps an instance.
const SCRYPT_COST = 1024;

function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32, { N: SCRYPT_COST }).toString('hex');
  return `scrypt:${SCRYPT_COST}:${salt.toString('hex')}:${hash}`;
}

function createAdminIdentity(
  app: DevApp,
  orgId: string,
  now: string,
): { identity: IdentityRecord; method: AuthMethodRecord } {
  const identity: IdentityRecord = {
    id: app.newId(),
    name: 'Instance Admin Identity',
    orgId,
    role: 'admin',
    orgMembershipId: app.newId(),
    hasDeleteProtection: false,
    metadata: [],
    createdAt: now,
    updatedAt: now,
  };
  const method: AuthMethodRecord = {
    id: app.newId(),
    identityId: identity.id,
    method: 'token-auth',
    accessTokenTTL: 0,
    accessTokenMaxTTL: 0,
    accessTokenNumUsesLimit: 0,
    accessTokenTrustedIps: parseTrustedIps([{ ipAddress: '0.0.0.0/0' }, { ipAddress: '::/0' }]),
    accessTokenPeriod: 0,
    config: {},
    createdAt: now,
    updatedAt: now,
  };
  app.state.identities[identity.id] = identity;
  app.state.authMethods[method.id] = method;
  return { identity, method };
}

function bootstrap(app: DevApp, ctx: RequestContext): unknown {
  const body = bodySchema.parse(ctx.body ?? {});
  const state = app.state;
  if (state.instance.initialized) throw badRequest('Instance has already been set up');
  const now = app.iso();
  const email = body.email.toLowerCase();
  const user: UserRecord = {
    id: app.newId(),
    email,
    username: email,
    firstName: 'Admin',
    lastName: 'User',
    superAdmin: true,
    passwordHash: hashPassword(body.password),
    createdAt: now,
  };
  const org: OrgRecord = {
    id: app.newId(),
    name: body.organization,
    slug: `${slugify(body.organization) || 'org'}-${slugSuffix()}`,
    createdAt: now,
    updatedAt: now,
  };
  state.users[user.id] = user;
  state.orgs[org.id] = org;
  const { identity, method } = createAdminIdentity(app, org.id, now);
  const { jwt } = issueAccessToken(app, method, { name: 'Instance Admin Token' });
  state.instance.initialized = true;
  state.instance.adminIdentityIds.push(identity.id);
  app.changed();
  return {
    message: 'Successfully bootstrapped instance',
    user: {
      username: user.username,
      firstName: user.firstName,
      lastName: user.lastName,
      email: user.email,
      id: user.id,
      superAdmin: true,
    },
    organization: { id: org.id, name: org.name, slug: org.slug },
    identity: { id: identity.id, name: identity.name, credentials: { token: jwt } },
  };
}

export function bootstrapRoutes(app: DevApp): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/admin/bootstrap',
      bucket: 'write',
      auth: false,
      handler: (ctx) => bootstrap(app, ctx),
    },
  ];
}
