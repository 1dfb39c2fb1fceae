/**
 * Status conditions in the shape of `metav1.Condition`, which kstatus, `kubectl wait` and Argo CD
 * understand. Every Coffer kind carries two: `Ready` (the external object is usable) and `Synced`
 * (the last reconcile succeeded). Reasons are CamelCase constants; messages are deterministic
 * (no timestamps or request ids) so an unchanged situation never rewrites status.
 */
import { commonReasons } from './common-reasons.ts';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** One condition as stored in `status.conditions`. */
export interface Condition {
  readonly type: string;
  readonly status: ConditionStatus;
  /** CamelCase, machine-readable. */
  readonly reason: string;
  /** Human-readable, deterministic, at most `maxConditionMessageLength` characters. */
  readonly message: string;
  /** RFC 3339; changes only when `status` changes. */
  readonly lastTransitionTime: string;
  /** The `metadata.generation` this condition was computed from. */
  readonly observedGeneration?: number;
}

/** A condition to set; `lastTransitionTime` is filled in by `setCondition`. */
export type ConditionInput = Omit<Condition, 'lastTransitionTime'>;

export const CONDITION_READY = 'Ready';
export const CONDITION_SYNCED = 'Synced';

/** The reconcile reasons, as values to emit (declared with their class in `common-reasons.ts`). */
export const Reasons = commonReasons.names;

/** Kubernetes' validation for `Condition.reason`. */
const reasonPattern = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

/** Kubernetes allows 32768; shorter keeps `kubectl describe` readable. */
export const maxConditionMessageLength = 1024;

/** Formats a time as RFC 3339 with second precision, as `metav1.Time` serialises. */
export function rfc3339(time: Date): string {
  return time.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Shortens a message to the condition limit, marking the cut. */
export function truncateMessage(message: string, max: number = maxConditionMessageLength): string {
  return message.length <= max ? message : `${message.slice(0, max - 3)}...`;
}

/** The condition of `type`, if present. */
export function getCondition(list: readonly Condition[] | undefined, type: string): Condition | undefined {
  return list?.find((condition) => condition.type === type);
}

/** True when the condition of `type` has status `True`. */
export function isConditionTrue(list: readonly Condition[] | undefined, type: string): boolean {
  return getCondition(list, type)?.status === 'True';
}

/**
 * Returns a new list with `input` set. `lastTransitionTime` is kept when the status did not
 * change (so re-setting the same condition is a no-op for status diffs) and set to `now`
 * otherwise. Other conditions keep their order; a new type is appended.
 */
export function setCondition(
  list: readonly Condition[] | undefined,
  input: ConditionInput,
  now: Date,
): Condition[] {
  if (!reasonPattern.test(input.reason)) {
    throw new Error(`cannot set condition ${input.type}: reason "${input.reason}" is not CamelCase`);
  }
  const previous = getCondition(list, input.type);
  const lastTransitionTime =
    previous && previous.status === input.status ? previous.lastTransitionTime : rfc3339(now);
  const next: Condition = {
    type: input.type,
    status: input.status,
    reason: input.reason,
    message: truncateMessage(input.message),
    lastTransitionTime,
    ...(input.observedGeneration === undefined ? {} : { observedGeneration: input.observedGeneration }),
  };
  const current = list ?? [];
  return previous ? current.map((c) => (c.type === input.type ? next : c)) : [...current, next];
}

/** True when two conditions say the same thing (ignoring the transition time). */
export function sameCondition(a: ConditionInput | undefined, b: ConditionInput | undefined): boolean {
  return (
    a?.type === b?.type && a?.status === b?.status && a?.reason === b?.reason && a?.message === b?.message
  );
}
