/**
 * Service calls of the AdditionalPrivilege adapter that need the membership rule: the service
 * answers 404 both for a missing privilege and for an identity that is not (or no longer) a
 * member of the project. A 404 is therefore followed by a membership lookup: no membership means
 * `MembershipMissing` (a waiting condition: an Identity's `projectMemberships` fixes it), a
 * membership means the privilege itself is gone.
 */
import {
  type IdentityMembership,
  isNotFound,
  type Privilege,
  type ServiceClient,
  unlessNotFound,
} from '../../client/index.ts';
import { naturalKeyMatch, type NaturalKeyMatch } from '../../managed/external-client.ts';
import { WaitingError } from '../../runtime/errors.ts';
import type { PrivilegeOwner } from './mapping.ts';
import { additionalPrivilegeReasons } from './reasons.ts';

/** Condition reason while the identity is not a member of the project. */
export const MEMBERSHIP_MISSING = additionalPrivilegeReasons.names.MembershipMissing;

/** Everything a lookup needs besides the client. */
export interface LookupScope {
  readonly owner: PrivilegeOwner;
  readonly projectSlug: string;
  /** Names of the Identity and Project resources, for messages. */
  readonly names: { readonly identity: string; readonly project: string };
  readonly waitRequeueMs: number;
  readonly signal: AbortSignal;
}

/** The identity's membership of the project, or undefined when it has none. */
export function membershipOf(
  client: ServiceClient,
  scope: LookupScope,
): Promise<IdentityMembership | undefined> {
  const { projectId, identityId } = scope.owner;
  return unlessNotFound(client.memberships.get(projectId, identityId, { signal: scope.signal }));
}

/** The waiting error for a missing membership. */
export function membershipMissing(scope: LookupScope, cause?: unknown): WaitingError {
  return new WaitingError(
    MEMBERSHIP_MISSING,
    `identity ${scope.names.identity} is not a member of project ${scope.names.project} in the service: ` +
      'an additional privilege needs a project membership (give the Identity one in spec.projectMemberships)',
    scope.waitRequeueMs,
    cause === undefined ? undefined : { cause },
  );
}

/** The membership, or `MembershipMissing`. */
export async function requireMembership(
  client: ServiceClient,
  scope: LookupScope,
): Promise<IdentityMembership> {
  const membership = await membershipOf(client, scope);
  if (!membership) throw membershipMissing(scope);
  return membership;
}

/**
 * Runs `call`; a 404 becomes `MembershipMissing` when the identity has no membership, and
 * undefined ("not found") when it has one.
 */
export async function guarded<T>(
  client: ServiceClient,
  scope: LookupScope,
  call: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    if (!isNotFound(error)) throw error;
    if (!(await membershipOf(client, scope))) throw membershipMissing(scope, error);
    return undefined;
  }
}

/** The privilege with `id` (v2), or undefined when it is gone. */
export function getPrivilege(
  client: ServiceClient,
  scope: LookupScope,
  id: string,
): Promise<Privilege | undefined> {
  return guarded(client, scope, () => client.privileges.get(id, { signal: scope.signal }));
}

/** Ids of the identity's privileges in the project with `slug` (v1 list: the natural key). */
export async function matchesBySlug(
  client: ServiceClient,
  scope: LookupScope,
  slug: string,
): Promise<NaturalKeyMatch[]> {
  const { owner, projectSlug, signal } = scope;
  try {
    const list = await client.privileges.v1.list({ identityId: owner.identityId, projectSlug }, { signal });
    return list.filter((p) => p.slug === slug).map(naturalKeyMatch);
  } catch (error) {
    // 404: no membership, hence no privileges.
    if (isNotFound(error)) return [];
    throw error;
  }
}
