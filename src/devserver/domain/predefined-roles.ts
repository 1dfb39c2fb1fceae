/**
 * Built-in project and organisation roles as rule sets, and the assembly of an identity's
 * effective project rules.
 *
 * Project roles (readable by slug like custom roles):
 * - `admin`: every action on every project subject in the catalog;
 * - `member`: full use of secrets, folders, imports, dynamic secrets, environments, tags,
 *   integrations, webhooks, service tokens, settings, secret syncs, secret events and KMS keys;
 *   identities read/create/edit/delete (no privilege grants, no tokens); read on roles, members,
 *   groups, audit logs, IP allow-list, approvals, rotations, CAs, certificates and templates;
 *   create/read on rollbacks and member invitations;
 * - `viewer`: `describeSecret` and `readValue` on secrets, `read` on everything else readable,
 *   and the secret-event subscriptions;
 * - `no-access`: no rules.
 *
 * Org roles: `admin` (every org action), `member` (create and read projects; read identities,
 * members, groups, roles, settings, project templates and audit logs; connect app connections),
 * `no-access` (nothing).
 */
import type { PermissionRule } from './permission-rules.ts';
import { ORG_SUBJECT_ACTIONS, PROJECT_SUBJECT_ACTIONS } from './permission-schema.ts';

/** Slugs of the built-in project roles the devserver defines. */
export const PREDEFINED_PROJECT_ROLES = ['admin', 'member', 'viewer', 'no-access'] as const;
export type PredefinedProjectRole = (typeof PREDEFINED_PROJECT_ROLES)[number];

/** Slugs the service reserves for built-in project roles (custom roles may not use them). */
export const RESERVED_PROJECT_ROLE_SLUGS: readonly string[] = [
  'admin',
  'member',
  'custom',
  'viewer',
  'no-access',
  'ssh-host-bootstrapper',
  'cryptographic-operator',
];

/** Slugs of the built-in org roles. */
export const PREDEFINED_ORG_ROLES = ['admin', 'member', 'no-access'] as const;
export type PredefinedOrgRole = (typeof PREDEFINED_ORG_ROLES)[number];

const CRUD = ['read', 'create', 'edit', 'delete'];

function everything(catalog: Readonly<Record<string, readonly string[]>>): PermissionRule[] {
  return Object.entries(catalog).map(([subject, action]) => ({ subject, action: [...action] }));
}

function grant(entries: Array<[string, string[]]>): PermissionRule[] {
  return entries.map(([subject, action]) => ({ subject, action }));
}

const MEMBER_RULES = grant([
  ['secrets', ['describeSecret', 'read', 'readValue', 'create', 'edit', 'delete']],
  ['secret-folders', CRUD],
  ['secret-imports', CRUD],
  [
    'dynamic-secrets',
    [
      'read-root-credential',
      'create-root-credential',
      'edit-root-credential',
      'delete-root-credential',
      'lease',
    ],
  ],
  ['secret-approval', ['read']],
  ['secret-rotation', ['read']],
  ['secret-rollback', ['read', 'create']],
  ['secret-syncs', [...CRUD, 'sync-secrets', 'import-secrets', 'remove-secrets']],
  ['secret-events', [...PROJECT_SUBJECT_ACTIONS['secret-events']!]],
  ['commits', ['read', 'perform-rollback']],
  ['member', ['read', 'create']],
  ['groups', ['read']],
  ['role', ['read']],
  ['identity', CRUD],
  ['integrations', CRUD],
  ['webhooks', CRUD],
  ['service-tokens', CRUD],
  ['settings', CRUD],
  ['environments', CRUD],
  ['tags', CRUD],
  ['audit-logs', ['read']],
  ['ip-allowlist', ['read']],
  ['certificate-authorities', ['read']],
  ['certificates', CRUD],
  ['certificate-templates', ['read']],
  ['pki-alerts', CRUD],
  ['pki-collections', CRUD],
  ['cmek', [...CRUD, 'encrypt', 'decrypt', 'sign', 'verify']],
  ['app-connections', ['connect']],
]);

const VIEWER_RULES: PermissionRule[] = [
  { subject: 'secrets', action: ['describeSecret', 'readValue'] },
  { subject: 'dynamic-secrets', action: ['read-root-credential'] },
  { subject: 'secret-events', action: [...PROJECT_SUBJECT_ACTIONS['secret-events']!] },
  { subject: 'commits', action: ['read'] },
  ...Object.entries(PROJECT_SUBJECT_ACTIONS)
    .filter(([subject, actions]) => actions.includes('read') && subject !== 'secrets')
    .map(([subject]) => ({ subject, action: ['read'] })),
];

const PROJECT_ROLE_RULES: Readonly<Record<PredefinedProjectRole, PermissionRule[]>> = {
  admin: everything(PROJECT_SUBJECT_ACTIONS),
  member: MEMBER_RULES,
  viewer: VIEWER_RULES,
  'no-access': [],
};

const ORG_ROLE_RULES: Readonly<Record<PredefinedOrgRole, PermissionRule[]>> = {
  admin: everything(ORG_SUBJECT_ACTIONS),
  member: grant([
    ['workspace', ['read', 'create']],
    ['identity', ['read']],
    ['member', ['read']],
    ['groups', ['read']],
    ['role', ['read']],
    ['settings', ['read']],
    ['project-templates', ['read']],
    ['audit-logs', ['read']],
    ['app-connections', ['connect']],
  ]),
  'no-access': [],
};

function copy(rules: readonly PermissionRule[]): PermissionRule[] {
  return rules.map((rule) => ({ ...rule, action: [...rule.action] }));
}

/** True for `admin`, `member`, `viewer`, `no-access`. */
export function isPredefinedProjectRole(slug: string): slug is PredefinedProjectRole {
  return (PREDEFINED_PROJECT_ROLES as readonly string[]).includes(slug);
}

/** True for `admin`, `member`, `no-access`. */
export function isPredefinedOrgRole(slug: string): slug is PredefinedOrgRole {
  return (PREDEFINED_ORG_ROLES as readonly string[]).includes(slug);
}

/** A fresh copy of a built-in project role's rules; `undefined` for other slugs. */
export function projectRoleRules(slug: string): PermissionRule[] | undefined {
  return isPredefinedProjectRole(slug) ? copy(PROJECT_ROLE_RULES[slug]) : undefined;
}

/** A fresh copy of a built-in org role's rules; `undefined` for other slugs. */
export function orgRoleRules(slug: string): PermissionRule[] | undefined {
  return isPredefinedOrgRole(slug) ? copy(ORG_ROLE_RULES[slug]) : undefined;
}

/** A role assignment or additional privilege with an optional time window. */
export interface TimeBound {
  isTemporary?: boolean | undefined;
  temporaryAccessStartTime?: string | null | undefined;
  temporaryAccessEndTime?: string | null | undefined;
}

/** True when a permanent grant, or a temporary one with start ≤ now < end. */
export function isActive(grant: TimeBound, now: Date): boolean {
  if (!grant.isTemporary) return true;
  const start = Date.parse(grant.temporaryAccessStartTime ?? '');
  const end = Date.parse(grant.temporaryAccessEndTime ?? '');
  if (Number.isNaN(start) || Number.isNaN(end)) return false;
  const t = now.getTime();
  return start <= t && t < end;
}

export interface ProjectRuleSources {
  /** The membership's role assignments (built-in or custom slugs). */
  roles: ReadonlyArray<TimeBound & { role: string }>;
  /** Rules of the project's custom roles by slug. */
  customRoleRules: (slug: string) => readonly PermissionRule[] | undefined;
  /** The identity's additional privileges in the project. */
  privileges: ReadonlyArray<TimeBound & { permissions: readonly PermissionRule[] }>;
  now: Date;
}

/**
 * The effective rules of a project member: the rules of every active role (unknown slugs add
 * nothing) followed by those of every active additional privilege.
 */
export function collectProjectRules(sources: ProjectRuleSources): PermissionRule[] {
  const fromRoles = sources.roles
    .filter((assignment) => isActive(assignment, sources.now))
    .flatMap(
      (assignment) =>
        projectRoleRules(assignment.role) ?? copy(sources.customRoleRules(assignment.role) ?? []),
    );
  const fromPrivileges = sources.privileges
    .filter((privilege) => isActive(privilege, sources.now))
    .flatMap((privilege) => copy(privilege.permissions));
  return [...fromRoles, ...fromPrivileges];
}
