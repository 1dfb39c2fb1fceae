/**
 * Project memberships of an identity: the desired ones (from the spec with references
 * resolved), how they compare with the service's, and the plan to make them match. Pure.
 *
 * Ownership: memberships of projects listed in the spec are managed; one that was listed before
 * (recorded in `status.memberships`) and no longer is gets removed; memberships of projects never
 * listed are left alone.
 */
import type { IdentityStatus } from '../../api/v1alpha1/index.ts';
import type { IdentityMembership, MembershipRole, MembershipRoleInput } from '../../client/index.ts';

/** One role the identity should hold in a project. */
export interface DesiredRole {
  readonly slug: string;
  readonly temporary?: { readonly range: string; readonly startTime?: string };
  /** True when the slug comes from a Ready ProjectRole (known to exist; not looked up again). */
  readonly known: boolean;
}

/** A membership the spec asks for, with the project resolved to its id. */
export interface DesiredMembership {
  /** Name of the Project resource. */
  readonly project: string;
  readonly projectId: string;
  readonly roles: readonly DesiredRole[];
}

/** A membership as recorded in status. */
export type RecordedMembership = NonNullable<IdentityStatus['memberships']>[number];

/** What to change. */
export interface MembershipPlan {
  readonly create: readonly DesiredMembership[];
  readonly update: readonly DesiredMembership[];
  readonly remove: readonly { readonly project: string; readonly projectId: string }[];
}

function sameInstant(a: string, b: string | null | undefined): boolean {
  return b !== null && b !== undefined && Date.parse(a) === Date.parse(b);
}

function matches(want: DesiredRole, have: MembershipRole): boolean {
  if (want.slug !== have.slug) return false;
  if (!want.temporary) return !have.isTemporary;
  if (!have.isTemporary || have.temporaryRange !== want.temporary.range) return false;
  // Without a start time in the spec, the grant started when it was made: any start matches.
  return (
    want.temporary.startTime === undefined ||
    sameInstant(want.temporary.startTime, have.temporaryAccessStartTime)
  );
}

/** True when the service's roles are exactly the desired ones (as a multiset, in any order). */
export function sameRoles(desired: readonly DesiredRole[], current: readonly MembershipRole[]): boolean {
  if (desired.length !== current.length) return false;
  const left = [...current];
  return desired.every((want) => {
    const index = left.findIndex((have) => matches(want, have));
    if (index < 0) return false;
    left.splice(index, 1);
    return true;
  });
}

/** The request roles; a temporary role without start time starts `now`. */
export function roleRequests(roles: readonly DesiredRole[], now: Date): MembershipRoleInput[] {
  return roles.map((role) =>
    role.temporary
      ? {
          role: role.slug,
          isTemporary: true,
          temporaryMode: 'relative',
          temporaryRange: role.temporary.range,
          temporaryAccessStartTime: role.temporary.startTime ?? now.toISOString(),
        }
      : { role: role.slug, isTemporary: false },
  );
}

/**
 * The plan from the desired memberships, the service's current ones (by project id; undefined
 * when the identity is not a member) and the memberships recorded in status.
 */
export function membershipPlan(
  desired: readonly DesiredMembership[],
  current: ReadonlyMap<string, IdentityMembership | undefined>,
  recorded: readonly RecordedMembership[],
): MembershipPlan {
  const wanted = new Set(desired.map((m) => m.projectId));
  const create = desired.filter((m) => !current.get(m.projectId));
  const update = desired.filter((m) => {
    const membership = current.get(m.projectId);
    return membership !== undefined && !sameRoles(m.roles, membership.roles);
  });
  const remove = recorded.flatMap((m) =>
    m.projectId && !wanted.has(m.projectId) ? [{ project: m.project, projectId: m.projectId }] : [],
  );
  return { create, update, remove };
}

/** True when the plan changes nothing. */
export function isEmptyPlan(plan: MembershipPlan): boolean {
  return plan.create.length + plan.update.length + plan.remove.length === 0;
}

/** What differs, for the `UpdatedExternal` event. */
export function describePlan(plan: MembershipPlan): string[] {
  return [
    ...plan.create.map((m) => `membership ${m.project} missing`),
    ...plan.update.map((m) => `membership ${m.project} roles`),
    ...plan.remove.map((m) => `membership ${m.project} no longer listed`),
  ];
}

/** The status record of the managed memberships once they match the spec. */
export function recordOf(desired: readonly DesiredMembership[]): RecordedMembership[] {
  return desired.map((m) => ({
    project: m.project,
    projectId: m.projectId,
    roles: m.roles.map((r) => r.slug),
  }));
}

/** The status record of the desired memberships the identity holds now, with the roles it holds. */
export function heldMemberships(
  desired: readonly DesiredMembership[],
  current: ReadonlyMap<string, IdentityMembership | undefined>,
): RecordedMembership[] {
  return desired.flatMap((m) => {
    const membership = current.get(m.projectId);
    return membership
      ? [{ project: m.project, projectId: m.projectId, roles: membership.roles.map((r) => r.slug) }]
      : [];
  });
}
