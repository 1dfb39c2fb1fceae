/**
 * Project template routes (facts A21, B9): create, list (with the built-in `default`), get,
 * update and delete by UUID (a non-UUID id is 422). Templates are org-level; creating,
 * changing and deleting them needs the org `project-templates` permission (org admins).
 */
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import { badRequest, notFound } from '../domain/errors.ts';
import { PREDEFINED_PROJECT_ROLES, projectRoleRules } from '../domain/predefined-roles.ts';
import type { RequestContext, RouteDef } from '../http/types.ts';
import { requireOrgPermission } from '../domain/permissions.ts';
import type { TemplateRecord } from '../state/types.ts';
import { actorOf } from './common.ts';
import { predefinedRoleName } from './role-shapes.ts';
import {
  createTemplateSchema,
  DEFAULT_ENVIRONMENTS,
  PROJECT_TYPES,
  updateTemplateSchema,
} from './template-rules.ts';

/** Id of the built-in `default` template. */
export const DEFAULT_TEMPLATE_ID = 'd3f6a1c0-0000-4000-8000-000000000def';

function defaultTemplate(orgId: string): TemplateRecord {
  const epoch = new Date(0).toISOString();
  return {
    id: DEFAULT_TEMPLATE_ID,
    orgId,
    name: 'default',
    description:
      'The built-in template: predefined roles and the development, staging and production environments',
    type: 'secret-manager',
    roles: PREDEFINED_PROJECT_ROLES.map((slug) => ({
      name: predefinedRoleName(slug),
      slug,
      permissions: projectRoleRules(slug) ?? [],
    })),
    environments: DEFAULT_ENVIRONMENTS.map((e) => ({ ...e })),
    users: null,
    createdAt: epoch,
    updatedAt: epoch,
  };
}

function shape(t: TemplateRecord): Record<string, unknown> {
  return { ...t };
}

function nameTaken(app: DevApp, orgId: string, name: string, exceptId?: string): boolean {
  return Object.values(app.state.templates).some(
    (t) => t.orgId === orgId && t.name === name && t.id !== exceptId,
  );
}

function createTemplate(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const body = createTemplateSchema.parse(ctx.body ?? {});
  requireOrgPermission(app, actor, 'create', 'project-templates');
  if (nameTaken(app, actor.orgId, body.name))
    throw badRequest(`A project template with the name "${body.name}" already exists`);
  const now = app.iso();
  const record: TemplateRecord = {
    id: app.newId(),
    orgId: actor.orgId,
    name: body.name,
    description: body.description ?? null,
    type: body.type,
    roles: body.roles,
    environments: body.environments ?? null,
    users: body.users,
    createdAt: now,
    updatedAt: now,
  };
  app.state.templates[record.id] = record;
  app.changed();
  return { projectTemplate: shape(record) };
}

function templateId(ctx: RequestContext): string {
  return z.object({ templateId: z.uuid() }).parse(ctx.params).templateId;
}

function findTemplate(app: DevApp, ctx: RequestContext, action: 'read' | 'edit' | 'delete'): TemplateRecord {
  const actor = actorOf(ctx);
  const id = templateId(ctx);
  requireOrgPermission(app, actor, action, 'project-templates');
  if (id === DEFAULT_TEMPLATE_ID) {
    if (action !== 'read') throw badRequest('The default project template cannot be modified');
    return defaultTemplate(actor.orgId);
  }
  const t = app.state.templates[id];
  if (!t || t.orgId !== actor.orgId) throw notFound(`Could not find project template with ID ${id}`);
  return t;
}

function updateTemplate(app: DevApp, ctx: RequestContext): unknown {
  const body = updateTemplateSchema.parse(ctx.body ?? {});
  const t = findTemplate(app, ctx, 'edit');
  if (body.name !== undefined && nameTaken(app, t.orgId, body.name, t.id)) {
    throw badRequest(`A project template with the name "${body.name}" already exists`);
  }
  if (body.name !== undefined) t.name = body.name;
  if (body.description !== undefined) t.description = body.description;
  if (body.roles !== undefined) t.roles = body.roles;
  if (body.environments !== undefined) t.environments = body.environments;
  if (body.users !== undefined) t.users = body.users;
  t.updatedAt = app.iso();
  app.changed();
  return { projectTemplate: shape(t) };
}

function listTemplates(app: DevApp, ctx: RequestContext): unknown {
  const actor = actorOf(ctx);
  const { type } = z.object({ type: z.enum(PROJECT_TYPES).optional() }).parse(ctx.query);
  requireOrgPermission(app, actor, 'read', 'project-templates');
  const all = [
    defaultTemplate(actor.orgId),
    ...Object.values(app.state.templates).filter((t) => t.orgId === actor.orgId),
  ];
  return { projectTemplates: all.filter((t) => !type || t.type === type).map(shape) };
}

/** The project template routes. */
export function templateRoutes(app: DevApp): RouteDef[] {
  const base = '/api/v1/project-templates';
  return [
    { method: 'POST', path: base, bucket: 'write', handler: (ctx) => createTemplate(app, ctx) },
    { method: 'GET', path: base, bucket: 'read', handler: (ctx) => listTemplates(app, ctx) },
    {
      method: 'GET',
      path: `${base}/:templateId`,
      bucket: 'read',
      handler: (ctx) => ({ projectTemplate: shape(findTemplate(app, ctx, 'read')) }),
    },
    {
      method: 'PATCH',
      path: `${base}/:templateId`,
      bucket: 'write',
      handler: (ctx) => updateTemplate(app, ctx),
    },
    {
      method: 'DELETE',
      path: `${base}/:templateId`,
      bucket: 'write',
      handler: (ctx) => {
        const t = findTemplate(app, ctx, 'delete');
        delete app.state.templates[t.id];
        app.changed();
        return { projectTemplate: shape(t) };
      },
    },
  ];
}
