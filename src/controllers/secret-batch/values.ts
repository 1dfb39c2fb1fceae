/**
 * The desired keys of a SecretBatch with their values: literals from the spec, single keys of
 * Secrets (`valueFrom.secretKeyRef`) and every key of `fromSecret` (with `keyPrefix`); listed
 * keys win over `fromSecret` keys of the same name. Each Secret is read once per call.
 *
 * Values are only returned, never logged or put into errors.
 */
import type { SecretBatchSpec } from '../../api/v1alpha1/index.ts';
import { TerminalError, WaitingError } from '../../runtime/errors.ts';
import type { NamedRef, SecretSource } from '../kind-controller.ts';
import { byKey, type DesiredSecret } from './mapping.ts';
import { commonReasons } from '../../runtime/common-reasons.ts';
import { managedReasons } from '../../managed/reasons.ts';
import { secretBatchReasons } from './reasons.ts';

/** Requeue while a referenced Secret or key is missing (its creation re-triggers at once anyway). */
export const MISSING_SECRET_REQUEUE_MS = 60_000;

/** Most keys one resource may push (status lists each owned key). */
export const MAX_KEYS = 1000;

type Listed = NonNullable<SecretBatchSpec['secrets']>[number];

/** Secrets the spec reads, in its own namespace (for the operator's Secret watch). */
export function referencedSecretNames(spec: SecretBatchSpec): string[] {
  const names = new Set<string>();
  for (const item of spec.secrets ?? []) {
    if (item.valueFrom) names.add(item.valueFrom.secretKeyRef.name);
  }
  if (spec.fromSecret) names.add(spec.fromSecret.name);
  return [...names].sort();
}

/** `referencedSecretNames` as watch references. */
export function referencedSecrets(namespace: string | undefined, spec: SecretBatchSpec): NamedRef[] {
  return referencedSecretNames(spec).map((name) => ({ name, ...(namespace ? { namespace } : {}) }));
}

async function readAll(
  source: SecretSource,
  namespace: string,
  names: readonly string[],
): Promise<Map<string, Readonly<Record<string, string>>>> {
  const out = new Map<string, Readonly<Record<string, string>>>();
  for (const name of names) {
    const data = await source.read(namespace, name);
    if (data === undefined) {
      throw new WaitingError(
        commonReasons.names.SecretNotFound,
        `cannot read Secret ${namespace}/${name}: it does not exist`,
        MISSING_SECRET_REQUEUE_MS,
      );
    }
    out.set(name, data);
  }
  return out;
}

function listedValue(item: Listed, secrets: ReadonlyMap<string, Readonly<Record<string, string>>>): string {
  if (item.value !== undefined) return item.value;
  const ref = item.valueFrom?.secretKeyRef;
  if (!ref)
    throw new TerminalError(
      managedReasons.names.InvalidSpec,
      `invalid spec: secret ${item.key} has no value source`,
    );
  const value = secrets.get(ref.name)?.[ref.key];
  if (value === undefined) {
    throw new WaitingError(
      commonReasons.names.SecretKeyNotFound,
      `cannot read key ${ref.key} of Secret ${ref.name} for ${item.key}: the Secret has no such key`,
      MISSING_SECRET_REQUEUE_MS,
    );
  }
  return value;
}

function fromListed(item: Listed, value: string): DesiredSecret {
  return {
    key: item.key,
    value,
    ...(item.previousKey === undefined ? {} : { previousKey: item.previousKey }),
    ...(item.comment === undefined ? {} : { comment: item.comment }),
    ...(item.skipMultilineEncoding === undefined
      ? {}
      : { skipMultilineEncoding: item.skipMultilineEncoding }),
    ...(item.reminder === undefined ? {} : { reminder: item.reminder }),
    ...(item.metadata === undefined ? {} : { metadata: item.metadata }),
    ...(item.tagIds === undefined ? {} : { tagIds: item.tagIds }),
  };
}

/** A service key name: no `:`, `/` or whitespace (as the API schema demands of listed keys). */
const validKey = /^[^:/\s]+$/;

function fromSecretKeys(
  spec: SecretBatchSpec,
  secrets: ReadonlyMap<string, Readonly<Record<string, string>>>,
  listed: ReadonlySet<string>,
): DesiredSecret[] {
  const source = spec.fromSecret;
  if (!source) return [];
  const prefix = source.keyPrefix ?? '';
  const out: DesiredSecret[] = [];
  for (const [dataKey, value] of Object.entries(secrets.get(source.name) ?? {})) {
    const key = `${prefix}${dataKey}`;
    if (listed.has(key)) continue;
    if (!validKey.test(key)) {
      throw new TerminalError(
        managedReasons.names.InvalidKey,
        `cannot push key ${dataKey} of Secret ${source.name}: the service key "${key}" must not contain ":", "/" or whitespace`,
      );
    }
    out.push({ key, value });
  }
  return out;
}

/** Reads every desired key and its value; see the module comment. */
export async function readDesired(
  source: SecretSource,
  namespace: string,
  spec: SecretBatchSpec,
): Promise<DesiredSecret[]> {
  const secrets = await readAll(source, namespace, referencedSecretNames(spec));
  const listed = (spec.secrets ?? []).map((item) => fromListed(item, listedValue(item, secrets)));
  const keys = new Set(listed.map((d) => d.key));
  const desired = [...listed, ...fromSecretKeys(spec, secrets, keys)];
  if (desired.length > MAX_KEYS) {
    throw new TerminalError(
      secretBatchReasons.names.TooManyKeys,
      `cannot push ${desired.length} keys: one SecretBatch holds at most ${MAX_KEYS}; split it`,
    );
  }
  return desired.sort(byKey);
}
