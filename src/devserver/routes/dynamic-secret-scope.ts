/**
 * Lookups shared by the dynamic-secret and lease routes, in the service's order: the project by
 * slug (404), the caller's rules in it (403 when not a member), the folder of environment and path
 * (404), the dynamic secret by name in that folder (404); then the permission on `dynamic-secrets`
 * for that environment and path (403). Also the response shapes.
 */
import type { DevApp } from '../app.ts';
import { notFound } from '../domain/errors.ts';
import { assertCan, type PermissionRule } from '../domain/permission-rules.ts';
import { projectRules } from '../domain/permissions.ts';
import type { Actor, RequestContext } from '../http/types.ts';
import type { DynamicSecretLeaseRecord, DynamicSecretRecord, ProjectRecord } from '../state/types.ts';
import { actorOf, findProjectBySlug } from './common.ts';

/** A project, environment and path as the requests name them, resolved for the caller. */
export interface DynamicScope {
  actor: Actor;
  project: ProjectRecord;
  rules: readonly PermissionRule[];
  environment: string;
  path: string;
}

/** The project (by slug) and the caller's rules in it. */
export function resolveScope(
  app: DevApp,
  ctx: RequestContext,
  ref: { projectSlug: string; environmentSlug: string; path: string },
): DynamicScope {
  const actor = actorOf(ctx);
  const project = findProjectBySlug(app, actor, ref.projectSlug);
  const rules = projectRules(app, actor, project.id);
  return { actor, project, rules, environment: ref.environmentSlug, path: ref.path };
}

/** The folder id of the scope's environment and path; 404 (`message`) when either is missing. */
export function folderIdOf(
  app: DevApp,
  scope: DynamicScope,
  message = `Folder with path '${scope.path}' in environment '${scope.environment}' not found`,
): string {
  const key = { projectId: scope.project.id, environment: scope.environment };
  const folder = app.secrets.hasEnvironment(key) ? app.secrets.getFolder(key, scope.path) : undefined;
  if (!folder) throw notFound(message);
  return folder.id;
}

/** The dynamic secrets of one folder. */
export function dynamicSecretsIn(app: DevApp, folderId: string): DynamicSecretRecord[] {
  return Object.values(app.state.dynamicSecrets).filter((d) => d.folderId === folderId);
}

/** The dynamic secret `name` in folder `folderId`; 404 with `message` when missing. */
export function findDynamicSecret(
  app: DevApp,
  folderId: string,
  name: string,
  message: string,
): DynamicSecretRecord {
  const ds = dynamicSecretsIn(app, folderId).find((d) => d.name === name);
  if (!ds) throw notFound(message);
  return ds;
}

/** 403 unless the caller may do `action` on dynamic secrets of the scope's environment and path. */
export function requireDynamicSecretPermission(scope: DynamicScope, action: string): void {
  assertCan(scope.rules, action, 'dynamic-secrets', {
    environment: scope.environment,
    secretPath: scope.path,
  });
}

/** The sanitized dynamic secret (`inputs` only where the service returns them). */
export function dynamicSecretShape(ds: DynamicSecretRecord, withInputs = false): Record<string, unknown> {
  const shape: Record<string, unknown> = {
    id: ds.id,
    name: ds.name,
    version: ds.version,
    type: ds.type,
    defaultTTL: ds.defaultTTL,
    maxTTL: ds.maxTTL,
    folderId: ds.folderId,
    status: ds.status,
    statusDetails: ds.statusDetails,
    createdAt: ds.createdAt,
    updatedAt: ds.updatedAt,
    projectGatewayId: null,
    gatewayId: null,
    gatewayV2Id: null,
    usernameTemplate: ds.usernameTemplate,
    metadata: ds.metadata.map((m) => ({ key: m.key, value: m.value })),
  };
  if (withInputs) shape.inputs = ds.inputs;
  return shape;
}

/** A lease as the service returns it (never with credentials). */
export function leaseShape(lease: DynamicSecretLeaseRecord): Record<string, unknown> {
  return {
    id: lease.id,
    version: lease.version,
    externalEntityId: lease.externalEntityId,
    expireAt: lease.expireAt,
    status: lease.status,
    statusDetails: lease.statusDetails,
    dynamicSecretId: lease.dynamicSecretId,
    createdAt: lease.createdAt,
    updatedAt: lease.updatedAt,
    config: lease.config,
  };
}
