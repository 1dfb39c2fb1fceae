/**
 * Turns a request's `Authorization` header into the acting identity, with the service's
 * answers: no token 401 "Token missing"; an `x-api-key` header 400; a bad JWT 403 TokenError;
 * a revoked or unknown token 401.
 */
import type { DevApp } from '../app.ts';
import { badRequest, unauthorized } from '../domain/errors.ts';
import type { Actor, RequestContext } from '../http/types.ts';
import { useAccessToken } from './access-tokens.ts';

/** Validates the bearer token of `ctx` and returns the actor. */
export function authenticate(app: DevApp, ctx: RequestContext): Actor {
  const header = ctx.headers.authorization;
  // Like the service, the token is everything after the first 7 characters ("Bearer ").
  const token = typeof header === 'string' ? header.slice(7).trim() : '';
  if (!token) {
    if (ctx.headers['x-api-key']) {
      throw badRequest(
        'API key authentication is not supported anymore, please use machine identity authentication instead',
      );
    }
    throw unauthorized('Token missing');
  }
  const record = useAccessToken(app, token, ctx.ip);
  const identity = app.state.identities[record.identityId];
  if (!identity) throw unauthorized('No identity access token found');
  return {
    type: 'identity',
    identityId: identity.id,
    orgId: identity.orgId,
    tokenId: record.id,
    authMethod: record.authMethod,
  };
}
