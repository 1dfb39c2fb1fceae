/**
 * The temporary window of an AdditionalPrivilege: what the service should hold, when the
 * privilege is usable, when to look again, and when `renew` grants a fresh window.
 *
 * Renewal, exactly once: with `renew: true`, a window that has ended is replaced by one fresh
 * window `[now, now + range]` — at most once per spec generation. The generation that renewed is
 * recorded in `status.renewedGeneration`; while it equals `metadata.generation`, an ended window
 * stays ended (Ready=False, reason Expired). Any later spec change (e.g. renew false → true)
 * arms one more renewal. A fixed `startTime` is not enforced on the window a renewal granted
 * for the current generation (that window starts when it was renewed).
 */
import {
  parseAccessRange,
  windowEndProblem,
  type AdditionalPrivilegeSpec,
} from '../../api/v1alpha1/index.ts';
import type { NotReady } from '../../managed/external-client.ts';
import { INVALID_SPEC } from '../../managed/spec.ts';
import { TerminalError } from '../../runtime/errors.ts';
import { additionalPrivilegeReasons } from './reasons.ts';

/** The window fields of a privilege, as the service reports them. */
export interface ObservedWindow {
  readonly isTemporary: boolean;
  readonly temporaryRange?: string | null | undefined;
  readonly temporaryAccessStartTime?: string | null | undefined;
  readonly temporaryAccessEndTime?: string | null | undefined;
}

/** The window part of the v2 create/update body. */
export type WindowRequest =
  | { isTemporary: false }
  | {
      isTemporary: true;
      temporaryMode: 'relative';
      temporaryRange: string;
      temporaryAccessStartTime: string;
    };

/** Where the resource stands: its generation and the one a renewal was last granted for. */
export interface RenewState {
  readonly generation: number | undefined;
  readonly renewedGeneration: number | undefined;
}

/** Condition reasons for an existing privilege that is not usable. */
export const EXPIRED = additionalPrivilegeReasons.names.Expired;
export const NOT_YET_ACTIVE = additionalPrivilegeReasons.names.NotYetActive;

/** Wait this long past the end time before looking, so the window has surely ended. */
const pastEndMarginMs = 500;

function timeOf(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

function rangeMs(range: string | null | undefined): number | undefined {
  if (!range) return undefined;
  try {
    return parseAccessRange(range.trim());
  } catch {
    return undefined;
  }
}

/** True when the observed window is temporary and has ended at `now`. */
export function hasEnded(observed: ObservedWindow, now: Date): boolean {
  const end = timeOf(observed.temporaryAccessEndTime);
  return observed.isTemporary && end !== undefined && end <= now.getTime();
}

/** True when `renew` should replace the observed window now (see the module comment). */
export function renewalDue(
  spec: AdditionalPrivilegeSpec,
  observed: ObservedWindow,
  state: RenewState,
  now: Date,
) {
  return (
    spec.renew &&
    spec.temporary !== undefined &&
    hasEnded(observed, now) &&
    state.renewedGeneration !== state.generation
  );
}

/** True when the service's window differs from the spec's (renewal aside). */
export function windowDrifted(
  spec: AdditionalPrivilegeSpec,
  observed: ObservedWindow,
  state: RenewState,
): boolean {
  const wanted = spec.temporary;
  if (!wanted) return observed.isTemporary;
  if (!observed.isTemporary) return true;
  const range = observed.temporaryRange?.trim();
  if (range !== wanted.range && rangeMs(range) !== rangeMs(wanted.range)) return true;
  const renewedNow = state.renewedGeneration !== undefined && state.renewedGeneration === state.generation;
  if (!wanted.startTime || renewedNow) return false;
  return timeOf(observed.temporaryAccessStartTime) !== timeOf(wanted.startTime);
}

/**
 * The window to send. `renewing`: a fresh window from `now`. Otherwise the spec's start, or the
 * current window's start when the spec has none (a range change keeps the window's start), or
 * `now` when the privilege was permanent.
 * @throws TerminalError (`InvalidSpec`, naming `spec.temporary.range`) when that window would end
 * after the latest time Kubernetes and the service can store (e.g. a kept start in year 9999).
 */
export function windowRequest(
  spec: AdditionalPrivilegeSpec,
  observed: ObservedWindow | undefined,
  options: { readonly now: Date; readonly renewing: boolean; readonly keepRenewedStart: boolean },
): WindowRequest {
  const wanted = spec.temporary;
  if (!wanted) return { isTemporary: false };
  const current = observed?.isTemporary ? (observed.temporaryAccessStartTime ?? undefined) : undefined;
  let start = wanted.startTime ?? current ?? options.now.toISOString();
  if (options.keepRenewedStart && current) start = current;
  if (options.renewing) start = options.now.toISOString();
  const problem = windowEndProblem(Date.parse(start), wanted.range);
  if (problem) throw new TerminalError(INVALID_SPEC, `invalid spec: spec.temporary.range: ${problem}`);
  return {
    isTemporary: true,
    temporaryMode: 'relative',
    temporaryRange: wanted.range,
    temporaryAccessStartTime: new Date(start).toISOString(),
  };
}

/** Why an existing privilege is not usable at `now`, or undefined when it is (or is permanent). */
export function windowReadiness(
  spec: AdditionalPrivilegeSpec,
  observed: ObservedWindow,
  state: RenewState,
  now: Date,
): NotReady | undefined {
  if (!observed.isTemporary) return undefined;
  const start = timeOf(observed.temporaryAccessStartTime);
  if (start !== undefined && start > now.getTime()) {
    return {
      reason: NOT_YET_ACTIVE,
      message: `the temporary window starts at ${observed.temporaryAccessStartTime}`,
    };
  }
  if (!hasEnded(observed, now)) return undefined;
  const ended = `the temporary window ended at ${observed.temporaryAccessEndTime}`;
  const hint =
    spec.renew && state.renewedGeneration === state.generation
      ? 'renew already granted a window for this generation of the spec; change the spec (e.g. set renew to false, then true) to renew again'
      : 'set renew: true to grant a fresh window';
  return { reason: EXPIRED, message: `${ended}; ${hint}` };
}

/** Milliseconds until the window starts or ends (whichever is next), or undefined. */
export function untilWindowChange(observed: ObservedWindow, now: Date): number | undefined {
  if (!observed.isTemporary) return undefined;
  const start = timeOf(observed.temporaryAccessStartTime);
  if (start !== undefined && start > now.getTime()) return start - now.getTime();
  const end = timeOf(observed.temporaryAccessEndTime);
  if (end === undefined || end <= now.getTime()) return undefined;
  return end - now.getTime() + pastEndMarginMs;
}
