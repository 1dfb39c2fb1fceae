/**
 * AdditionalPrivilege spec ↔ service privilege: the v2 create and update bodies, what drifted,
 * and the status. Pure functions (the clock is a parameter). Permissions are compared
 * semantically (`../permissions/compare.ts`), the window as in `window.ts`.
 */
import type { AdditionalPrivilegeSpec, AdditionalPrivilegeStatus } from '../../api/v1alpha1/index.ts';
import type { CreatePrivilegeInput, Privilege, UpdatePrivilegeInput } from '../../client/index.ts';
import { samePermissions } from '../permissions/compare.ts';
import { rulesRequest } from '../permissions/request.ts';
import { renewalDue, windowDrifted, windowRequest, type RenewState } from './window.ts';

/** The adapter's part of AdditionalPrivilege status. */
export type PrivilegeStatusFields = Pick<
  AdditionalPrivilegeStatus,
  | 'projectMembershipId'
  | 'isTemporary'
  | 'temporaryAccessStartTime'
  | 'temporaryAccessEndTime'
  | 'renewedGeneration'
>;

/** Whose privilege it is. */
export interface PrivilegeOwner {
  readonly identityId: string;
  readonly projectId: string;
}

/** `POST /api/v2/identity-project-additional-privilege` body. */
export function createRequest(
  spec: AdditionalPrivilegeSpec,
  owner: PrivilegeOwner,
  now: Date,
): CreatePrivilegeInput {
  return {
    identityId: owner.identityId,
    projectId: owner.projectId,
    slug: spec.slug,
    permissions: rulesRequest(spec.permissions),
    type: windowRequest(spec, undefined, { now, renewing: false, keepRenewedStart: false }),
  };
}

/** Names of what differs from the spec (empty when none); a due renewal counts as `renewal`. */
export function driftedFields(
  spec: AdditionalPrivilegeSpec,
  privilege: Privilege,
  state: RenewState,
  now: Date,
): string[] {
  const fields: string[] = [];
  if (privilege.slug !== spec.slug) fields.push('slug');
  if (!samePermissions(spec.permissions, privilege.permissions ?? [])) fields.push('permissions');
  if (windowDrifted(spec, privilege, state)) fields.push('temporary');
  if (renewalDue(spec, privilege, state, now)) fields.push('renewal');
  return fields;
}

/** The PATCH body (the service requires `slug` and `type` on every update). */
export function updateRequest(
  spec: AdditionalPrivilegeSpec,
  privilege: Privilege,
  options: { readonly now: Date; readonly renewing: boolean; readonly state: RenewState },
): UpdatePrivilegeInput {
  const { now, renewing, state } = options;
  const keepRenewedStart =
    state.renewedGeneration !== undefined && state.renewedGeneration === state.generation;
  return {
    slug: spec.slug,
    permissions: rulesRequest(spec.permissions),
    type: windowRequest(spec, privilege, { now, renewing, keepRenewedStart }),
  };
}

/** Status from the privilege as the service returned it. */
export function statusOf(
  privilege: Privilege,
  extra: {
    readonly projectMembershipId?: string | undefined;
    readonly renewedGeneration?: number | undefined;
  },
): PrivilegeStatusFields {
  const temporary = privilege.isTemporary;
  return {
    ...(extra.projectMembershipId ? { projectMembershipId: extra.projectMembershipId } : {}),
    isTemporary: temporary,
    ...(temporary && privilege.temporaryAccessStartTime
      ? { temporaryAccessStartTime: privilege.temporaryAccessStartTime }
      : {}),
    ...(temporary && privilege.temporaryAccessEndTime
      ? { temporaryAccessEndTime: privilege.temporaryAccessEndTime }
      : {}),
    ...(extra.renewedGeneration === undefined ? {} : { renewedGeneration: extra.renewedGeneration }),
  };
}
