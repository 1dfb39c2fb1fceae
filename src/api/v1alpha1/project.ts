/**
 * Project: a service project (workspace) with its environments. Default deletion policy Orphan,
 * because deleting a project destroys every secret in it.
 */
import { z } from 'zod';
import { environmentEntry, managedFields, objectName, projectType, slug } from './common.ts';
import { defineKind } from './kind.ts';
import { celImmutableFields, listMap, withRules } from './schema-helpers.ts';
import { managedStatusFields } from './status.ts';

const immutableFields = ['slug', 'type', 'template', 'templateRef'] as const;

export const projectSpec = withRules(
  z.object({
    ...managedFields('Orphan'),
    name: z.string().min(1).max(64).describe('Display name of the project (1–64 characters).'),
    slug: slug(5, 36).describe(
      'Project slug, unique in the organization: 5–36 lowercase letters, digits and hyphens. It is the natural ' +
        'key used to adopt an existing project and to recover from a crash during creation. Immutable.',
    ),
    description: z
      .string()
      .max(256)
      .optional()
      .describe('Description of the project (at most 256 characters).'),
    type: projectType.describe(
      'Project type: secret-manager, cert-manager, kms, ssh, secret-scanning or pam. Default: secret-manager. Immutable.',
    ),
    template: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe(
        'Name of a project template in the service applied when the project is created (the service’s default ' +
          'template when unset). Only used at creation; immutable. Mutually exclusive with templateRef.',
      ),
    templateRef: z
      .object({ name: objectName.describe('Name of the (cluster-scoped) ProjectTemplate resource.') })
      .optional()
      .describe(
        'A ProjectTemplate resource whose template is applied at creation; creation waits until it is Ready. ' +
          'Immutable. Mutually exclusive with template.',
      ),
    hasDeleteProtection: z
      .boolean()
      .default(false)
      .describe('When true the service refuses to delete the project. Default: false.'),
    autoCapitalization: z
      .boolean()
      .optional()
      .describe('Whether the service upper-cases new secret keys. Unset: left as the service has it.'),
    createDefaultEnvironments: z
      .boolean()
      .default(false)
      .describe(
        'Let the service create its default environments (Development, Staging, Production) at creation, in ' +
          'addition to those listed. Default: false.',
      ),
    environments: withRules(listMap(environmentEntry, ['slug'], 64), [
      {
        rule: 'self.all(e, !has(e.position) || self.exists_one(f, has(f.position) && f.position == e.position))',
        message: 'environment positions must be unique',
        check: (list) => {
          const positions = list.flatMap((e) => (e.position === undefined ? [] : [e.position]));
          return new Set(positions).size === positions.length;
        },
      },
    ])
      .optional()
      .describe(
        'Environments the project must have, identified by slug. Missing ones are created, changed names or ' +
          'positions updated; environments not listed are left alone unless pruneEnvironments is true.',
      ),
    pruneEnvironments: z
      .boolean()
      .default(false)
      .describe(
        'Delete environments that exist in the service but are not listed in environments. Default: false.',
      ),
  }),
  [
    {
      rule: '!(has(self.template) && has(self.templateRef))',
      message: 'set at most one of template or templateRef',
      check: (value) => !(value.template !== undefined && value.templateRef !== undefined),
    },
    {
      rule: celImmutableFields(immutableFields),
      message: 'slug, type, template and templateRef are immutable; create a new Project to change them',
    },
  ],
).describe('Desired state of the service project and its environments.');
export type ProjectSpec = z.output<typeof projectSpec>;

export const projectStatus = z
  .object({
    ...managedStatusFields,
    slug: z.string().max(64).optional().describe('Slug of the project in the service.'),
    organizationId: z.string().max(256).optional().describe('Id of the organization that owns the project.'),
    environments: z
      .array(
        z.object({
          slug: z.string().max(64).describe('Environment slug.'),
          name: z.string().max(256).optional().describe('Environment display name.'),
          id: z.string().max(256).optional().describe('Environment id in the service.'),
          position: z.int().optional().describe('Position in the project’s environment order.'),
        }),
      )
      .max(256)
      .optional()
      .describe('Every environment the project has in the service, with ids.'),
  })
  .describe('Observed state of the service project.');
export type ProjectStatus = z.output<typeof projectStatus>;

export const projectKind = defineKind({
  kind: 'Project',
  plural: 'projects',
  shortNames: ['cproj'],
  scope: 'Namespaced',
  description:
    'A project (workspace) in the service with its environments. Deleting the resource leaves the project in ' +
    'place unless deletionPolicy is Delete, because deleting a project destroys every secret in it.',
  spec: projectSpec,
  status: projectStatus,
  columns: [
    { name: 'Slug', type: 'string', jsonPath: '.spec.slug', description: 'Project slug.' },
    { name: 'Type', type: 'string', jsonPath: '.spec.type', description: 'Project type.', priority: 1 },
  ],
  defaultDeletionPolicy: 'Orphan',
});
