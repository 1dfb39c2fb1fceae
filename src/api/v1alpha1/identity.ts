/**
 * Identity: an organization machine identity, its org role, metadata and project memberships.
 * Authentication methods are attached separately with IdentityAuth.
 */
import { z } from 'zod';
import { managedFields, objectName, projectRef, resourceName, slug } from './common.ts';
import { defineKind } from './kind.ts';
import { temporaryWindow } from './permissions.ts';
import { celCountPresent, countPresent, listMap, withRules } from './schema-helpers.ts';
import { managedStatusFields } from './status.ts';

const roleSources = ['role', 'projectRoleRef'] as const;

/** One role of a project membership: a role slug or a ProjectRole resource, optionally temporary. */
export const membershipRole = withRules(
  z.object({
    role: slug(1, 64)
      .optional()
      .describe(
        'Project role slug: a predefined role (admin, member, viewer, no-access) or a custom role’s slug.',
      ),
    projectRoleRef: z
      .object({ name: objectName.describe('Name of the ProjectRole resource (same namespace).') })
      .optional()
      .describe('A ProjectRole resource whose slug is used; the membership waits until it is Ready.'),
    temporary: temporaryWindow.optional(),
  }),
  [
    {
      rule: `${celCountPresent(roleSources)} == 1`,
      message: 'each membership role must set exactly one of role or projectRoleRef',
      check: (value) => countPresent(value, roleSources) === 1,
    },
  ],
);

/** Membership of the identity in one project. */
export const projectMembership = z.object({
  projectRef,
  roles: z
    .array(membershipRole)
    .min(1)
    .max(16)
    .describe(
      'Roles the identity holds in the project (at least one). The service’s role set is replaced by this list.',
    ),
});

export const identitySpec = z
  .object({
    ...managedFields('Delete'),
    name: resourceName.describe(
      'Name of the identity in the organization (1–64 letters, digits, spaces, - or _). The natural key used ' +
        'for adoption and crash recovery, so keep it unique in the organization.',
    ),
    role: slug(1, 64)
      .default('no-access')
      .describe('Organization role slug: admin, member, no-access or a custom org role. Default: no-access.'),
    hasDeleteProtection: z
      .boolean()
      .default(false)
      .describe('When true the service refuses to delete the identity. Default: false.'),
    metadata: listMap(
      z.object({
        key: z.string().min(1).max(256).describe('Metadata key.'),
        value: z.string().min(1).max(1024).describe('Metadata value (non-empty).'),
      }),
      ['key'],
      64,
    )
      .optional()
      .describe('Key/value metadata stored on the identity in the service.'),
    projectMemberships: withRules(z.array(projectMembership).max(64), [
      {
        rule: 'self.all(m, self.exists_one(n, n.projectRef.name == m.projectRef.name))',
        message: 'projectMemberships: each projectRef may appear only once',
        check: (list) => new Set(list.map((m) => m.projectRef.name)).size === list.length,
      },
    ])
      .optional()
      .describe(
        'Projects the identity is a member of, with its roles there. Memberships of projects not listed are left alone.',
      ),
    outputSecretName: objectName
      .optional()
      .describe(
        'Secret (same namespace) that receives identityId and organizationId. Unset: no Secret is written.',
      ),
  })
  .describe('Desired state of the machine identity.');
export type IdentitySpec = z.output<typeof identitySpec>;

export const identityStatus = z
  .object({
    ...managedStatusFields,
    organizationId: z.string().max(256).optional().describe('Id of the organization that owns the identity.'),
    authMethods: z
      .array(z.string().max(64))
      .max(32)
      .optional()
      .describe('Authentication methods attached in the service, e.g. token-auth, universal-auth.'),
    memberships: z
      .array(
        z.object({
          project: z.string().max(253).describe('Name of the Project resource.'),
          projectId: z.string().max(256).optional().describe('Id of the project in the service.'),
          roles: z.array(z.string().max(64)).max(16).optional().describe('Role slugs held in the project.'),
        }),
      )
      .max(64)
      .optional()
      .describe('Project memberships as reconciled.'),
  })
  .describe('Observed state of the machine identity.');
export type IdentityStatus = z.output<typeof identityStatus>;

export const identityKind = defineKind({
  kind: 'Identity',
  plural: 'identities',
  shortNames: ['ident'],
  scope: 'Namespaced',
  description:
    'A machine identity of the organization, with its organization role, metadata and project memberships. ' +
    'Attach authentication methods with IdentityAuth and extra permissions with AdditionalPrivilege.',
  spec: identitySpec,
  status: identityStatus,
  columns: [
    { name: 'Role', type: 'string', jsonPath: '.spec.role', description: 'Organization role.', priority: 1 },
  ],
  defaultDeletionPolicy: 'Delete',
});
