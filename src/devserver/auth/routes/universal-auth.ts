/**
 * Universal auth: client secrets (create, list, get, revoke), lockout clearing, and the
 * login that exchanges a client id and secret for an access token (facts B2, B3). A client
 * secret is returned in plain text only by its create call; only its hash is stored.
 */
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { DevApp } from '../../app.ts';
import { issueAccessToken, tokenResponse } from '../access-tokens.ts';
import { badRequest, forbidden, notFound, unauthorized } from '../../domain/errors.ts';
import { ACCESS_TOKEN_TTL_MAX, ipAllowed, type TrustedIp } from '../../domain/validation.ts';
import type { RequestContext, RouteDef } from '../../http/types.ts';
import { requireOrgPermission } from '../../domain/permissions.ts';
import type { AuthMethodRecord, ClientSecretRecord } from '../../state/types.ts';
import { actorOf, findIdentity } from '../../routes/common.ts';
import { findAuthMethod } from './auth-methods.ts';

const createSchema = z.object({
  description: z.string().trim().default(''),
  numUsesLimit: z.int().min(0).default(0),
  ttl: z.int().min(0).max(ACCESS_TOKEN_TTL_MAX).default(0),
});

const loginSchema = z.object({
  clientId: z.string().trim().min(1),
  clientSecret: z.string().trim().min(1),
  subOrganizationName: z.string().optional(),
});

/** Failed-login bookkeeping per universal-auth config; deliberately not persisted. */
interface Lockout {
  failures: number;
  firstFailureAt: number;
  lockedUntil: number;
}

const lockouts = new WeakMap<DevApp, Map<string, Lockout>>();

function lockoutsOf(app: DevApp): Map<string, Lockout> {
  let map = lockouts.get(app);
  if (!map) {
    map = new Map();
    lockouts.set(app, map);
  }
  return map;
}

function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

function secretView(cs: ClientSecretRecord): Record<string, unknown> {
  return {
    id: cs.id,
    description: cs.description,
    clientSecretPrefix: cs.clientSecretPrefix,
    clientSecretNumUses: cs.clientSecretNumUses,
    clientSecretNumUsesLimit: cs.clientSecretNumUsesLimit,
    clientSecretTTL: cs.clientSecretTTL,
    identityUAId: cs.identityUAId,
    isClientSecretRevoked: cs.isClientSecretRevoked,
    createdAt: cs.createdAt,
    updatedAt: cs.updatedAt,
  };
}

function universalOf(app: DevApp, ctx: RequestContext, action: 'read' | 'edit'): AuthMethodRecord {
  const actor = actorOf(ctx);
  const identity = findIdentity(app, actor, ctx.params.identityId ?? '');
  requireOrgPermission(app, actor, action, 'identity');
  const ua = findAuthMethod(app, identity.id, 'universal-auth');
  if (!ua) throw badRequest('The identity does not have universal auth');
  return ua;
}

function createClientSecret(app: DevApp, ctx: RequestContext): unknown {
  const ua = universalOf(app, ctx, 'edit');
  const body = createSchema.parse(ctx.body ?? {});
  const secret = randomBytes(32).toString('hex');
  const now = app.iso();
  const record: ClientSecretRecord = {
    id: app.newId(),
    identityId: ua.identityId,
    identityUAId: ua.id,
    description: body.description,
    clientSecretPrefix: secret.slice(0, 4),
    clientSecretHash: hashSecret(secret),
    clientSecretNumUses: 0,
    clientSecretNumUsesLimit: body.numUsesLimit,
    clientSecretTTL: body.ttl,
    isClientSecretRevoked: false,
    createdAt: now,
    updatedAt: now,
  };
  app.state.clientSecrets[record.id] = record;
  app.changed();
  return { clientSecret: secret, clientSecretData: secretView(record) };
}

function findSecret(app: DevApp, ua: AuthMethodRecord, id: string): ClientSecretRecord {
  const cs = app.state.clientSecrets[id];
  if (!cs || cs.identityUAId !== ua.id) throw notFound(`Failed to find client secret with ID ${id}`);
  return cs;
}

function listClientSecrets(app: DevApp, ctx: RequestContext): unknown {
  const ua = universalOf(app, ctx, 'read');
  const list = Object.values(app.state.clientSecrets).filter(
    (cs) => cs.identityUAId === ua.id && !cs.isClientSecretRevoked,
  );
  return { clientSecretData: list.map(secretView) };
}

function revokeClientSecret(app: DevApp, ctx: RequestContext): unknown {
  const ua = universalOf(app, ctx, 'edit');
  const cs = findSecret(app, ua, ctx.params.clientSecretId ?? '');
  cs.isClientSecretRevoked = true;
  cs.updatedAt = app.iso();
  app.changed();
  return { clientSecretData: secretView(cs) };
}

function clearLockouts(app: DevApp, ctx: RequestContext): unknown {
  const ua = universalOf(app, ctx, 'edit');
  const deleted = lockoutsOf(app).delete(ua.id) ? 1 : 0;
  return { deleted };
}

function recordFailure(app: DevApp, ua: AuthMethodRecord): void {
  if (ua.config.lockoutEnabled === false) return;
  const now = app.now();
  const map = lockoutsOf(app);
  const resetMs = Number(ua.config.lockoutCounterResetSeconds ?? 30) * 1000;
  const entry = map.get(ua.id);
  const current =
    entry && now - entry.firstFailureAt <= resetMs
      ? entry
      : { failures: 0, firstFailureAt: now, lockedUntil: 0 };
  current.failures++;
  if (current.failures >= Number(ua.config.lockoutThreshold ?? 3)) {
    current.lockedUntil = now + Number(ua.config.lockoutDurationSeconds ?? 300) * 1000;
  }
  map.set(ua.id, current);
}

function checkSecretUsable(app: DevApp, cs: ClientSecretRecord): void {
  if (cs.clientSecretTTL > 0 && app.now() > Date.parse(cs.createdAt) + cs.clientSecretTTL * 1000) {
    cs.isClientSecretRevoked = true;
    app.changed();
    throw unauthorized('Failed to authenticate identity credentials due to expired client secret');
  }
  if (cs.clientSecretNumUsesLimit > 0 && cs.clientSecretNumUses >= cs.clientSecretNumUsesLimit) {
    cs.isClientSecretRevoked = true;
    app.changed();
    throw unauthorized(
      'Failed to authenticate identity credentials due to client secret number of uses limit reached',
    );
  }
}

function login(app: DevApp, ctx: RequestContext): unknown {
  const body = loginSchema.parse(ctx.body ?? {});
  const ua = Object.values(app.state.authMethods).find(
    (m) => m.method === 'universal-auth' && m.config.clientId === body.clientId,
  );
  if (!ua) throw unauthorized('Invalid credentials');
  if ((lockoutsOf(app).get(ua.id)?.lockedUntil ?? 0) > app.now()) {
    throw unauthorized(
      'Failed to authenticate identity credentials. Too many failed attempts, please try again later.',
    );
  }
  const hash = hashSecret(body.clientSecret);
  const cs = Object.values(app.state.clientSecrets).find(
    (c) => c.identityUAId === ua.id && !c.isClientSecretRevoked && c.clientSecretHash === hash,
  );
  if (!cs) {
    recordFailure(app, ua);
    throw unauthorized('Invalid credentials');
  }
  checkSecretUsable(app, cs);
  if (!ipAllowed(ctx.ip, (ua.config.clientSecretTrustedIps ?? []) as TrustedIp[])) {
    throw forbidden('You are not allowed to access this resource from the current IP address');
  }
  cs.clientSecretNumUses++;
  lockoutsOf(app).delete(ua.id);
  const identity = app.state.identities[ua.identityId];
  if (identity) {
    identity.lastLoginAuthMethod = 'universal-auth';
    identity.lastLoginTime = app.iso();
  }
  const { record, jwt } = issueAccessToken(app, ua, { clientSecretId: cs.id });
  return tokenResponse(record, jwt);
}

/** Client-secret management and the universal-auth login. */
export function universalAuthRoutes(app: DevApp): RouteDef[] {
  const base = '/api/v1/auth/universal-auth/identities/:identityId';
  return [
    {
      method: 'POST',
      path: `${base}/client-secrets`,
      bucket: 'write',
      handler: (ctx) => createClientSecret(app, ctx),
    },
    {
      method: 'GET',
      path: `${base}/client-secrets`,
      bucket: 'read',
      handler: (ctx) => listClientSecrets(app, ctx),
    },
    {
      method: 'GET',
      path: `${base}/client-secrets/:clientSecretId`,
      bucket: 'read',
      handler: (ctx) => ({
        clientSecretData: secretView(
          findSecret(app, universalOf(app, ctx, 'read'), ctx.params.clientSecretId ?? ''),
        ),
      }),
    },
    {
      method: 'POST',
      path: `${base}/client-secrets/:clientSecretId/revoke`,
      bucket: 'write',
      handler: (ctx) => revokeClientSecret(app, ctx),
    },
    {
      method: 'POST',
      path: `${base}/clear-lockouts`,
      bucket: 'write',
      handler: (ctx) => clearLockouts(app, ctx),
    },
    {
      method: 'POST',
      path: '/api/v1/auth/universal-auth/login',
      bucket: 'write',
      auth: false,
      write: false,
      handler: (ctx) => login(app, ctx),
    },
  ];
}
