/**
 * `/api/v1/secret-imports` (create, list, delete), as the service's v1 secret-import router:
 * the project by `workspaceId` (or `projectId`), the importing folder by `environment` and `path`
 * (default `/`), the imported one by `import: {environment, path}`; `secret-imports` permissions
 * (`create`, `read`, `delete`) at the importing folder, checked before the folder is looked up;
 * 404 for an unknown environment or folder on either side. Reads with `include_imports=true` return the imported
 * secrets (`secrets.ts`).
 */
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import { badRequest, notFound } from '../domain/errors.ts';
import { importsOf, type SecretImportRecord } from '../domain/secret-imports.ts';
import { normalizeSecretPath } from '../domain/secret-model.ts';
import type { RequestContext, RouteDef } from '../http/types.ts';
import { projectRules } from '../domain/permissions.ts';
import { actorOf } from './common.ts';
import { requirePathPermission } from './secret-scope.ts';

const where = z.object({
  workspaceId: z.string().trim().optional(),
  projectId: z.string().trim().optional(),
  environment: z.string().trim().min(1),
  path: z.string().trim().default('/'),
});
const createBody = where.extend({
  import: z.object({ environment: z.string().trim().min(1), path: z.string().trim().min(1) }),
});

/**
 * The service's order for every import route: the project (unknown id → 404 "Project with <id>
 * not found"), membership (403), the `secret-imports` permission at
 * the importing folder (403), then the folder: an unknown environment or a missing folder → 404
 * "Folder with path '…' in environment with slug '…' not found".
 */
function located(app: DevApp, ctx: RequestContext, input: z.infer<typeof where>, action: string) {
  const actor = actorOf(ctx);
  const id = input.workspaceId ?? input.projectId ?? '';
  const project = app.state.projects[id];
  if (!project || project.orgId !== actor.orgId) throw notFound(`Project with ${id} not found`);
  const rules = projectRules(app, actor, project.id);
  const path = normalizeSecretPath(input.path);
  requirePathPermission(rules, {
    action,
    subject: 'secret-imports',
    environment: input.environment,
    secretPath: path,
  });
  const scope = { projectId: project.id, environment: input.environment };
  if (!app.secrets.hasEnvironment(scope) || !app.secrets.getFolder(scope, path))
    throw notFound(`Folder with path '${path}' in environment with slug '${input.environment}' not found`);
  return { scope, path };
}

function view(app: DevApp, record: SecretImportRecord) {
  const env = Object.values(app.state.environments).find(
    (e) => e.projectId === record.projectId && e.slug === record.importEnvironment,
  );
  return {
    id: record.id,
    importPath: record.importPath,
    importEnv: {
      name: env?.name ?? record.importEnvironment,
      slug: record.importEnvironment,
      id: env?.id ?? '',
    },
    position: record.position,
    isReplication: false,
    createdAt: record.createdAt,
    updatedAt: record.createdAt,
  };
}

function createImport(app: DevApp, ctx: RequestContext): unknown {
  const body = createBody.parse(ctx.body ?? {});
  const { scope, path } = located(app, ctx, body, 'create');
  const source = { ...scope, environment: body.import.environment };
  if (!app.secrets.hasEnvironment(source))
    throw notFound(`Environment with slug '${body.import.environment}' not found`);
  app.secrets.listSecrets(source, { path: body.import.path }); // 404 for a missing folder
  const record = importsOf(app).add(
    {
      projectId: scope.projectId,
      environment: scope.environment,
      path,
      importEnvironment: body.import.environment,
      importPath: body.import.path,
    },
    new Date(app.now()),
  );
  if (!record) throw badRequest('Secret import already exists');
  return { message: 'Successfully created secret import', secretImport: view(app, record) };
}

function listImports(app: DevApp, ctx: RequestContext): unknown {
  const query = where.parse(ctx.query);
  const { scope, path } = located(app, ctx, query, 'read');
  const records = importsOf(app).list(scope.projectId, scope.environment, path);
  return { message: 'Successfully fetched secret imports', secretImports: records.map((r) => view(app, r)) };
}

function deleteImport(app: DevApp, ctx: RequestContext): unknown {
  const body = where.parse(ctx.body ?? {});
  const { scope, path } = located(app, ctx, body, 'delete');
  const id = ctx.params.secretImportId ?? '';
  const record = importsOf(app).remove(scope.projectId, scope.environment, path, id);
  if (!record) throw notFound(`Secret import with ID '${id}' not found`);
  return { message: 'Successfully deleted secret import', secretImport: view(app, record) };
}

/** The secret-import routes. */
export function secretImportRoutes(app: DevApp): RouteDef[] {
  const base = '/api/v1/secret-imports';
  return [
    { method: 'POST', path: base, bucket: 'secrets', handler: (ctx) => createImport(app, ctx) },
    { method: 'GET', path: base, bucket: 'secrets', handler: (ctx) => listImports(app, ctx) },
    {
      method: 'DELETE',
      path: `${base}/:secretImportId`,
      bucket: 'secrets',
      handler: (ctx) => deleteImport(app, ctx),
    },
  ];
}
