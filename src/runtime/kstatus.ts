/**
 * kstatus's "abnormal-true" conditions, derived from `Ready` / `Synced` and the class of their
 * reasons, so tools that read kstatus (Flux, `kubectl` plugins, cli-utils) see what a person
 * sees. kstatus ignores `Ready` on custom resources: without these, every Coffer object whose
 * generation is observed would read as Current, failures included.
 *
 * | Ready / Synced                                   | Stalled        | Reconciling    | kstatus    |
 * |--------------------------------------------------|----------------|----------------|------------|
 * | a False condition with a `terminal` reason       | True (its)     | absent         | Failed     |
 * | Synced=False `suspended` (paused)                | absent         | absent         | Current    |
 * | Synced=False otherwise (waiting, retrying)       | absent         | True (its)     | InProgress |
 * | Ready not True otherwise                         | absent         | True (Ready's) | InProgress |
 * | Ready=True, Synced=True                          | absent         | absent         | Current    |
 *
 * Absent means "normal" in the kstatus convention; the conditions are removed rather than set
 * False so `kubectl describe` shows only what matters. The one present comes first in the list:
 * the REASON printer column reads the reason of the first True condition, which is then the
 * failing reason (and `Available` from Ready when all is well).
 */
import { getCondition, setCondition, type Condition } from './conditions.ts';
import { classOfReason } from './reasons.ts';

export const CONDITION_STALLED = 'Stalled';
export const CONDITION_RECONCILING = 'Reconciling';

function failing(condition: Condition | undefined): Condition | undefined {
  return condition?.status === 'False' ? condition : undefined;
}

/** The kstatus condition (type and source) the Ready/Synced pair calls for, if any. */
function abnormal(list: readonly Condition[]): { type: string; from: Condition } | undefined {
  const ready = getCondition(list, 'Ready');
  const synced = getCondition(list, 'Synced');
  const failed = [failing(synced), failing(ready)].filter((c): c is Condition => c !== undefined);
  const terminal = failed.find((c) => classOfReason(c.reason) === 'terminal');
  if (terminal) return { type: CONDITION_STALLED, from: terminal };
  if (failed.some((c) => classOfReason(c.reason) === 'suspended')) return undefined;
  const from = failed[0] ?? (ready?.status === 'True' ? undefined : ready);
  return from ? { type: CONDITION_RECONCILING, from } : undefined;
}

/**
 * `list` with Stalled / Reconciling set or removed to match its Ready and Synced conditions
 * (see the module table). `lastTransitionTime` follows `setCondition`'s rules.
 */
export function withKstatusConditions(
  list: readonly Condition[],
  now: Date,
  observedGeneration?: number,
): Condition[] {
  const wanted = abnormal(list);
  const next = list.filter(
    (c) => (c.type !== CONDITION_STALLED && c.type !== CONDITION_RECONCILING) || c.type === wanted?.type,
  );
  if (!wanted) return next;
  const set = setCondition(
    next,
    {
      type: wanted.type,
      status: 'True',
      reason: wanted.from.reason,
      message: wanted.from.message,
      ...(observedGeneration === undefined ? {} : { observedGeneration }),
    },
    now,
  );
  return [...set.filter((c) => c.type === wanted.type), ...set.filter((c) => c.type !== wanted.type)];
}
