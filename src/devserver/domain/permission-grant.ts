/**
 * Who may hand out project access to an identity (the service's "privilege change" rule for
 * organisations on its current privilege system, the default for every organisation created
 * since that system exists, so for every devserver organisation).
 *
 * Assigning a project role other than `no-access` to an identity (creating or updating its
 * project membership) and creating or updating an identity's additional privilege need the
 * `grant-privileges` action on the project `identity` subject, checked on the subject type (a
 * conditional grant, e.g. limited to one `identityId`, counts). What is granted does not matter:
 * an actor holding `grant-privileges` may grant more than it holds, and one without it may grant
 * nothing, not even a subset of its own rules. Only the legacy system (organisations created
 * before the switch) compared the granted rules against the actor's own ("permission boundary");
 * the devserver does not model legacy organisations.
 *
 * A refusal is 403 `PermissionBoundaryError`, "<operation>. Actor is missing permission
 * grant-privileges on identity", details `{missingPermissions: [{action, subject}]}`.
 */
import { forbidden } from './errors.ts';
import { can, type PermissionRule } from './permission-rules.ts';

/** The action and subject the rule requires. */
export const GRANT_PRIVILEGES = { action: 'grant-privileges', subject: 'identity' } as const;

/** The operation prefixes of the service's refusal messages. */
export const GRANT_OPERATION = {
  privilege: 'Failed to update more privileged actor',
  createMembership: 'Failed to create identity project membership',
  updateMembership: 'Failed to update identity project membership',
} as const;
export type GrantOperation = (typeof GRANT_OPERATION)[keyof typeof GRANT_OPERATION];

/** The role slug whose assignment needs no grant permission. */
export const UNGUARDED_ROLE = 'no-access';

/** Whether assigning `roles` (slugs) needs the grant permission: any role but `no-access`. */
export function rolesNeedGrant(roles: readonly string[]): boolean {
  return roles.some((role) => role !== UNGUARDED_ROLE);
}

/** Throws the service's 403 unless `actorRules` allow `grant-privileges` on `identity`. */
export function assertMayGrantPrivileges(
  actorRules: readonly PermissionRule[],
  operation: GrantOperation,
): void {
  const { action, subject } = GRANT_PRIVILEGES;
  if (can(actorRules, action, subject)) return;
  throw forbidden(
    `${operation}. Actor is missing permission ${action} on ${subject}`,
    'PermissionBoundaryError',
    {
      missingPermissions: [{ action, subject }],
    },
  );
}
