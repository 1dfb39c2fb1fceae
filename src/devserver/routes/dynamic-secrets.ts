/**
 * Dynamic-secret routes under `/api/v1/dynamic-secrets` (docs/service-facts.md, "Dynamic secrets"):
 * create, update and delete by name (body names project slug, environment and path), get by name
 * and list (query), and the leases of one. Permissions on `dynamic-secrets`: create-root-credential,
 * edit-root-credential, delete-root-credential, read-root-credential (get also needs
 * edit-root-credential, as it returns the inputs; list filters), lease (the lease list).
 * Deleting a dynamic secret with leases marks it `deleting`; the lease reaper revokes its leases and
 * then deletes it. `isForced` deletes at once without revoking anything.
 */
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import { badRequest } from '../domain/errors.ts';
import { allows } from '../domain/permissions.ts';
import { slugSchema } from '../domain/validation.ts';
import { leasesOf } from '../dynamic-secrets/leases.ts';
import {
  inputsSchemaOf,
  metadataSchema,
  nullableTtlSchema,
  optionalTtlSchema,
  pathSchema,
  providerSchema,
  ttlSchema,
} from '../dynamic-secrets/schemas.ts';
import { isValidTemplate } from '../dynamic-secrets/handlebars.ts';
import { USERNAME_TEMPLATE_VARIABLES } from '../dynamic-secrets/templates.ts';
import type { RequestContext, RouteDef } from '../http/types.ts';
import type { DynamicSecretRecord } from '../state/types.ts';
import { checkProviderInputs } from './dynamic-secret-inputs.ts';
import {
  dynamicSecretShape,
  dynamicSecretsIn,
  findDynamicSecret,
  folderIdOf,
  leaseShape,
  requireDynamicSecretPermission,
  resolveScope,
} from './dynamic-secret-scope.ts';

const USERNAME_CHARACTERS = /^[A-Za-z0-9_\-{}[\].' |()"]*$/;
const usernameTemplateSchema = z
  .string()
  .trim()
  .max(255)
  .refine((t) => USERNAME_CHARACTERS.test(t) && isValidTemplate(t, USERNAME_TEMPLATE_VARIABLES));

const scopeFields = {
  projectSlug: z.string().min(1),
  path: pathSchema,
  environmentSlug: z.string().min(1),
};
const scopeQuery = z.object(scopeFields);

const createSchema = z.object({
  ...scopeFields,
  provider: providerSchema,
  defaultTTL: ttlSchema,
  maxTTL: nullableTtlSchema,
  name: slugSchema({ min: 1, max: 64, field: 'Name' }),
  metadata: metadataSchema.optional(),
  usernameTemplate: usernameTemplateSchema.optional(),
});

const updateSchema = z.object({
  ...scopeFields,
  data: z.object({
    inputs: z.record(z.string(), z.unknown()).optional(),
    defaultTTL: optionalTtlSchema,
    maxTTL: nullableTtlSchema,
    newName: z.string().optional(),
    metadata: metadataSchema.optional(),
    usernameTemplate: usernameTemplateSchema.nullish(),
  }),
});

const deleteSchema = z.object({ ...scopeFields, isForced: z.boolean().default(false) });

const nameParam = (ctx: RequestContext) => ctx.params.name ?? '';

function exists(app: DevApp, folderId: string, name: string): void {
  if (dynamicSecretsIn(app, folderId).some((d) => d.name === name)) {
    throw badRequest('Provided dynamic secret already exists under the folder');
  }
}

async function createDynamicSecret(app: DevApp, ctx: RequestContext): Promise<unknown> {
  const body = createSchema.parse(ctx.body ?? {});
  const scope = resolveScope(app, ctx, body);
  requireDynamicSecretPermission(scope, 'create-root-credential');
  const folderId = folderIdOf(app, scope);
  exists(app, folderId, body.name);
  await checkProviderInputs(body.provider.type, body.provider.inputs);
  const now = app.iso();
  const ds: DynamicSecretRecord = {
    id: app.newId(),
    name: body.name,
    version: 1,
    type: body.provider.type,
    defaultTTL: body.defaultTTL,
    maxTTL: body.maxTTL ?? null,
    projectId: scope.project.id,
    environment: scope.environment,
    secretPath: scope.path,
    folderId,
    status: null,
    statusDetails: null,
    usernameTemplate: body.usernameTemplate ?? null,
    metadata: body.metadata ?? [],
    inputs: body.provider.inputs,
    createdAt: now,
    updatedAt: now,
  };
  app.state.dynamicSecrets[ds.id] = ds;
  app.changed();
  return { dynamicSecret: dynamicSecretShape(ds, true) };
}

async function updateDynamicSecret(app: DevApp, ctx: RequestContext): Promise<unknown> {
  const body = updateSchema.parse(ctx.body ?? {});
  const name = nameParam(ctx).toLowerCase();
  const scope = resolveScope(app, ctx, body);
  const folderId = folderIdOf(app, scope);
  const ds = findDynamicSecret(app, folderId, name, `Dynamic secret with name '${name}' in folder '${scope.path}' not found`); // prettier-ignore
  requireDynamicSecretPermission(scope, 'edit-root-credential');
  const data = body.data;
  if (data.newName) exists(app, folderId, data.newName);
  const inputs = inputsSchemaOf(ds.type)?.parse({ ...ds.inputs, ...data.inputs }) ?? ds.inputs;
  await checkProviderInputs(ds.type, inputs);
  ds.inputs = inputs;
  if (data.defaultTTL !== undefined) ds.defaultTTL = data.defaultTTL;
  if (data.maxTTL !== undefined) ds.maxTTL = data.maxTTL;
  if (data.usernameTemplate !== undefined) ds.usernameTemplate = data.usernameTemplate;
  if (data.metadata !== undefined) ds.metadata = data.metadata;
  ds.name = data.newName ?? name;
  ds.status = null;
  ds.updatedAt = app.iso();
  app.changed();
  return { dynamicSecret: dynamicSecretShape(ds, true) };
}

function deleteDynamicSecret(app: DevApp, ctx: RequestContext): unknown {
  const body = deleteSchema.parse(ctx.body ?? {});
  const name = nameParam(ctx).toLowerCase();
  const scope = resolveScope(app, ctx, body);
  const folderId = folderIdOf(app, scope);
  const ds = findDynamicSecret(app, folderId, name, `Dynamic secret with name '${name}' in folder '${scope.path}' not found`); // prettier-ignore
  requireDynamicSecretPermission(scope, 'delete-root-credential');
  const leases = leasesOf(app, ds.id);
  if (leases.length > 0 && !body.isForced) {
    ds.status = 'deleting';
    ds.updatedAt = app.iso();
    app.changed();
    void app.leaseReaper.sweep();
    return { dynamicSecret: dynamicSecretShape(ds) };
  }
  for (const lease of leases) delete app.state.dynamicSecretLeases[lease.id];
  delete app.state.dynamicSecrets[ds.id];
  app.changed();
  return { dynamicSecret: dynamicSecretShape(ds) };
}

function getDynamicSecret(app: DevApp, ctx: RequestContext): unknown {
  const query = scopeQuery.parse(ctx.query);
  const name = nameParam(ctx);
  const scope = resolveScope(app, ctx, query);
  const folderId = folderIdOf(app, scope);
  // The service's message lacks the closing quote after the name.
  const ds = findDynamicSecret(app, folderId, name, `Dynamic secret with name '${name} in folder '${scope.path}' not found`); // prettier-ignore
  requireDynamicSecretPermission(scope, 'read-root-credential');
  requireDynamicSecretPermission(scope, 'edit-root-credential');
  return { dynamicSecret: dynamicSecretShape(ds, true) };
}

function listDynamicSecrets(app: DevApp, ctx: RequestContext): unknown {
  const query = scopeQuery.parse(ctx.query);
  const scope = resolveScope(app, ctx, query);
  const folderId = folderIdOf(app, scope);
  const context = { environment: scope.environment, secretPath: scope.path };
  const visible = allows(scope.rules, 'read-root-credential', 'dynamic-secrets', context);
  return { dynamicSecrets: visible ? dynamicSecretsIn(app, folderId).map((d) => dynamicSecretShape(d)) : [] };
}

function listLeases(app: DevApp, ctx: RequestContext): unknown {
  const query = scopeQuery.parse(ctx.query);
  const name = nameParam(ctx);
  const scope = resolveScope(app, ctx, query);
  const folderId = folderIdOf(app, scope, `Folder with path '${scope.path}' in environment with slug '${scope.environment}' not found`); // prettier-ignore
  const ds = findDynamicSecret(app, folderId, name, `Dynamic secret with name '${name}' in folder with path '${scope.path}' not found`); // prettier-ignore
  requireDynamicSecretPermission(scope, 'lease');
  return { leases: leasesOf(app, ds.id).map(leaseShape) };
}

/** The dynamic-secret routes. */
export function dynamicSecretRoutes(app: DevApp): RouteDef[] {
  const base = '/api/v1/dynamic-secrets';
  return [
    { method: 'POST', path: base, bucket: 'write', handler: (ctx) => createDynamicSecret(app, ctx) },
    { method: 'GET', path: base, bucket: 'read', handler: (ctx) => listDynamicSecrets(app, ctx) },
    { method: 'GET', path: `${base}/:name`, bucket: 'read', handler: (ctx) => getDynamicSecret(app, ctx) },
    {
      method: 'PATCH',
      path: `${base}/:name`,
      bucket: 'write',
      handler: (ctx) => updateDynamicSecret(app, ctx),
    },
    {
      method: 'DELETE',
      path: `${base}/:name`,
      bucket: 'write',
      handler: (ctx) => deleteDynamicSecret(app, ctx),
    },
    { method: 'GET', path: `${base}/:name/leases`, bucket: 'read', handler: (ctx) => listLeases(app, ctx) },
  ];
}
