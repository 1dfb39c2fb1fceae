/**
 * How a secrets list (`GET /api/v3/secrets/raw` and v4) finds its project, checks the caller and
 * finds the folder, in the service's order and with its answers (docs/service-facts.md, "What a
 * source that does not exist answers"):
 *
 * 1. the project: by id, unknown → 404 "Project with ID '…' not found during bot lookup. …"; by
 *    slug, in the caller's organisation → 404 "Project with slug '…' not found"; neither → 400.
 *    (The service finds a project by id in any organisation and then answers 403 "This project
 *    does not belong to your selected organization."; the devserver has one organisation.)
 * 2. membership → 403 `ProjectMembershipNotFound` (`permissions.ts`);
 * 3. `describeSecret` on `secrets` anywhere in the project → else 403 `PermissionDenied`;
 *    then, for a list of one folder, a path segment other than letters, digits, `-` and `_` → 400;
 * 4. the environment: unknown → 404, `NotFound` "Environment with slug …" for a recursive list,
 *    else `SecretPathNotFound` for the path (the service looks the folder up by environment and
 *    path in one query); a missing folder is `SecretPathNotFound` too (`secret-store.ts`).
 */
import type { DevApp } from '../app.ts';
import { badRequest, notFound, permissionDenied } from '../domain/errors.ts';
import { can, relevantRules } from '../domain/permission-rules.ts';
import { normalizeSecretPath } from '../domain/secret-model.ts';
import type { RequestContext } from '../http/types.ts';
import { projectRules } from '../domain/permissions.ts';
import type { ProjectRecord } from '../state/types.ts';
import { actorOf, findProjectBySlug } from './common.ts';
import type { SecretScope } from './secret-scope.ts';

/** What a list names: the project (id or slug), environment, path and whether it recurses. */
export interface ListTarget {
  readonly id?: string | undefined;
  readonly slug?: string | undefined;
  readonly environment: string;
  readonly secretPath: string;
  readonly recursive: boolean;
}

function listedProject(app: DevApp, ctx: RequestContext, target: ListTarget): ProjectRecord {
  const actor = actorOf(ctx);
  if (target.id) {
    const project = app.state.projects[target.id];
    if (!project || project.orgId !== actor.orgId)
      throw notFound(
        `Project with ID '${target.id}' not found during bot lookup. Are you sure you are using the correct project ID?`,
      );
    return project;
  }
  if (target.slug) return findProjectBySlug(app, actor, target.slug);
  throw badRequest('You must provide projectSlug or workspaceId');
}

/** The service's folder-name rule for each segment of a path (letters, digits, `-`, `_`). */
function validSecretPath(path: string): boolean {
  return path
    .split('/')
    .filter(Boolean)
    .every((name) => /^[A-Za-z0-9_-]+$/.test(name));
}

function missingEnvironment(target: ListTarget, projectId: string): Error {
  if (target.recursive)
    return notFound(
      `Environment with slug '${target.environment}' in project with ID ${projectId} not found`,
    );
  return notFound(
    `Folder with path '${normalizeSecretPath(target.secretPath)}' in environment '${target.environment}' was not found. Please ensure the environment slug and secret path is correct.`,
    'SecretPathNotFound',
  );
}

/** The scope and rules of a list, or the service's refusal (see the module comment). */
export function resolveListScope(app: DevApp, ctx: RequestContext, target: ListTarget): SecretScope {
  const project = listedProject(app, ctx, target);
  const rules = projectRules(app, actorOf(ctx), project.id);
  if (!can(rules, 'describeSecret', 'secrets'))
    throw permissionDenied('describeSecret', 'secrets', relevantRules(rules, 'describeSecret', 'secrets'));
  if (!target.recursive && !validSecretPath(target.secretPath))
    throw badRequest(
      'Invalid secret path. Only alphanumeric characters, dashes, and underscores are allowed.',
    );
  const scope = { projectId: project.id, environment: target.environment };
  if (!app.secrets.hasEnvironment(scope)) throw missingEnvironment(target, project.id);
  return { scope, rules };
}
