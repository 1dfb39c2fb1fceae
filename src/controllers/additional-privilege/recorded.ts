/**
 * What an AdditionalPrivilege's status recorded, read back in the shapes the adapter and
 * `window.ts` work with. Pure; a value of the wrong type counts as not recorded.
 */
import type { AdditionalPrivilegeSpec } from '../../api/v1alpha1/index.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import type { PrivilegeStatusFields } from './mapping.ts';
import type { ObservedWindow, RenewState } from './window.ts';

type Obj = ManagedObject<AdditionalPrivilegeSpec>;

/** The resource's generation with `renewed`, the generation a renewal was last granted for. */
export function renewState(obj: Obj, renewed: unknown): RenewState {
  return {
    generation: obj.metadata.generation,
    renewedGeneration: typeof renewed === 'number' ? renewed : undefined,
  };
}

/** The temporary window recorded in `status` (not temporary when nothing is recorded). */
export function windowOf(status: PrivilegeStatusFields | undefined): ObservedWindow {
  return {
    isTemporary: status?.isTemporary === true,
    temporaryAccessStartTime: status?.temporaryAccessStartTime,
    temporaryAccessEndTime: status?.temporaryAccessEndTime,
  };
}

/** The project membership id recorded in status, if any. */
export function recordedMembershipId(obj: Obj): string | undefined {
  const id = obj.status?.projectMembershipId;
  return typeof id === 'string' ? id : undefined;
}
