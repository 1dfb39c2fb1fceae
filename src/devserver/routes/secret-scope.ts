/**
 * What every secret and folder route shares: resolving the project (by id or slug) and the
 * environment, the permission callback the secret store calls before it writes, hiding values
 * the caller may not read, and publishing the resulting project events.
 */
import type { DevApp } from '../app.ts';
import { notFound, permissionDenied } from '../domain/errors.ts';
import { assertCan, can, relevantRules, type PermissionRule } from '../domain/permission-rules.ts';
import type { Authorize, Mutation, Scope, SecretView } from '../domain/secret-model.ts';
import type { RequestContext } from '../http/types.ts';
import { projectRules } from '../domain/permissions.ts';
import { actorOf, findProjectByIdOrSlug } from './common.ts';

/** The placeholder the service returns instead of a value the caller may not read. */
export const HIDDEN_SECRET_VALUE = '<hidden-by-infisical>';

/** A resolved request scope: project environment plus the caller's rules there. */
export interface SecretScope {
  scope: Scope;
  rules: readonly PermissionRule[];
}

/** Resolves project and environment (404s) and the caller's project rules (403 non-member). */
export function resolveScope(
  app: DevApp,
  ctx: RequestContext,
  ref: { id?: string | undefined; slug?: string | undefined; environment: string },
): SecretScope {
  const project = findProjectByIdOrSlug(app, actorOf(ctx), ref);
  const scope = { projectId: project.id, environment: ref.environment };
  if (!app.secrets.hasEnvironment(scope)) {
    throw notFound(`Environment with slug '${ref.environment}' in project with ID '${project.id}' not found`);
  }
  return { scope, rules: projectRules(app, actorOf(ctx), project.id) };
}

/** The store's write check: `action` on `secrets` for the secret's environment, path, name, tags. */
export function authorizer(rules: readonly PermissionRule[]): Authorize {
  return (check) => assertCan(rules, check.action, 'secrets', { ...check });
}

/** Throws 403 unless `action` on `subject` is allowed somewhere at the path. */
export function requirePathPermission(
  rules: readonly PermissionRule[],
  check: { action: string; subject: string; environment: string; secretPath: string },
): void {
  assertCan(rules, check.action, check.subject, {
    environment: check.environment,
    secretPath: check.secretPath,
  });
}

function secretContext(view: SecretView) {
  return {
    environment: view.environment,
    secretPath: view.secretPath,
    secretName: view.secretKey,
    secretTags: view.tags.map((t) => t.slug),
  };
}

/** The view with `secretValueHidden`, its value masked when not readable or not requested. */
export function withVisibility(
  rules: readonly PermissionRule[],
  view: SecretView,
  viewValue = true,
): SecretView & { secretValueHidden: boolean } {
  const hidden = !viewValue || !can(rules, 'readValue', 'secrets', secretContext(view));
  return { ...view, secretValue: hidden ? HIDDEN_SECRET_VALUE : view.secretValue, secretValueHidden: hidden };
}

/** Whether the caller may see that the secret exists. */
export function canDescribe(rules: readonly PermissionRule[], view: SecretView): boolean {
  return can(rules, 'describeSecret', 'secrets', secretContext(view));
}

/** Throws 403 `describeSecret` unless the caller may see this secret. */
export function requireDescribe(rules: readonly PermissionRule[], view: SecretView): void {
  if (!canDescribe(rules, view)) {
    throw permissionDenied('describeSecret', 'secrets', relevantRules(rules, 'describeSecret', 'secrets'));
  }
}

/** Publishes a mutation's changes as project events, marks state dirty, returns the result. */
export function commit<T>(app: DevApp, projectId: string, mutation: Mutation<T>): T {
  if (mutation.changes.length > 0) app.events.publish(projectId, mutation.changes);
  app.changed();
  return mutation.result;
}
