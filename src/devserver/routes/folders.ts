/**
 * Folder routes (facts B6) on both paths official clients use: `/api/v2/folders` (project by
 * `projectId`) and `/api/v1/folders` (project by `workspaceId`, path also as `directory`).
 * Create creates missing parents (400 when the folder exists); update renames the folder with
 * the id (or, for old clients, the name) in `:folderId` under the parent path, moving everything
 * below it; delete removes everything below (`deleteFolder`).
 * Permissions: `secret-folders` create/edit/delete for the environment and parent path; listing
 * needs only a project membership, as in the service.
 */
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import { notFound } from '../domain/errors.ts';
import { importsOf } from '../domain/secret-imports.ts';
import type { RequestContext, RouteDef } from '../http/types.ts';
import { projectRules } from '../domain/permissions.ts';
import { actorOf, findProject } from './common.ts';
import { requirePathPermission, resolveScope, type SecretScope } from './secret-scope.ts';
import { normalizeSecretPath } from '../domain/secret-model.ts';

const base = z.object({
  projectId: z.string().trim().min(1).optional(),
  workspaceId: z.string().trim().min(1).optional(),
  environment: z.string().trim().min(1),
  path: z.string().trim().optional(),
  directory: z.string().trim().optional(),
});

const createBody = base.extend({ name: z.string().trim().min(1), description: z.string().nullish() });
const listQuery = base.extend({ recursive: z.stringbool().default(false) });
const deleteBody = base.extend({ forceDelete: z.boolean().default(false) });
const updateBody = base.extend({ name: z.string().trim().min(1), description: z.string().nullish() });

type Base = z.infer<typeof base>;

function resolve(
  app: DevApp,
  ctx: RequestContext,
  input: Base,
  action: string,
): SecretScope & { path: string } {
  const resolved = resolveScope(app, ctx, {
    id: input.projectId ?? input.workspaceId,
    environment: input.environment,
  });
  const path = normalizeSecretPath(input.path ?? input.directory);
  requirePathPermission(resolved.rules, {
    action,
    subject: 'secret-folders',
    environment: input.environment,
    secretPath: path,
  });
  return { ...resolved, path };
}

function createFolder(app: DevApp, ctx: RequestContext): unknown {
  const body = createBody.parse(ctx.body ?? {});
  const { scope, path } = resolve(app, ctx, body, 'create');
  const folder = app.secrets.createFolder(scope, {
    name: body.name,
    path,
    description: body.description ?? null,
  });
  app.changed();
  return { folder };
}

/**
 * As the service's `getFolders`: any member may list folders (no `secret-folders` permission);
 * an unknown environment is 404 "Environment with slug '…' not found"; a missing parent lists
 * nothing (200, `[]`).
 */
function listFolders(app: DevApp, ctx: RequestContext): unknown {
  const q = listQuery.parse(ctx.query);
  const actor = actorOf(ctx);
  const project = findProject(app, actor, q.projectId ?? q.workspaceId ?? '');
  projectRules(app, actor, project.id);
  const scope = { projectId: project.id, environment: q.environment };
  if (!app.secrets.hasEnvironment(scope))
    throw notFound(`Environment with slug '${q.environment}' not found`);
  const path = normalizeSecretPath(q.path ?? q.directory);
  return { folders: app.secrets.listFolders(scope, { path, recursive: q.recursive }) };
}

function updateFolder(app: DevApp, ctx: RequestContext): unknown {
  const body = updateBody.parse(ctx.body ?? {});
  const { scope, path } = resolve(app, ctx, body, 'edit');
  const { folder } = app.secrets.updateFolder(scope, {
    idOrName: ctx.params.folderId ?? '',
    path,
    name: body.name,
    ...(body.description === undefined ? {} : { description: body.description }),
  });
  app.changed();
  return { folder };
}

/**
 * As the service's `deleteFolder`: the folder goes with everything below it — secrets, folders
 * and the imports they hold (imports elsewhere that import it stay) — and no project event is
 * published (docs/service-facts.md, "Folders: delete"). v2 refuses a folder holding secrets or
 * folders unless `forceDelete`; v1 (whose body has no such field here) deletes it.
 */
function deleteFolder(app: DevApp, ctx: RequestContext, version: 'v1' | 'v2'): unknown {
  const body = deleteBody.parse(ctx.body ?? {});
  const { scope, path } = resolve(app, ctx, body, 'delete');
  const folder = app.secrets.deleteFolder(scope, {
    idOrName: ctx.params.folderIdOrName ?? '',
    path,
    forceDelete: version === 'v1' || body.forceDelete,
  });
  importsOf(app).dropWithin(scope.projectId, scope.environment, folder.path);
  app.changed();
  return { folder };
}

/** Folder routes under v1 and v2. */
export function folderRoutes(app: DevApp): RouteDef[] {
  return (['v1', 'v2'] as const).flatMap((version): RouteDef[] => {
    const prefix = `/api/${version}/folders`;
    return [
      { method: 'POST', path: prefix, bucket: 'secrets', handler: (ctx) => createFolder(app, ctx) },
      { method: 'GET', path: prefix, bucket: 'secrets', handler: (ctx) => listFolders(app, ctx) },
      {
        method: 'PATCH',
        path: `${prefix}/:folderId`,
        bucket: 'secrets',
        handler: (ctx) => updateFolder(app, ctx),
      },
      {
        method: 'DELETE',
        path: `${prefix}/:folderIdOrName`,
        bucket: 'secrets',
        handler: (ctx) => deleteFolder(app, ctx, version),
      },
    ];
  });
}
