/**
 * AdditionalPrivilege: extra permissions for an identity in one project, permanent or for a
 * temporary window. Permissions are compared semantically, so equivalent spellings never drift.
 */
import { z } from 'zod';
import { identityRef, managedFields, projectRef, slug } from './common.ts';
import { defineKind } from './kind.ts';
import { permissionRules, temporaryWindow } from './permissions.ts';
import { withRules } from './schema-helpers.ts';
import { managedStatusFields } from './status.ts';

export const additionalPrivilegeSpec = z
  .object({
    ...managedFields('Delete'),
    identityRef: withRules(identityRef, [
      { rule: 'self == oldSelf', message: 'identityRef is immutable; create a new AdditionalPrivilege' },
    ]),
    projectRef: withRules(projectRef, [
      { rule: 'self == oldSelf', message: 'projectRef is immutable; create a new AdditionalPrivilege' },
    ]),
    slug: slug(1, 60).describe(
      'Slug of the privilege, unique for the identity in the project (1–60 lowercase letters, digits, hyphens). ' +
        'Used to find the privilege again after a crash.',
    ),
    permissions: permissionRules
      .min(1)
      .describe('Rules granted (or, when inverted, denied) on top of the identity’s project roles.'),
    temporary: temporaryWindow.optional(),
    renew: z
      .boolean()
      .default(false)
      .describe(
        'For temporary privileges: once the current window has ended, grant one fresh window of the same range ' +
          'starting then. At most one renewal per spec generation (recorded in status.renewedGeneration): to ' +
          'renew again after that window ends, change the spec (e.g. set renew to false, then to true). ' +
          'Default false: an expired privilege stays Ready=False with reason Expired and is not re-granted.',
      ),
  })
  .describe('Desired additional privilege.');
export type AdditionalPrivilegeSpec = z.output<typeof additionalPrivilegeSpec>;

export const additionalPrivilegeStatus = z
  .object({
    ...managedStatusFields,
    projectMembershipId: z
      .string()
      .max(256)
      .optional()
      .describe('Id of the identity’s membership in the project.'),
    isTemporary: z.boolean().optional().describe('Whether the privilege is temporary.'),
    temporaryAccessStartTime: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('Start of the current temporary window.'),
    temporaryAccessEndTime: z.iso
      .datetime({ offset: true })
      .optional()
      .describe(
        'End of the current temporary window; afterwards Ready=False with reason Expired unless renew is true.',
      ),
    renewedGeneration: z
      .int()
      .min(0)
      .optional()
      .describe(
        'metadata.generation of the spec for which renew granted the current window; renew grants at most ' +
          'one window per generation.',
      ),
  })
  .describe('Observed state of the privilege.');
export type AdditionalPrivilegeStatus = z.output<typeof additionalPrivilegeStatus>;

export const additionalPrivilegeKind = defineKind({
  kind: 'AdditionalPrivilege',
  plural: 'additionalprivileges',
  shortNames: ['priv'],
  scope: 'Namespaced',
  description:
    'Extra permissions for an Identity in one Project, beyond its project roles; permanent, or temporary for a ' +
    'window (Ready=False with reason Expired once it ends).',
  spec: additionalPrivilegeSpec,
  status: additionalPrivilegeStatus,
  columns: [
    {
      name: 'Identity',
      type: 'string',
      jsonPath: '.spec.identityRef.name',
      description: 'Identity resource.',
    },
    { name: 'Project', type: 'string', jsonPath: '.spec.projectRef.name', description: 'Project resource.' },
    {
      name: 'Expires',
      // A string, not a date: kubectl renders a date column as an age, and a time in the future as <invalid>.
      type: 'string',
      jsonPath: '.status.temporaryAccessEndTime',
      description: 'End of the temporary window (RFC 3339).',
      priority: 1,
    },
  ],
  defaultDeletionPolicy: 'Delete',
});
