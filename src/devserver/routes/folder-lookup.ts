/**
 * `GET /api/v1/folders/{id}`: a folder by id, `{folder}` with its `path`, `projectId` and
 * `environment: {envId, envName, envSlug}` (server/routes/v1/secret-folder-router.ts).
 * The folder is searched in the environments of the caller's organisation; 404 when none has it.
 * The caller needs `read` on `secret-folders` for the folder's environment and path.
 */
import type { DevApp } from '../app.ts';
import { notFound } from '../domain/errors.ts';
import type { FolderView } from '../domain/secret-model.ts';
import type { RequestContext, RouteDef } from '../http/types.ts';
import { requireProjectPermission } from '../domain/permissions.ts';
import { actorOf, environmentsOf } from './common.ts';

interface LocatedFolder {
  projectId: string;
  environment: { envId: string; envName: string; envSlug: string };
  folder: FolderView;
}

function locateFolder(app: DevApp, orgId: string, id: string): LocatedFolder | undefined {
  for (const project of Object.values(app.state.projects)) {
    if (project.orgId !== orgId) continue;
    for (const env of environmentsOf(app, project.id)) {
      const scope = { projectId: project.id, environment: env.slug };
      const root = app.secrets.getFolder(scope, '/');
      const all = [
        ...(root ? [root] : []),
        ...app.secrets.listFolders(scope, { path: '/', recursive: true }),
      ];
      const folder = all.find((f) => f.id === id);
      if (folder) {
        const environment = { envId: env.id, envName: env.name, envSlug: env.slug };
        return { projectId: project.id, environment, folder };
      }
    }
  }
  return undefined;
}

function getFolderById(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const id = ctx.params.id ?? '';
  const located = locateFolder(app, actor.orgId, id);
  if (!located) throw notFound(`Folder with ID '${id}' not found`);
  requireProjectPermission(app, actor, located.projectId, {
    action: 'read',
    subject: 'secret-folders',
    context: { environment: located.environment.envSlug, secretPath: located.folder.path },
  });
  const { folder, projectId, environment } = located;
  return { folder: { ...folder, projectId, environment } };
}

/** The folder-by-id route. */
export function folderLookupRoutes(app: DevApp): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/folders/:id',
      bucket: 'read',
      handler: (ctx) => getFolderById(app, ctx),
    },
  ];
}
