/**
 * Project creation from a template (the built-in `default` or an org template) and the
 * cascade that removes everything inside a project on delete.
 */
import { z } from 'zod';
import type { DevApp } from '../app.ts';
import { badRequest, notFound } from '../domain/errors.ts';
import { slugSchema } from '../domain/validation.ts';
import type { RequestContext } from '../http/types.ts';
import { requireOrgPermission } from '../domain/permissions.ts';
import { deleteWhere } from '../state/store.ts';
import type { ProjectMembershipRecord, ProjectRecord, RoleRecord } from '../state/types.ts';
import { slugify, slugSuffix } from './bootstrap.ts';
import { actorOf } from './common.ts';
import { insertEnvironment } from './environment-ops.ts';
import { DEFAULT_ENVIRONMENTS, PROJECT_TYPES } from './template-rules.ts';

const createSchema = z.object({
  projectName: z.string().trim().min(1).max(64),
  projectDescription: z.string().trim().max(1024).optional(),
  slug: slugSchema({ min: 5, max: 36 }).optional(),
  kmsKeyId: z.string().optional(),
  template: z.string().trim().default('default'),
  type: z.enum(PROJECT_TYPES).default('secret-manager'),
  shouldCreateDefaultEnvs: z.boolean().default(true),
  hasDeleteProtection: z.boolean().default(false),
});

function uniqueSlug(app: DevApp, orgId: string, wanted: string | undefined, name: string): string {
  const taken = (slug: string) =>
    Object.values(app.state.projects).some((p) => p.orgId === orgId && p.slug === slug);
  if (wanted) {
    if (taken(wanted)) throw badRequest(`Project with slug '${wanted}' already exists`);
    return wanted;
  }
  let slug: string;
  do slug = `${slugify(name).slice(0, 31) || 'project'}-${slugSuffix()}`;
  while (taken(slug));
  return slug;
}

function newProject(app: DevApp, orgId: string, body: z.infer<typeof createSchema>): ProjectRecord {
  const now = app.iso();
  return {
    id: app.newId(),
    orgId,
    name: body.projectName,
    description: body.projectDescription ?? null,
    type: body.type,
    defaultProduct: body.type,
    slug: uniqueSlug(app, orgId, body.slug, body.projectName),
    autoCapitalization: false,
    version: 3,
    upgradeStatus: null,
    pitVersionLimit: 10,
    kmsCertificateKeyId: null,
    auditLogsRetentionDays: null,
    hasDeleteProtection: body.hasDeleteProtection,
    secretSharing: true,
    showSnapshotsLegacy: false,
    secretDetectionIgnoreValues: [],
    createdAt: now,
    updatedAt: now,
  };
}

function addCreatorMembership(app: DevApp, projectId: string, identityId: string): void {
  const now = app.iso();
  const membership: ProjectMembershipRecord = {
    id: app.newId(),
    projectId,
    identityId,
    roles: [
      {
        id: app.newId(),
        role: 'admin',
        customRoleId: null,
        isTemporary: false,
        temporaryMode: null,
        temporaryRange: null,
        temporaryAccessStartTime: null,
        temporaryAccessEndTime: null,
        createdAt: now,
        updatedAt: now,
      },
    ],
    createdAt: now,
    updatedAt: now,
  };
  app.state.memberships[membership.id] = membership;
}

/**
 * Creates a project from the request: environments and roles come from the named template
 * (404 when unknown); the creating identity becomes a project admin.
 */
export function createProject(app: DevApp, ctx: RequestContext): ProjectRecord {
  const actor = actorOf(ctx);
  const body = createSchema.parse(ctx.body ?? {});
  requireOrgPermission(app, actor, 'create', 'workspace');
  const template =
    body.template === 'default'
      ? undefined
      : Object.values(app.state.templates).find((t) => t.orgId === actor.orgId && t.name === body.template);
  if (body.template !== 'default' && !template)
    throw notFound(`No project template found with name ${body.template}`);
  const project = newProject(app, actor.orgId, body);
  app.state.projects[project.id] = project;
  const environments = template
    ? (template.environments ?? [])
    : body.shouldCreateDefaultEnvs
      ? DEFAULT_ENVIRONMENTS
      : [];
  for (const env of environments) insertEnvironment(app, project.id, { name: env.name, slug: env.slug });
  for (const role of template?.roles ?? []) {
    const now = app.iso();
    const record: RoleRecord = {
      id: app.newId(),
      projectId: project.id,
      name: role.name,
      slug: role.slug,
      description: null,
      permissions: role.permissions,
      createdAt: now,
      updatedAt: now,
    };
    app.state.roles[record.id] = record;
  }
  addCreatorMembership(app, project.id, actor.identityId);
  app.changed();
  return project;
}

/** Deletes a project and every record inside it. */
export function deleteProjectCascade(app: DevApp, projectId: string): void {
  const s = app.state;
  delete s.projects[projectId];
  const owned: Record<string, { projectId: string }>[] = [
    s.environments,
    s.memberships,
    s.privileges,
    s.roles,
    s.integrationAuths,
    s.integrations,
    s.cas,
  ];
  for (const coll of owned) deleteWhere(coll, (r) => r.projectId === projectId);
  app.secrets.removeProject(projectId);
  app.changed();
}
