/**
 * Batch raw secret routes, v3 (facts A4, B6): create, update (modes `failOnNotFound`,
 * `upsert`, `ignore`; per-item paths; `newSecretName` renames) and delete, all-or-nothing.
 * Each publishes its `secret:*` project events once it has written.
 */
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import { SecretNameSchema } from '../domain/validation.ts';
import type { RequestContext, RouteDef } from '../http/types.ts';
import { authorizer, commit, resolveScope, withVisibility } from './secret-scope.ts';
import { metadataSchema, projectRef, valueSchema } from './secret-schemas.ts';

const scopeFields = projectRef.extend({
  environment: z.string().trim().min(1),
  secretPath: z.string().trim().default('/'),
});

const createItem = z.object({
  secretKey: SecretNameSchema,
  secretValue: valueSchema,
  secretComment: z.string().optional(),
  skipMultilineEncoding: z.boolean().nullish(),
  secretMetadata: metadataSchema.optional(),
  tagIds: z.array(z.string()).optional(),
  secretReminderNote: z.string().max(1024).nullish(),
  secretReminderRepeatDays: z.number().int().nullish(),
});

const updateItem = z.object({
  secretKey: SecretNameSchema,
  secretValue: valueSchema.optional(),
  secretPath: z.string().trim().optional(),
  secretComment: z.string().optional(),
  skipMultilineEncoding: z.boolean().optional(),
  newSecretName: SecretNameSchema.optional(),
  tagIds: z.array(z.string()).optional(),
  secretReminderNote: z.string().max(1024).nullish(),
  secretReminderRepeatDays: z.number().int().nullish(),
  secretMetadata: metadataSchema.optional(),
});

const createBody = scopeFields.extend({ secrets: z.array(createItem).min(1) });
const updateBody = scopeFields.extend({
  mode: z.enum(['failOnNotFound', 'upsert', 'ignore']).default('failOnNotFound'),
  secrets: z.array(updateItem).min(1),
});
const deleteBody = scopeFields.extend({
  secrets: z
    .array(z.object({ secretKey: SecretNameSchema, type: z.enum(['shared', 'personal']).default('shared') }))
    .min(1),
});

function scopeOf(app: DevApp, ctx: RequestContext, body: z.infer<typeof scopeFields>) {
  return resolveScope(app, ctx, {
    id: body.workspaceId ?? body.projectId,
    slug: body.projectSlug ?? body.workspaceSlug,
    environment: body.environment,
  });
}

function batchCreate(app: DevApp, ctx: RequestContext): unknown {
  const body = createBody.parse(ctx.body ?? {});
  const { scope, rules } = scopeOf(app, ctx, body);
  const mutation = app.secrets.createSecrets(
    scope,
    { secretPath: body.secretPath, secrets: body.secrets },
    authorizer(rules),
  );
  return { secrets: commit(app, scope.projectId, mutation).map((s) => withVisibility(rules, s)) };
}

function batchUpdate(app: DevApp, ctx: RequestContext): unknown {
  const body = updateBody.parse(ctx.body ?? {});
  const { scope, rules } = scopeOf(app, ctx, body);
  const input = { secretPath: body.secretPath, mode: body.mode, secrets: body.secrets };
  const mutation = app.secrets.updateSecrets(scope, input, authorizer(rules));
  return { secrets: commit(app, scope.projectId, mutation).map((s) => withVisibility(rules, s)) };
}

function batchDelete(app: DevApp, ctx: RequestContext): unknown {
  const body = deleteBody.parse(ctx.body ?? {});
  const { scope, rules } = scopeOf(app, ctx, body);
  const mutation = app.secrets.deleteSecrets(
    scope,
    { secretPath: body.secretPath, secrets: body.secrets },
    authorizer(rules),
  );
  return { secrets: commit(app, scope.projectId, mutation).map((s) => withVisibility(rules, s)) };
}

/** `POST`, `PATCH` and `DELETE /api/v3/secrets/batch/raw` and `/api/v4/secrets/batch`. */
export function secretBatchRoutes(app: DevApp): RouteDef[] {
  return ['/api/v3/secrets/batch/raw', '/api/v4/secrets/batch'].flatMap((path): RouteDef[] => [
    { method: 'POST', path, bucket: 'secrets', handler: (ctx) => batchCreate(app, ctx) },
    { method: 'PATCH', path, bucket: 'secrets', handler: (ctx) => batchUpdate(app, ctx) },
    { method: 'DELETE', path, bucket: 'secrets', handler: (ctx) => batchDelete(app, ctx) },
  ]);
}
