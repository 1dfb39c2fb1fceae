/**
 * Access-token endpoints (facts B3): token-auth token create/list/get/rename/revoke, and the
 * unauthenticated renew and revoke calls that take the token in the body.
 */
import { z } from 'zod';
import type { DevApp } from '../../app.ts';
import { issueAccessToken, renewAccessToken, revokeAccessToken, tokenResponse } from '../access-tokens.ts';
import { badRequest, notFound } from '../../domain/errors.ts';
import type { RequestContext, RouteDef } from '../../http/types.ts';
import { requireOrgPermission } from '../../domain/permissions.ts';
import type { AccessTokenRecord } from '../../state/types.ts';
import { actorOf, findIdentity } from '../../routes/common.ts';
import { findAuthMethod } from './auth-methods.ts';

const tokenBody = z.object({ accessToken: z.string().trim().min(1) });

/** The `tokenData` / `token` view of a token record (no secret material). */
export function tokenView(t: AccessTokenRecord): Record<string, unknown> {
  return {
    id: t.id,
    accessTokenTTL: t.accessTokenTTL,
    accessTokenMaxTTL: t.accessTokenMaxTTL,
    accessTokenNumUses: t.accessTokenNumUses,
    accessTokenNumUsesLimit: t.accessTokenNumUsesLimit,
    accessTokenLastUsedAt: t.accessTokenLastUsedAt,
    accessTokenLastRenewedAt: t.accessTokenLastRenewedAt,
    isAccessTokenRevoked: t.isAccessTokenRevoked,
    identityUAClientSecretId: t.identityUAClientSecretId,
    identityId: t.identityId,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    name: t.name,
    authMethod: t.authMethod,
    accessTokenPeriod: t.accessTokenPeriod,
    subOrganizationId: null,
  };
}

function createToken(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const body = z
    .object({ name: z.string().trim().optional(), organizationSlug: z.string().optional() })
    .parse(ctx.body ?? {});
  const identity = findIdentity(app, actor, ctx.params.identityId ?? '');
  requireOrgPermission(app, actor, 'edit', 'identity');
  const method = findAuthMethod(app, identity.id, 'token-auth');
  if (!method) throw badRequest('The identity does not have token auth');
  const { record, jwt } = issueAccessToken(app, method, { name: body.name ?? null });
  return { ...tokenResponse(record, jwt), tokenData: tokenView(record) };
}

function listTokens(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const q = z
    .object({
      offset: z.coerce.number().int().min(0).max(100).default(0),
      limit: z.coerce.number().int().min(1).max(100).default(20),
    })
    .parse(ctx.query);
  const identity = findIdentity(app, actor, ctx.params.identityId ?? '');
  requireOrgPermission(app, actor, 'read', 'identity');
  const tokens = Object.values(app.state.accessTokens)
    .filter((t) => t.identityId === identity.id && t.authMethod === 'token-auth' && !t.isAccessTokenRevoked)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  return { tokens: tokens.slice(q.offset, q.offset + q.limit).map(tokenView) };
}

/** A live token-auth token of the actor's org, else 404. */
function findToken(app: DevApp, ctx: RequestContext, action: 'read' | 'edit'): AccessTokenRecord {
  const actor = actorOf(ctx);
  const id = ctx.params.tokenId ?? '';
  const token = app.state.accessTokens[id];
  const identity = token ? app.state.identities[token.identityId] : undefined;
  if (
    !token ||
    token.isAccessTokenRevoked ||
    token.authMethod !== 'token-auth' ||
    identity?.orgId !== actor.orgId
  ) {
    throw notFound(`Token with ID ${id} not found`);
  }
  requireOrgPermission(app, actor, action, 'identity');
  return token;
}

function renameToken(app: DevApp, ctx: RequestContext): unknown {
  const body = z.object({ name: z.string().trim().optional() }).parse(ctx.body ?? {});
  const token = findToken(app, ctx, 'edit');
  if (body.name !== undefined) token.name = body.name;
  token.updatedAt = app.iso();
  app.changed();
  return { token: tokenView(token) };
}

function revokeToken(app: DevApp, ctx: RequestContext): unknown {
  const token = findToken(app, ctx, 'edit');
  token.isAccessTokenRevoked = true;
  token.updatedAt = app.iso();
  app.changed();
  return { message: 'Successfully revoked access token' };
}

/** Token-auth token management plus renew/revoke. */
export function tokenRoutes(app: DevApp): RouteDef[] {
  const tokens = '/api/v1/auth/token-auth/identities/:identityId/tokens';
  const one = '/api/v1/auth/token-auth/tokens/:tokenId';
  return [
    { method: 'POST', path: tokens, bucket: 'write', handler: (ctx) => createToken(app, ctx) },
    { method: 'GET', path: tokens, bucket: 'read', handler: (ctx) => listTokens(app, ctx) },
    {
      method: 'GET',
      path: one,
      bucket: 'read',
      handler: (ctx) => ({ token: tokenView(findToken(app, ctx, 'read')) }),
    },
    { method: 'PATCH', path: one, bucket: 'write', handler: (ctx) => renameToken(app, ctx) },
    { method: 'POST', path: `${one}/revoke`, bucket: 'write', handler: (ctx) => revokeToken(app, ctx) },
    {
      method: 'POST',
      path: '/api/v1/auth/token/renew',
      bucket: 'write',
      auth: false,
      write: false,
      handler: (ctx) => renewAccessToken(app, tokenBody.parse(ctx.body ?? {}).accessToken),
    },
    {
      method: 'POST',
      path: '/api/v1/auth/token/revoke',
      bucket: 'write',
      auth: false,
      write: false,
      handler: (ctx) => {
        revokeAccessToken(app, tokenBody.parse(ctx.body ?? {}).accessToken);
        return { message: 'Successfully revoked access token' };
      },
    },
  ];
}
