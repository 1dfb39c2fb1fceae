/**
 * Permission enforcement for the devserver: a simple but real model built on the domain's
 * rule evaluation (`domain/permission-rules.ts`) and built-in roles (`domain/predefined-roles.ts`).
 *
 * Enforced subset:
 * - **Organisation level** (identities and their auth methods and tokens, project creation,
 *   project templates): the identity's org role. `admin` may do everything in the organisation;
 *   `member` may read identities and project templates and create projects; `no-access` may do
 *   nothing. Custom org roles are not supported (assigning one answers 404).
 * - **Project level** (everything under a project): an org `admin` has the project `admin` rules
 *   in every project of the organisation. Anyone else needs a project membership (else 403
 *   `ProjectMembershipNotFound` "You are not a member of this project with ID …", as the service's
 *   `getProjectPermission`); their rules are those of the membership's active
 *   roles (predefined `admin`, `member`, `viewer`, `no-access`, or custom roles of the project
 *   with their own rules) plus their active additional privileges. Temporary roles and privileges
 *   count only inside `[temporaryAccessStartTime, temporaryAccessEndTime)`.
 * - Rule conditions are evaluated for secrets, folders and events (`environment`, `secretPath`
 *   with `$glob`, `secretName`), and `{{identity.*}}` templates are filled in. An inverted rule
 *   that applies always denies.
 * - A refusal is 403 `PermissionDenied` "You are not allowed to {action} on {subject}" with the
 *   relevant rules as `details`.
 *
 * - Granting project access to an identity (a membership role other than `no-access`, or an
 *   additional privilege) also needs `grant-privileges` on `identity`, else 403
 *   `PermissionBoundaryError` ({@link requireGrantPrivileges}).
 *
 * Not modelled: the legacy privilege-boundary system of old organisations (granting no more than
 * one holds), sub-organisations, user accounts, group memberships, approval policies.
 */
import type { DevApp } from '../app.ts';
import { forbidden } from './errors.ts';
import { assertMayGrantPrivileges, type GrantOperation } from './permission-grant.ts';
import {
  assertCan,
  can,
  interpolateRules,
  type PermissionContext,
  type PermissionRule,
} from './permission-rules.ts';
import { collectProjectRules, orgRoleRules, projectRoleRules } from './predefined-roles.ts';
import type { Actor } from '../http/types.ts';
import type { ProjectMembershipRecord } from '../state/types.ts';

/** The org role of the actor (`no-access` when the identity vanished). */
export function orgRoleOf(app: DevApp, actor: Actor): string {
  return app.state.identities[actor.identityId]?.role ?? 'no-access';
}

/** True when the actor is an organisation admin. */
export function isOrgAdmin(app: DevApp, actor: Actor): boolean {
  return orgRoleOf(app, actor) === 'admin';
}

/** Throws 403 `PermissionDenied` unless the actor's org role allows `action` on `subject`. */
export function requireOrgPermission(app: DevApp, actor: Actor, action: string, subject: string): void {
  assertCan(orgRoleRules(orgRoleOf(app, actor)) ?? [], action, subject);
}

/** Throws 403 when `orgId` is not the actor's organisation. */
export function requireSameOrg(actor: Actor, orgId: string): void {
  if (actor.orgId !== orgId) throw forbidden('You are not a member of this organization');
}

/** The membership of `identityId` in `projectId`, if any. */
export function findMembership(
  app: DevApp,
  projectId: string,
  identityId: string,
): ProjectMembershipRecord | undefined {
  return Object.values(app.state.memberships).find(
    (m) => m.projectId === projectId && m.identityId === identityId,
  );
}

function identityTemplateData(app: DevApp, identityId: string): Record<string, unknown> {
  const identity = app.state.identities[identityId];
  const metadata = Object.fromEntries((identity?.metadata ?? []).map((m) => [m.key, m.value]));
  return { identity: { id: identityId, name: identity?.name ?? '', metadata } };
}

/** The rules of `identityId` in `projectId`, or undefined when it is not a member. */
export function memberRules(
  app: DevApp,
  projectId: string,
  identityId: string,
): PermissionRule[] | undefined {
  const membership = findMembership(app, projectId, identityId);
  if (!membership) return undefined;
  const state = app.state;
  const rules = collectProjectRules({
    roles: membership.roles.map((r) => ({
      ...r,
      role: r.customRoleId ? (state.roles[r.customRoleId]?.slug ?? '') : r.role,
    })),
    customRoleRules: (slug) =>
      Object.values(state.roles).find((role) => role.projectId === projectId && role.slug === slug)
        ?.permissions,
    privileges: Object.values(state.privileges).filter(
      (p) => p.projectId === projectId && p.identityId === identityId,
    ),
    now: new Date(app.now()),
  });
  return interpolateRules(rules, identityTemplateData(app, identityId));
}

/**
 * The actor's effective rules in `projectId`: project admin for an org admin, else its
 * membership's rules; 403 when it is not a member.
 */
// Computed once: the admin rule set is constant and is only read by the checks.
const ADMIN_RULES: readonly PermissionRule[] = projectRoleRules('admin') ?? [];

export function projectRules(app: DevApp, actor: Actor, projectId: string): readonly PermissionRule[] {
  if (isOrgAdmin(app, actor)) return ADMIN_RULES;
  const rules = memberRules(app, projectId, actor.identityId);
  if (!rules)
    throw forbidden(
      `You are not a member of this project with ID ${projectId}. Please assign this ${actor.type} to the project with the appropriate permissions, then try again.`,
      'ProjectMembershipNotFound',
    );
  return rules;
}

/** Throws 403 unless the actor may do `action` on `subject` in `projectId` (for `context`). */
export function requireProjectPermission(
  app: DevApp,
  actor: Actor,
  projectId: string,
  check: { action: string; subject: string; context?: PermissionContext },
): readonly PermissionRule[] {
  const rules = projectRules(app, actor, projectId);
  assertCan(rules, check.action, check.subject, check.context);
  return rules;
}

/**
 * Throws 403 `PermissionBoundaryError` unless the actor may grant privileges to identities in
 * `projectId` (see `domain/permission-grant.ts`); 403 when it is not a member.
 */
export function requireGrantPrivileges(
  app: DevApp,
  actor: Actor,
  projectId: string,
  operation: GrantOperation,
): void {
  assertMayGrantPrivileges(projectRules(app, actor, projectId), operation);
}

/** Whether `rules` allow the check (for per-item decisions such as hidden secret values). */
export function allows(
  rules: readonly PermissionRule[],
  action: string,
  subject: string,
  context?: PermissionContext,
): boolean {
  return can(rules, action, subject, context);
}
