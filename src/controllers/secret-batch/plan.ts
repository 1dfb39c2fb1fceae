/**
 * What one SecretBatch sync must do, from the desired keys, the folder as listed (one list call)
 * and the keys the resource owns (status). Pure, so every rule is a table test.
 *
 * Ownership: a key is owned once this resource wrote it or found it equal to its spec; status
 * records it with its version and value hash. Keys that are neither desired nor owned are never
 * in a request. An owned key removed from the spec is deleted when `prune` (deletion policy
 * Delete), otherwise released (left in the service, no longer owned).
 *
 * Drift: an owned key whose service version moved past the recorded one (or that vanished) and
 * that no longer matches the spec was changed behind our back; restoring it counts as a drift
 * correction.
 */
import type { Secret } from '../../client/index.ts';
import {
  batchItem,
  byKey,
  fieldDifferences,
  hashMatches,
  normalizeValue,
  valueHash,
  type BatchItem,
  type DesiredSecret,
  type OwnedKey,
} from './mapping.ts';

export interface PlanInput {
  readonly desired: readonly DesiredSecret[];
  /** The folder's secrets by key (empty when the folder does not exist yet). */
  readonly current: ReadonlyMap<string, Secret>;
  readonly owned: readonly OwnedKey[];
  readonly mode: 'upsert' | 'failOnNotFound';
  /** Delete owned keys that left the spec (deletion policy Delete). */
  readonly prune: boolean;
  /** HMAC key for value hashes (the resource uid). */
  readonly salt: string;
}

export interface Plan {
  /** Items of one batch update (creates under upsert, updates, renames), by key. */
  readonly writes: readonly BatchItem[];
  /** Owned keys to delete (all exist in the folder). */
  readonly deletes: readonly string[];
  /** Desired keys that do not exist while mode is failOnNotFound. */
  readonly missing: readonly string[];
  /** Owned keys changed in the service behind our back that the writes restore. */
  readonly drifted: readonly string[];
  /** What differs, by key name and field (never a value), for events. */
  readonly changes: readonly string[];
}

/** True when the plan changes nothing and nothing is missing. */
export function isEmptyPlan(plan: Plan): boolean {
  return plan.writes.length === 0 && plan.deletes.length === 0 && plan.missing.length === 0;
}

function valueDiffers(input: PlanInput, desired: DesiredSecret, current: Secret): boolean {
  if (current.secretValueHidden === true) {
    // The value cannot be read: trust our record of the last write while the version holds.
    const owned = input.owned.find((o) => o.key === desired.key);
    return (
      owned?.version !== current.version || !hashMatches(owned.hash, input.salt, desired.key, desired.value)
    );
  }
  return current.secretValue !== normalizeValue(desired.value);
}

function isDrift(input: PlanInput, key: string, current: Secret | undefined): boolean {
  const owned = input.owned.find((o) => o.key === key);
  if (!owned) return false;
  return current === undefined || (owned.version !== undefined && current.version !== owned.version);
}

interface Builder {
  writes: BatchItem[];
  missing: string[];
  drifted: string[];
  changes: string[];
  renamedFrom: Set<string>;
}

function canRename(
  input: PlanInput,
  desired: DesiredSecret,
): desired is DesiredSecret & { previousKey: string } {
  const from = desired.previousKey;
  return (
    from !== undefined &&
    from !== desired.key &&
    input.current.has(from) &&
    input.owned.some((o) => o.key === from)
  );
}

function planMissing(input: PlanInput, desired: DesiredSecret, out: Builder): void {
  if (canRename(input, desired)) {
    out.writes.push(batchItem(desired, desired.previousKey));
    out.renamedFrom.add(desired.previousKey);
    out.changes.push(`rename ${desired.previousKey} to ${desired.key}`);
    return;
  }
  if (input.mode === 'failOnNotFound') {
    out.missing.push(desired.key);
    return;
  }
  out.writes.push(batchItem(desired));
  if (isDrift(input, desired.key, undefined)) out.drifted.push(desired.key);
  out.changes.push(`create ${desired.key}`);
}

function planKey(input: PlanInput, desired: DesiredSecret, out: Builder): void {
  const current = input.current.get(desired.key);
  if (!current) {
    planMissing(input, desired, out);
    return;
  }
  const fields = fieldDifferences(desired, current);
  if (valueDiffers(input, desired, current)) fields.unshift('value');
  if (fields.length === 0) return;
  out.writes.push(batchItem(desired));
  if (isDrift(input, desired.key, current)) out.drifted.push(desired.key);
  out.changes.push(`${fields.join(', ')} of ${desired.key}`);
}

/** The plan; see the module comment. */
export function planBatch(input: PlanInput): Plan {
  const out: Builder = { writes: [], missing: [], drifted: [], changes: [], renamedFrom: new Set() };
  const desired = [...input.desired].sort(byKey);
  for (const item of desired) planKey(input, item, out);
  const wanted = new Set(desired.map((d) => d.key));
  const deletes = input.prune
    ? input.owned
        .map((o) => o.key)
        .filter((key) => !wanted.has(key) && !out.renamedFrom.has(key) && input.current.has(key))
        .sort()
    : [];
  for (const key of deletes) out.changes.push(`delete ${key}`);
  for (const key of out.missing) out.changes.push(`missing ${key}`);
  return {
    writes: out.writes,
    deletes,
    missing: out.missing,
    drifted: out.drifted,
    changes: out.changes,
  };
}

/**
 * The owned keys once the plan ran: every desired key present in the service, with the version
 * from `written` (the batch response) or the listing, and the hash of the value the service now
 * holds (the written value, or the listed one).
 */
export function ownedAfter(input: PlanInput, written: readonly Secret[]): OwnedKey[] {
  const fresh = new Map(written.map((s) => [s.secretKey, s]));
  const owned: OwnedKey[] = [];
  for (const desired of input.desired) {
    const wrote = fresh.get(desired.key);
    const listed = input.current.get(desired.key);
    const secret = wrote ?? listed;
    if (!secret) continue;
    const value = wrote || secret.secretValueHidden === true ? desired.value : secret.secretValue;
    owned.push({
      key: desired.key,
      version: secret.version,
      hash: valueHash(input.salt, desired.key, value),
    });
  }
  return owned.sort(byKey);
}

/** `changes` as one line for events: the first few, then a count. */
export function describeChanges(changes: readonly string[], limit = 8): string | undefined {
  if (changes.length === 0) return undefined;
  const shown = changes.slice(0, limit).join('; ');
  return changes.length > limit ? `${shown}; and ${changes.length - limit} more` : shown;
}
