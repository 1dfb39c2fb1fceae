/**
 * Integration-auth and integration routes (facts A14, A15, B7). Integration auths store the
 * credentials they are given but never return them; `POST …/access-token` always creates a new
 * record, `PATCH …/{id}` updates one in place. Native integrations can no longer be
 * created through the API (403, as the service now points to Secret Syncs); existing ones (seeded
 * through the admin route in tests) can be listed, read, updated and deleted.
 */
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import { forbidden, notFound } from '../domain/errors.ts';
import type { RequestContext, RouteDef } from '../http/types.ts';
import { requireProjectPermission } from '../domain/permissions.ts';
import type { IntegrationAuthRecord, IntegrationRecord } from '../state/types.ts';
import { actorOf, findEnvironmentBySlug, findProject } from './common.ts';

const accessTokenSchema = z.object({
  workspaceId: z.string().trim().min(1),
  integration: z.string().trim().min(1),
  accessId: z.string().trim().optional(),
  // Required by the shared spec (service-api.md #14), though the service's schema marks it optional.
  accessToken: z.string().trim(),
  awsAssumeIamRoleArn: z.url().trim().optional(),
  url: z.url().trim().optional(),
  namespace: z.string().trim().optional(),
  refreshToken: z.string().trim().optional(),
});

/** `PATCH /api/v1/integration-auth/{id}`: every field optional (integration-auth-router.ts). */
const authUpdateSchema = accessTokenSchema.omit({ workspaceId: true }).partial();

const updateSchema = z.object({
  app: z.string().trim().optional(),
  appId: z.string().trim().optional(),
  isActive: z.boolean().optional(),
  secretPath: z.string().trim().default('/'),
  targetEnvironment: z.string().trim().optional(),
  owner: z.string().trim().optional(),
  environment: z.string().trim().optional(),
  path: z.string().trim().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  region: z.string().trim().optional(),
});

const MOVED_MESSAGE =
  'Native integrations can no longer be created: they are being replaced by Secret Syncs. Please create a Secret Sync instead.';

function authShape(a: IntegrationAuthRecord): Record<string, unknown> {
  const { credentials: _secret, ...visible } = a;
  return visible;
}

function integrationShape(app: DevApp, i: IntegrationRecord): Record<string, unknown> {
  const env = app.state.environments[i.envId];
  return {
    id: i.id,
    isActive: i.isActive,
    integration: i.integration,
    integrationAuthId: i.integrationAuthId,
    envId: i.envId,
    secretPath: i.secretPath,
    ...i.fields,
    createdAt: i.createdAt,
    updatedAt: i.updatedAt,
    environment: env ? { id: env.id, name: env.name, slug: env.slug } : null,
  };
}

function storeAccessToken(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const body = accessTokenSchema.parse(ctx.body ?? {});
  const project = findProject(app, actor, body.workspaceId);
  requireProjectPermission(app, actor, project.id, { action: 'create', subject: 'integrations' });
  const now = app.iso();
  const record: IntegrationAuthRecord = {
    id: app.newId(),
    projectId: project.id,
    integration: body.integration,
    teamId: null,
    url: body.url ?? null,
    namespace: body.namespace ?? null,
    accountId: null,
    metadata: {},
    credentials: {
      accessId: body.accessId,
      accessToken: body.accessToken,
      refreshToken: body.refreshToken,
      awsAssumeIamRoleArn: body.awsAssumeIamRoleArn,
    },
    createdAt: now,
    updatedAt: now,
  };
  app.state.integrationAuths[record.id] = record;
  app.changed();
  return { integrationAuth: authShape(record) };
}

/**
 * Updates one auth record in place (the service's `updateIntegrationAuth`): fields left out stay
 * as they are; new access credentials drop a stored role ARN and a role ARN drops stored access
 * credentials.
 */
function updateAuth(app: DevApp, ctx: RequestContext): unknown {
  const body = authUpdateSchema.parse(ctx.body ?? {});
  const auth = findAuth(app, ctx, 'edit');
  if (body.integration !== undefined) auth.integration = body.integration;
  if (body.url !== undefined) auth.url = body.url;
  if (body.namespace !== undefined) auth.namespace = body.namespace;
  const stored = { ...auth.credentials };
  if (body.accessToken !== undefined || body.accessId !== undefined) delete stored.awsAssumeIamRoleArn;
  if (body.awsAssumeIamRoleArn !== undefined) {
    delete stored.accessToken;
    delete stored.accessId;
  }
  for (const key of ['accessId', 'accessToken', 'refreshToken', 'awsAssumeIamRoleArn'] as const) {
    const value = body[key];
    if (value !== undefined) stored[key] = value;
  }
  auth.credentials = stored;
  auth.updatedAt = app.iso();
  app.changed();
  return { integrationAuth: authShape(auth) };
}

function findAuth(app: DevApp, ctx: RequestContext, action: string): IntegrationAuthRecord {
  const actor = actorOf(ctx);
  const id = ctx.params.integrationAuthId ?? '';
  const auth = app.state.integrationAuths[id];
  if (!auth || app.state.projects[auth.projectId]?.orgId !== actor.orgId)
    throw notFound(`Integration auth with ID '${id}' not found`);
  requireProjectPermission(app, actor, auth.projectId, { action, subject: 'integrations' });
  return auth;
}

function deleteAuth(app: DevApp, auth: IntegrationAuthRecord): void {
  delete app.state.integrationAuths[auth.id];
  for (const i of Object.values(app.state.integrations))
    if (i.integrationAuthId === auth.id) delete app.state.integrations[i.id];
  app.changed();
}

function deleteAuthsOfType(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const q = z.object({ integration: z.string().min(1), projectId: z.string().min(1) }).parse(ctx.query);
  const project = findProject(app, actor, q.projectId);
  requireProjectPermission(app, actor, project.id, { action: 'delete', subject: 'integrations' });
  const matching = Object.values(app.state.integrationAuths).filter(
    (a) => a.projectId === project.id && a.integration === q.integration,
  );
  for (const auth of matching) deleteAuth(app, auth);
  return { integrationAuth: matching.map(authShape) };
}

function findIntegration(app: DevApp, ctx: RequestContext, action: string): IntegrationRecord {
  const actor = actorOf(ctx);
  const id = ctx.params.integrationId ?? '';
  const integration = app.state.integrations[id];
  if (!integration || app.state.projects[integration.projectId]?.orgId !== actor.orgId)
    throw notFound(`Integration with ID '${id}' not found`);
  requireProjectPermission(app, actor, integration.projectId, { action, subject: 'integrations' });
  return integration;
}

function updateIntegration(app: DevApp, ctx: RequestContext): unknown {
  const body = updateSchema.parse(ctx.body ?? {});
  const integration = findIntegration(app, ctx, 'edit');
  const { isActive, secretPath, environment, ...fields } = body;
  if (isActive !== undefined) integration.isActive = isActive;
  integration.secretPath = secretPath;
  if (environment !== undefined)
    integration.envId = findEnvironmentBySlug(app, integration.projectId, environment).id;
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) integration.fields[k] = v;
  integration.updatedAt = app.iso();
  app.changed();
  return { integration: integrationShape(app, integration) };
}

function listForProject(app: DevApp, ctx: RequestContext, kind: 'integrations' | 'authorizations'): unknown {
  const actor = actorOf(ctx);
  const project = findProject(app, actor, ctx.params.projectId ?? '');
  requireProjectPermission(app, actor, project.id, { action: 'read', subject: 'integrations' });
  if (kind === 'authorizations') {
    return {
      authorizations: Object.values(app.state.integrationAuths)
        .filter((a) => a.projectId === project.id)
        .map(authShape),
    };
  }
  return {
    integrations: Object.values(app.state.integrations)
      .filter((i) => i.projectId === project.id)
      .map((i) => integrationShape(app, i)),
  };
}

/** Creates an integration directly (admin route only): the public create endpoint is gone. */
export function seedIntegration(
  app: DevApp,
  input: {
    projectId: string;
    integrationAuthId: string;
    environment: string;
    secretPath: string;
    app?: string | undefined;
    appId?: string | undefined;
    isActive: boolean;
  },
): unknown {
  const auth = app.state.integrationAuths[input.integrationAuthId];
  if (!auth || auth.projectId !== input.projectId)
    throw notFound(`Integration auth with ID '${input.integrationAuthId}' not found`);
  const env = findEnvironmentBySlug(app, input.projectId, input.environment);
  const now = app.iso();
  const record: IntegrationRecord = {
    id: app.newId(),
    projectId: input.projectId,
    integrationAuthId: auth.id,
    envId: env.id,
    integration: auth.integration,
    isActive: input.isActive,
    secretPath: input.secretPath,
    fields: {
      app: input.app ?? null,
      appId: input.appId ?? null,
      isSynced: null,
      syncMessage: null,
      lastUsed: null,
    },
    createdAt: now,
    updatedAt: now,
  };
  app.state.integrations[record.id] = record;
  app.changed();
  return integrationShape(app, record);
}

/** Integration-auth and integration routes. */
export function integrationRoutes(app: DevApp): RouteDef[] {
  const auth = '/api/v1/integration-auth';
  const one = '/api/v1/integration/:integrationId';
  return [
    {
      method: 'POST',
      path: `${auth}/access-token`,
      bucket: 'write',
      handler: (ctx) => storeAccessToken(app, ctx),
    },
    {
      method: 'GET',
      path: `${auth}/:integrationAuthId`,
      bucket: 'read',
      handler: (ctx) => ({ integrationAuth: authShape(findAuth(app, ctx, 'read')) }),
    },
    {
      method: 'PATCH',
      path: `${auth}/:integrationAuthId`,
      bucket: 'write',
      handler: (ctx) => updateAuth(app, ctx),
    },
    {
      method: 'DELETE',
      path: `${auth}/:integrationAuthId`,
      bucket: 'write',
      handler: (ctx) => {
        const record = findAuth(app, ctx, 'delete');
        deleteAuth(app, record);
        return { integrationAuth: authShape(record) };
      },
    },
    { method: 'DELETE', path: auth, bucket: 'write', handler: (ctx) => deleteAuthsOfType(app, ctx) },
    {
      method: 'GET',
      path: '/api/v1/workspace/:projectId/integrations',
      bucket: 'read',
      handler: (ctx) => listForProject(app, ctx, 'integrations'),
    },
    {
      method: 'GET',
      path: '/api/v1/workspace/:projectId/authorizations',
      bucket: 'read',
      handler: (ctx) => listForProject(app, ctx, 'authorizations'),
    },
    {
      method: 'POST',
      path: '/api/v1/integration',
      bucket: 'write',
      handler: () => {
        throw forbidden(MOVED_MESSAGE);
      },
    },
    {
      method: 'GET',
      path: one,
      bucket: 'read',
      handler: (ctx) => ({ integration: integrationShape(app, findIntegration(app, ctx, 'read')) }),
    },
    { method: 'PATCH', path: one, bucket: 'write', handler: (ctx) => updateIntegration(app, ctx) },
    {
      method: 'DELETE',
      path: one,
      bucket: 'write',
      handler: (ctx) => {
        const integration = findIntegration(app, ctx, 'delete');
        delete app.state.integrations[integration.id];
        app.changed();
        return { integration: integrationShape(app, integration) };
      },
    },
  ];
}
