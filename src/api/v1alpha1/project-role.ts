/**
 * ProjectRole: a custom role in a project (named so to stay apart from RBAC Role in `kubectl get`).
 * Found again by slug, which is also the key for adoption and crash recovery.
 */
import { z } from 'zod';
import { managedFields, projectRef, reservedRoleSlugs, slug } from './common.ts';
import { defineKind } from './kind.ts';
import { permissionRules } from './permissions.ts';
import { withRules } from './schema-helpers.ts';
import { managedStatusFields } from './status.ts';

export const projectRoleSpec = z
  .object({
    ...managedFields('Delete'),
    projectRef: withRules(projectRef, [
      { rule: 'self == oldSelf', message: 'projectRef is immutable; create a new ProjectRole' },
    ]),
    slug: withRules(slug(1, 64), [
      {
        rule: `!(self in [${reservedRoleSlugs.map((s) => `'${s}'`).join(', ')}])`,
        message: `slug must not be a predefined role slug (${reservedRoleSlugs.join(', ')})`,
        check: (v) => !(reservedRoleSlugs as readonly string[]).includes(v),
      },
    ]).describe(
      'Role slug, unique in the project (1–64 lowercase letters, digits, hyphens; not a predefined slug). ' +
        'Identity memberships refer to the role by this slug or by this resource’s name.',
    ),
    name: z.string().min(1).max(64).describe('Display name of the role.'),
    description: z.string().max(1024).optional().describe('Description of the role.'),
    permissions: permissionRules.describe('Permission rules of the role; compared semantically.'),
  })
  .describe('Desired project role.');
export type ProjectRoleSpec = z.output<typeof projectRoleSpec>;

export const projectRoleStatus = z
  .object({
    ...managedStatusFields,
    slug: z.string().max(64).optional().describe('Slug of the role in the service.'),
    projectId: z
      .string()
      .max(256)
      .optional()
      .describe(
        'Id of the service project the role belongs to (used to delete it after its Project is gone).',
      ),
  })
  .describe('Observed state of the role.');
export type ProjectRoleStatus = z.output<typeof projectRoleStatus>;

export const projectRoleKind = defineKind({
  kind: 'ProjectRole',
  plural: 'projectroles',
  shortNames: ['prole'],
  scope: 'Namespaced',
  description:
    'A custom role in a Project: a named set of permission rules that identity memberships can grant. A role ' +
    'still used by memberships cannot be deleted; the service’s message is shown in a condition.',
  spec: projectRoleSpec,
  status: projectRoleStatus,
  columns: [
    { name: 'Project', type: 'string', jsonPath: '.spec.projectRef.name', description: 'Project resource.' },
    { name: 'Slug', type: 'string', jsonPath: '.spec.slug', description: 'Role slug.' },
  ],
  defaultDeletionPolicy: 'Delete',
});
