/**
 * Raw secret routes, v3 and the equivalent v4 (facts B6): list a folder, get by name or id, and create, update and
 * delete one secret. Values the caller may not read (no `readValue`) come back masked with
 * `secretValueHidden: true`; writes are checked per secret (environment, path, name, tags) and
 * publish `secret:*` project events.
 */
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import { notFound } from '../domain/errors.ts';
import { normalizeSecretPath, type Scope, type SecretView } from '../domain/secret-model.ts';
import { importsOf } from '../domain/secret-imports.ts';
import { expandFolder } from '../domain/secret-references.ts';
import { SecretNameSchema } from '../domain/validation.ts';
import type { RequestContext, RouteDef } from '../http/types.ts';
import { projectRules } from '../domain/permissions.ts';
import { actorOf } from './common.ts';
import {
  authorizer,
  canDescribe,
  commit,
  requireDescribe,
  resolveScope,
  withVisibility,
} from './secret-scope.ts';
import { resolveListScope } from './secret-list-scope.ts';
import { metadataSchema, projectRef, valueSchema } from './secret-schemas.ts';

const flag = (fallback: boolean) => z.stringbool().default(fallback);

const listQuery = projectRef.extend({
  environment: z.string().trim().min(1),
  secretPath: z.string().trim().default('/'),
  viewSecretValue: flag(true),
  expandSecretReferences: flag(false),
  recursive: flag(false),
  include_imports: flag(false),
});

const getQuery = listQuery.extend({
  version: z.coerce.number().int().min(1).optional(),
  type: z.enum(['shared', 'personal']).default('shared'),
});

const typeSchema = z
  .enum(['shared', 'personal'])
  .default('shared')
  .refine((t) => t === 'shared', 'Personal secrets are not supported');

const createBody = projectRef.extend({
  environment: z.string().trim().min(1),
  secretPath: z.string().trim().default('/'),
  secretValue: valueSchema,
  secretComment: z.string().default(''),
  secretMetadata: metadataSchema.optional(),
  tagIds: z.array(z.string()).optional(),
  skipMultilineEncoding: z.boolean().nullish(),
  type: typeSchema,
  secretReminderRepeatDays: z.number().int().nullish(),
  secretReminderNote: z.string().max(1024).nullish(),
});

const updateBody = projectRef.extend({
  environment: z.string().trim().min(1),
  secretPath: z.string().trim().default('/'),
  secretValue: valueSchema.optional(),
  secretComment: z.string().optional(),
  secretMetadata: metadataSchema.optional(),
  tagIds: z.array(z.string()).optional(),
  skipMultilineEncoding: z.boolean().optional(),
  type: typeSchema,
  secretReminderRepeatDays: z.number().int().nullish(),
  secretReminderNote: z.string().max(1024).nullish(),
  newSecretName: SecretNameSchema.optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  secretReminderRecipients: z.array(z.string()).optional(),
});

const deleteBody = projectRef.extend({
  environment: z.string().trim().min(1),
  secretPath: z.string().trim().default('/'),
  type: typeSchema,
});

function refOf(input: z.infer<typeof projectRef>, environment: string) {
  return {
    id: input.workspaceId ?? input.projectId,
    slug: input.workspaceSlug ?? input.projectSlug,
    environment,
  };
}

function listSecrets(app: DevApp, ctx: RequestContext): unknown {
  const q = listQuery.parse(ctx.query);
  const target = { ...refOf(q, q.environment), secretPath: q.secretPath, recursive: q.recursive };
  const { scope, rules } = resolveListScope(app, ctx, target);
  const all = app.secrets.listSecrets(scope, { path: q.secretPath, recursive: q.recursive });
  // As the service: with a describe rule somewhere in the project (checked by resolveListScope), the
  // list answers 200 with what the rules let the caller see — possibly nothing (service-facts).
  const visible = all.filter((s) => canDescribe(rules, s));
  const shown = q.expandSecretReferences ? expandedViews(app, scope, visible) : visible;
  const secrets = shown.map((s) => withVisibility(rules, s, q.viewSecretValue));
  const folders = [...new Set([normalizeSecretPath(q.secretPath), ...all.map((s) => s.secretPath)])];
  const imports = q.include_imports ? importedSecrets(app, { scope, rules, folders }, q) : [];
  return { secrets, imports };
}

/**
 * The secrets the listed folders import, one entry per import in position order (a later one
 * wins for the client): those the caller may see (values as for the folder's own secrets),
 * references expanded in the imported folder when asked. An import of a folder gone since lists
 * nothing.
 */
function importedSecrets(
  app: DevApp,
  at: { scope: Scope; rules: ReturnType<typeof resolveScope>['rules']; folders: readonly string[] },
  q: { viewSecretValue: boolean; expandSecretReferences: boolean },
): unknown[] {
  const { scope, rules } = at;
  const records = at.folders.flatMap((path) => importsOf(app).list(scope.projectId, scope.environment, path));
  const readable = (source: Scope, path: string): SecretView[] => {
    try {
      return app.secrets.listSecrets(source, { path }).filter((s) => canDescribe(rules, s));
    } catch {
      return [];
    }
  };
  return records.map((record) => {
    const source = { ...scope, environment: record.importEnvironment };
    const views = readable(source, record.importPath);
    const shown = q.expandSecretReferences ? expandedViews(app, source, views) : views;
    return {
      secretPath: record.importPath,
      environment: record.importEnvironment,
      secrets: shown.map((s) => withVisibility(rules, s, q.viewSecretValue)),
    };
  });
}

/** `views` with their references expanded, folder by folder (`secret-references.ts`). */
function expandedViews(app: DevApp, scope: Scope, views: readonly SecretView[]): SecretView[] {
  const values = (environment: string, path: string): Map<string, string> | undefined => {
    try {
      const list = app.secrets.listSecrets({ ...scope, environment }, { path });
      return new Map(list.map((s) => [s.secretKey, s.secretValue]));
    } catch {
      return undefined;
    }
  };
  const byFolder = new Map<string, Map<string, string>>();
  return views.map((view) => {
    let folder = byFolder.get(view.secretPath);
    if (!folder) {
      const from = { environment: scope.environment, path: view.secretPath };
      folder = expandFolder(values(from.environment, from.path) ?? new Map(), from, values);
      byFolder.set(view.secretPath, folder);
    }
    return { ...view, secretValue: folder.get(view.secretKey) ?? view.secretValue };
  });
}

function getSecret(app: DevApp, ctx: RequestContext): unknown {
  const q = getQuery.parse(ctx.query);
  const { scope, rules } = resolveScope(app, ctx, refOf(q, q.environment));
  const view = app.secrets.getSecret(scope, {
    secretKey: ctx.params.secretName ?? '',
    path: q.secretPath,
    version: q.version,
  });
  requireDescribe(rules, view);
  return { secret: withVisibility(rules, view, q.viewSecretValue) };
}

function getSecretById(app: DevApp, ctx: RequestContext): unknown {
  const id = ctx.params.secretId ?? '';
  const location = app.secrets.locateSecret(id);
  const project = location ? app.state.projects[location.projectId] : undefined;
  if (!location || !project || project.orgId !== actorOf(ctx).orgId)
    throw notFound(`Secret with ID '${id}' not found`);
  const rules = projectRules(app, actorOf(ctx), project.id);
  const view = app.secrets.getSecretById(id);
  requireDescribe(rules, view);
  return { secret: withVisibility(rules, view) };
}

function createSecret(app: DevApp, ctx: RequestContext): unknown {
  const body = createBody.parse(ctx.body ?? {});
  const secretKey = SecretNameSchema.parse(ctx.params.secretName);
  const { scope, rules } = resolveScope(app, ctx, refOf(body, body.environment));
  const mutation = app.secrets.createSecret(
    scope,
    { ...body, secretKey, path: body.secretPath },
    authorizer(rules),
  );
  return { secret: withVisibility(rules, commit(app, scope.projectId, mutation)) };
}

function updateSecret(app: DevApp, ctx: RequestContext): unknown {
  const body = updateBody.parse(ctx.body ?? {});
  const { scope, rules } = resolveScope(app, ctx, refOf(body, body.environment));
  const input = { ...body, secretKey: ctx.params.secretName ?? '', path: body.secretPath };
  const mutation = app.secrets.updateSecret(scope, input, authorizer(rules));
  return { secret: withVisibility(rules, commit(app, scope.projectId, mutation)) };
}

function deleteSecret(app: DevApp, ctx: RequestContext): unknown {
  const body = deleteBody.parse(ctx.body ?? {});
  const { scope, rules } = resolveScope(app, ctx, refOf(body, body.environment));
  const mutation = app.secrets.deleteSecret(
    scope,
    { secretKey: ctx.params.secretName ?? '', path: body.secretPath },
    authorizer(rules),
  );
  return { secret: withVisibility(rules, commit(app, scope.projectId, mutation)) };
}

/** Single-secret and list routes of `/api/v3/secrets/raw` and their `/api/v4/secrets` twins. */
export function secretRoutes(app: DevApp): RouteDef[] {
  return ['/api/v3/secrets/raw', '/api/v4/secrets'].flatMap((base): RouteDef[] => [
    { method: 'GET', path: base, bucket: 'secrets', handler: (ctx) => listSecrets(app, ctx) },
    {
      method: 'GET',
      path: `${base}/id/:secretId`,
      bucket: 'secrets',
      handler: (ctx) => getSecretById(app, ctx),
    },
    { method: 'GET', path: `${base}/:secretName`, bucket: 'secrets', handler: (ctx) => getSecret(app, ctx) },
    {
      method: 'POST',
      path: `${base}/:secretName`,
      bucket: 'secrets',
      handler: (ctx) => createSecret(app, ctx),
    },
    {
      method: 'PATCH',
      path: `${base}/:secretName`,
      bucket: 'secrets',
      handler: (ctx) => updateSecret(app, ctx),
    },
    {
      method: 'DELETE',
      path: `${base}/:secretName`,
      bucket: 'secrets',
      handler: (ctx) => deleteSecret(app, ctx),
    },
  ]);
}
