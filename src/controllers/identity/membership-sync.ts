/**
 * Reading and changing an identity's project memberships in the service (the I/O half of
 * `memberships.ts`). Role slugs are checked with the role-by-slug endpoint before a membership
 * is written, so an unknown role is reported as such (`UnknownRole`) instead of a bare 404.
 */
import {
  type IdentityMembership,
  isInvalid,
  isNotFound,
  type ServiceClient,
  unlessNotFound,
} from '../../client/index.ts';
import { WaitingError } from '../../runtime/errors.ts';
import { roleRequests, type DesiredMembership, type MembershipPlan } from './memberships.ts';
import { identityReasons } from './reasons.ts';

/** Condition reason for a membership role the project does not have. */
export const UNKNOWN_ROLE = identityReasons.names.UnknownRole;

/** How long to wait before looking for an unknown role again. */
const unknownRoleRetryMs = 60_000;

/** The service's membership of the identity in each desired project (undefined: not a member). */
export async function readMemberships(
  client: ServiceClient,
  identityId: string,
  desired: readonly DesiredMembership[],
  signal: AbortSignal,
): Promise<Map<string, IdentityMembership | undefined>> {
  const current = new Map<string, IdentityMembership | undefined>();
  for (const m of desired) {
    current.set(
      m.projectId,
      await unlessNotFound(client.memberships.get(m.projectId, identityId, { signal })),
    );
  }
  return current;
}

async function checkRole(
  client: ServiceClient,
  membership: DesiredMembership,
  slug: string,
  signal: AbortSignal,
): Promise<void> {
  try {
    await client.roles.getBySlug(membership.projectId, slug, { signal });
  } catch (error) {
    if (!isNotFound(error) && !isInvalid(error)) throw error;
    throw new WaitingError(
      UNKNOWN_ROLE,
      `cannot grant role ${slug} in Project ${membership.project}: the project has no role with this slug`,
      unknownRoleRetryMs,
      { cause: error },
    );
  }
}

/** Throws `WaitingError` (`UnknownRole`) for the first role slug a project does not have. */
export async function checkRoles(
  client: ServiceClient,
  memberships: readonly DesiredMembership[],
  signal: AbortSignal,
): Promise<void> {
  for (const m of memberships) {
    for (const role of m.roles) if (!role.known) await checkRole(client, m, role.slug, signal);
  }
}

/** Applies `plan` for `identityId`: role checks first, then creates, updates and removals. */
export async function applyMembershipPlan(
  client: ServiceClient,
  identityId: string,
  plan: MembershipPlan,
  options: { readonly now: Date; readonly signal: AbortSignal },
): Promise<void> {
  const { now, signal } = options;
  await checkRoles(client, [...plan.create, ...plan.update], signal);
  for (const m of plan.create) {
    await client.memberships.create(
      m.projectId,
      identityId,
      { roles: roleRequests(m.roles, now) },
      { signal },
    );
  }
  for (const m of plan.update) {
    await client.memberships.update(
      m.projectId,
      identityId,
      { roles: roleRequests(m.roles, now) },
      { signal },
    );
  }
  for (const m of plan.remove) {
    await unlessNotFound(client.memberships.delete(m.projectId, identityId, { signal }));
  }
}
