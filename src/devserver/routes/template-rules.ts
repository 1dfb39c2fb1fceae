/**
 * Project types, the default environments, and the validation rules of project templates
 * (facts A21): unique role names and slugs, no reserved role slugs or names, environment names
 * and slugs unique with positions exactly 1..n, users unique with known roles, and at most
 * 32 KB of serialised roles or environments.
 */
import { z } from 'zod';
import { ProjectPermissionRuleSchema } from '../domain/permission-schema.ts';
import { isPredefinedProjectRole, RESERVED_PROJECT_ROLE_SLUGS } from '../domain/predefined-roles.ts';
import { slugSchema } from '../domain/validation.ts';

export const PROJECT_TYPES = [
  'secret-manager',
  'cert-manager',
  'kms',
  'ssh',
  'secret-scanning',
  'pam',
] as const;

/** Environments of a project created without a template. */
export const DEFAULT_ENVIRONMENTS: readonly { name: string; slug: string; position: number }[] = [
  { name: 'Development', slug: 'dev', position: 1 },
  { name: 'Staging', slug: 'staging', position: 2 },
  { name: 'Production', slug: 'prod', position: 3 },
];

const RESERVED_ROLE_NAMES = ['custom', 'admin', 'viewer', 'developer', 'no access'];
const MAX_JSON_BYTES = 32_768;

function fitsSize(value: unknown): boolean {
  return Buffer.byteLength(JSON.stringify(value ?? null)) <= MAX_JSON_BYTES;
}

function unique(values: string[]): boolean {
  return new Set(values).size === values.length;
}

const roleSchema = z.object({
  name: z.string().trim().min(1),
  slug: slugSchema().refine((s) => !RESERVED_PROJECT_ROLE_SLUGS.includes(s), 'Cannot use reserved role slug'),
  permissions: z.array(ProjectPermissionRuleSchema),
});

const rolesSchema = z
  .array(roleSchema)
  .refine(
    (roles) => !roles.some((r) => RESERVED_ROLE_NAMES.includes(r.name.toLowerCase())),
    'Cannot use reserved role name',
  )
  .refine((roles) => unique(roles.map((r) => r.slug)), 'Role slugs must be unique')
  .refine((roles) => unique(roles.map((r) => r.name)), 'Role names must be unique')
  .refine(fitsSize, 'Roles exceed the 32 KB limit');

const environmentsSchema = z
  .array(z.object({ name: z.string().trim().min(1), slug: slugSchema(), position: z.int().min(1) }))
  .refine((envs) => unique(envs.map((e) => e.slug)), 'Environment slugs must be unique')
  .refine((envs) => unique(envs.map((e) => e.name)), 'Environment names must be unique')
  .refine(
    (envs) =>
      envs
        .map((e) => e.position)
        .sort((a, b) => a - b)
        .every((p, i) => p === i + 1),
    'Environment positions must be sequential starting from 1',
  )
  .refine(fitsSize, 'Environments exceed the 32 KB limit');

const usersSchema = z
  .array(
    z.object({ username: z.string().trim().toLowerCase().min(1), roles: z.array(z.string().min(1)).min(1) }),
  )
  .refine((users) => unique(users.map((u) => u.username)), 'Usernames must be unique');

const nameSchema = slugSchema({ field: 'Name' }).refine(
  (n) => n !== 'default',
  'Cannot name a template "default"',
);

function usersRolesKnown(v: {
  roles?: { slug: string }[] | undefined;
  users?: { roles: string[] }[] | null | undefined;
}): boolean {
  const slugs = new Set((v.roles ?? []).map((r) => r.slug));
  return (v.users ?? []).every((u) => u.roles.every((r) => isPredefinedProjectRole(r) || slugs.has(r)));
}

const usersIssue = {
  message: 'User roles must be predefined roles or roles defined in this template',
  path: ['users'],
};

/** Body of `POST /api/v1/project-templates`. */
export const createTemplateSchema = z
  .object({
    name: nameSchema,
    description: z.string().max(256).optional(),
    type: z.enum(PROJECT_TYPES),
    roles: rolesSchema.default([]),
    environments: environmentsSchema.nullish(),
    users: usersSchema.default([]),
  })
  .refine(usersRolesKnown, usersIssue);

/** Body of `PATCH /api/v1/project-templates/{id}`; the users/roles check needs both present. */
export const updateTemplateSchema = z
  .object({
    name: nameSchema.optional(),
    description: z.string().max(256).optional(),
    roles: rolesSchema.optional(),
    environments: environmentsSchema.nullish(),
    users: usersSchema.nullish(),
  })
  .refine((v) => v.roles === undefined || !v.users || usersRolesKnown(v), usersIssue);
