/**
 * ProjectTemplate: an organization-wide project template (roles and environments applied to new
 * projects). Cluster-scoped because templates belong to the organization, not to a project: one
 * template serves Projects in every namespace, and cluster scope gives it one name cluster-wide,
 * as the service requires one name per organization. It therefore uses a ClusterConnection.
 */
import { z } from 'zod';
import {
  clusterConnectionRef,
  deletionPolicy,
  environmentEntry,
  managementPolicy,
  pollInterval,
} from './common.ts';
import { projectType, reservedRoleSlugs, slug } from './common.ts';
import { defineKind } from './kind.ts';
import { permissionRules } from './permissions.ts';
import { listMap, withRules } from './schema-helpers.ts';
import { managedStatusFields } from './status.ts';

const reservedRoleNames = ['custom', 'admin', 'viewer', 'developer', 'no access'] as const;
const celList = (items: readonly string[]) => `[${items.map((i) => `'${i}'`).join(', ')}]`;

export const templateRole = withRules(
  z.object({
    name: z
      .string()
      .min(1)
      .max(64)
      .describe('Display name of the role (not custom, admin, viewer, developer or no access).'),
    slug: slug(1, 64).describe(
      'Role slug, unique in the template; not a predefined slug such as admin or viewer.',
    ),
    permissions: permissionRules.describe('Permission rules of the role.'),
  }),
  [
    {
      rule: `!(self.slug in ${celList(reservedRoleSlugs)})`,
      message: `role slug must not be a predefined one (${reservedRoleSlugs.join(', ')})`,
      fieldPath: '.slug',
      check: (v) => !(reservedRoleSlugs as readonly string[]).includes(v.slug),
    },
    {
      rule: `!(self.name.lowerAscii() in ${celList(reservedRoleNames)})`,
      message: `role name must not be a reserved one (${reservedRoleNames.join(', ')}, any case)`,
      fieldPath: '.name',
      check: (v) => !(reservedRoleNames as readonly string[]).includes(v.name.toLowerCase()),
    },
  ],
);

const templateEnvironment = environmentEntry.extend({
  position: z
    .int()
    .min(1)
    .max(64)
    .describe('1-based position; positions must be exactly 1..n, each used once.'),
});

const templateEnvironments = withRules(listMap(templateEnvironment, ['slug'], 64), [
  {
    rule: 'self.all(e, e.position <= size(self) && self.exists_one(f, f.position == e.position))',
    message: 'environment positions must be exactly 1..n, each used once',
    check: (list) =>
      new Set(list.map((e) => e.position)).size === list.length &&
      list.every((e) => e.position <= list.length),
  },
  {
    rule: 'self.all(e, self.exists_one(f, f.name == e.name))',
    message: 'environment names must be unique',
    check: (list) => new Set(list.map((e) => e.name)).size === list.length,
  },
]);

export const projectTemplateSpec = z
  .object({
    connectionRef: clusterConnectionRef,
    deletionPolicy: deletionPolicy('Delete'),
    managementPolicy,
    pollInterval: pollInterval.optional(),
    name: withRules(slug(1, 64), [
      {
        rule: "self != 'default'",
        message: 'name must not be default (reserved by the service)',
        check: (v) => v !== 'default',
      },
    ]).describe(
      'Template name in the organization (a slug, not default); Projects use it as their template.',
    ),
    description: z.string().max(256).optional().describe('Description (at most 256 characters).'),
    type: withRules(projectType, [
      {
        rule: 'self == oldSelf',
        message: 'type is immutable (the service cannot change it); create a new ProjectTemplate',
      },
    ]).describe('Type of project the template is for; immutable. Default: secret-manager.'),
    roles: withRules(listMap(templateRole, ['slug'], 32), [
      {
        rule: 'self.all(r, self.exists_one(s, s.name == r.name))',
        message: 'role names must be unique',
        check: (list) => new Set(list.map((r) => r.name)).size === list.length,
      },
    ])
      .optional()
      .describe('Custom roles created in every project made from the template.'),
    environments: templateEnvironments
      .optional()
      .describe(
        'Environments created in every project made from the template. Unset: the service default set.',
      ),
  })
  .describe('Desired project template.');
export type ProjectTemplateSpec = z.output<typeof projectTemplateSpec>;

export const projectTemplateStatus = z
  .object({
    ...managedStatusFields,
    organizationId: z.string().max(256).optional().describe('Id of the organization that owns the template.'),
  })
  .describe('Observed state of the template.');
export type ProjectTemplateStatus = z.output<typeof projectTemplateStatus>;

export const projectTemplateKind = defineKind({
  kind: 'ProjectTemplate',
  plural: 'projecttemplates',
  shortNames: ['ptpl'],
  scope: 'Cluster',
  description:
    'An organization-wide project template: roles and environments applied to new projects. Cluster-scoped ' +
    'because a template belongs to the organization and serves Projects in every namespace (one name per ' +
    'organization, like one name per cluster); it therefore uses a ClusterConnection. Projects refer to it ' +
    'with templateRef.',
  spec: projectTemplateSpec,
  status: projectTemplateStatus,
  columns: [
    {
      name: 'Service Name',
      type: 'string',
      jsonPath: '.spec.name',
      description: 'Template name in the service.',
    },
    { name: 'Type', type: 'string', jsonPath: '.spec.type', description: 'Project type.', priority: 1 },
  ],
  defaultDeletionPolicy: 'Delete',
});
