/**
 * Attach (POST), read (GET), update (PATCH) and revoke (DELETE) of every auth method at
 * `/api/v1/auth/<method>/identities/{identityId}`, with the service's answers: attaching twice
 * 400 "Failed to add … to already configured identity"; GET when not attached 404; PATCH or
 * DELETE when not attached 400; revoking deletes the tokens issued through the method.
 */
import type { DevApp } from '../../app.ts';
import { deleteTokensOfMethod } from '../access-tokens.ts';
import { badRequest, notFound } from '../../domain/errors.ts';
import { assertUpdatedTtlWithinMax, parseTrustedIps } from '../../domain/validation.ts';
import type { RequestContext, RouteDef } from '../../http/types.ts';
import { requireOrgPermission } from '../../domain/permissions.ts';
import type { AuthMethodRecord, IdentityRecord } from '../../state/types.ts';
import { actorOf, findIdentity } from '../../routes/common.ts';
import { COMMON_KEYS } from './common-fields.ts';
import { AUTH_METHOD_SPECS, type AuthMethodSpec } from './method-specs.ts';

const WITHOUT_PERIOD: ReadonlySet<string> = new Set(['oidc-auth', 'tls-cert-auth']);

/** The attached method `method` of `identityId`, if any. */
export function findAuthMethod(
  app: DevApp,
  identityId: string,
  method: string,
): AuthMethodRecord | undefined {
  return Object.values(app.state.authMethods).find((m) => m.identityId === identityId && m.method === method);
}

/** The message for a method that is not attached: "The identity does not have token auth". */
export function notAttachedMessage(spec: { label: string }): string {
  return `The identity does not have ${spec.label.toLowerCase()}`;
}

/** The response body of one auth method. */
export function authMethodView(
  spec: AuthMethodSpec,
  record: AuthMethodRecord,
  phase: 'read' | 'delete',
): unknown {
  const config: Record<string, unknown> = { ...record.config };
  for (const key of [...(spec.hidden ?? []), ...(phase === 'delete' ? (spec.hiddenOnDelete ?? []) : [])]) {
    delete config[key];
  }
  return {
    id: record.id,
    identityId: record.identityId,
    accessTokenTTL: record.accessTokenTTL,
    accessTokenMaxTTL: record.accessTokenMaxTTL,
    accessTokenNumUsesLimit: record.accessTokenNumUsesLimit,
    accessTokenTrustedIps: record.accessTokenTrustedIps,
    ...(WITHOUT_PERIOD.has(record.method) ? {} : { accessTokenPeriod: record.accessTokenPeriod }),
    ...config,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

function splitConfig(parsed: Record<string, unknown>): Record<string, unknown> {
  const config = { ...parsed };
  for (const key of COMMON_KEYS) delete config[key];
  return config;
}

function target(app: DevApp, ctx: RequestContext, action: 'read' | 'edit'): IdentityRecord {
  const actor = actorOf(ctx);
  const identity = findIdentity(app, actor, ctx.params.identityId ?? '');
  requireOrgPermission(app, actor, action, 'identity');
  return identity;
}

function attach(app: DevApp, spec: AuthMethodSpec, ctx: RequestContext): unknown {
  const identity = target(app, ctx, 'edit');
  const body = spec.attach.parse(ctx.body ?? {});
  if (findAuthMethod(app, identity.id, spec.method)) {
    throw badRequest(`Failed to add ${spec.label} to already configured identity`);
  }
  const trustedIps = parseTrustedIps(body.accessTokenTrustedIps as { ipAddress: string }[]);
  const config = splitConfig(body);
  spec.prepare?.(config, 'attach', () => app.newId());
  const now = app.iso();
  const record: AuthMethodRecord = {
    id: app.newId(),
    identityId: identity.id,
    method: spec.method,
    accessTokenTTL: body.accessTokenTTL as number,
    accessTokenMaxTTL: body.accessTokenMaxTTL as number,
    accessTokenNumUsesLimit: body.accessTokenNumUsesLimit as number,
    accessTokenTrustedIps: trustedIps,
    accessTokenPeriod: typeof body.accessTokenPeriod === 'number' ? body.accessTokenPeriod : 0,
    config,
    createdAt: now,
    updatedAt: now,
  };
  app.state.authMethods[record.id] = record;
  app.changed();
  return { [spec.envelope]: authMethodView(spec, record, 'read') };
}

function read(app: DevApp, spec: AuthMethodSpec, ctx: RequestContext): unknown {
  const identity = target(app, ctx, 'read');
  const record = findAuthMethod(app, identity.id, spec.method);
  if (!record) throw notFound(notAttachedMessage(spec));
  return { [spec.envelope]: authMethodView(spec, record, 'read') };
}

function applyCommon(record: AuthMethodRecord, body: Record<string, unknown>): void {
  if (Array.isArray(body.accessTokenTrustedIps)) {
    record.accessTokenTrustedIps = parseTrustedIps(body.accessTokenTrustedIps as { ipAddress: string }[]);
  }
  if (typeof body.accessTokenTTL === 'number') record.accessTokenTTL = body.accessTokenTTL;
  if (typeof body.accessTokenMaxTTL === 'number') record.accessTokenMaxTTL = body.accessTokenMaxTTL;
  if (typeof body.accessTokenNumUsesLimit === 'number')
    record.accessTokenNumUsesLimit = body.accessTokenNumUsesLimit;
  if (typeof body.accessTokenPeriod === 'number') record.accessTokenPeriod = body.accessTokenPeriod;
}

function update(app: DevApp, spec: AuthMethodSpec, ctx: RequestContext): unknown {
  const identity = target(app, ctx, 'edit');
  const body = spec.update.parse(ctx.body ?? {});
  const record = findAuthMethod(app, identity.id, spec.method);
  if (!record) throw badRequest(notAttachedMessage(spec));
  assertUpdatedTtlWithinMax(
    {
      accessTokenTTL: body.accessTokenTTL as number | undefined,
      accessTokenMaxTTL: body.accessTokenMaxTTL as number | undefined,
    },
    record,
  );
  const config = splitConfig(body);
  spec.prepare?.(config, 'update', () => app.newId());
  applyCommon(record, body);
  for (const [key, value] of Object.entries(config)) if (value !== undefined) record.config[key] = value;
  record.updatedAt = app.iso();
  app.changed();
  return { [spec.envelope]: authMethodView(spec, record, 'read') };
}

function revoke(app: DevApp, spec: AuthMethodSpec, ctx: RequestContext): unknown {
  const identity = target(app, ctx, 'edit');
  const record = findAuthMethod(app, identity.id, spec.method);
  if (!record) throw badRequest(notAttachedMessage(spec));
  delete app.state.authMethods[record.id];
  deleteTokensOfMethod(app, identity.id, spec.method);
  if (spec.method === 'universal-auth') {
    for (const cs of Object.values(app.state.clientSecrets)) {
      if (cs.identityUAId === record.id) delete app.state.clientSecrets[cs.id];
    }
  }
  app.changed();
  return { [spec.envelope]: authMethodView(spec, record, 'delete') };
}

/** The four routes of every auth method. */
export function authMethodRoutes(app: DevApp): RouteDef[] {
  return AUTH_METHOD_SPECS.flatMap((spec): RouteDef[] => {
    const path = `/api/v1/auth/${spec.method}/identities/:identityId`;
    return [
      { method: 'POST', path, bucket: 'write', handler: (ctx) => attach(app, spec, ctx) },
      { method: 'GET', path, bucket: 'read', handler: (ctx) => read(app, spec, ctx) },
      { method: 'PATCH', path, bucket: 'write', handler: (ctx) => update(app, spec, ctx) },
      { method: 'DELETE', path, bucket: 'write', handler: (ctx) => revoke(app, spec, ctx) },
    ];
  });
}
