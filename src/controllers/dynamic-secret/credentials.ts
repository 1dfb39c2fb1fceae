/**
 * The admin credentials of a DynamicSecret's provider, read from Secrets in its own namespace at
 * reconcile time: the SQL password (`passwordSecretRef`) or the cluster token
 * (`clusterTokenSecretRef`). Values are only returned, never logged or put into errors; a missing
 * Secret or key is a waiting `SecretNotFound` / `SecretKeyNotFound` naming the Secret and key.
 */
import type { DynamicSecretSpec } from '../../api/v1alpha1/index.ts';
import { commonReasons } from '../../runtime/common-reasons.ts';
import { WaitingError } from '../../runtime/errors.ts';
import type { NamedRef, SecretSource } from '../kind-controller.ts';

/** Requeue while a referenced Secret or key is missing (its creation re-triggers at once anyway). */
export const MISSING_SECRET_REQUEUE_MS = 60_000;

/** The Secret key the spec's provider reads its admin credential from. */
export function credentialRef(spec: DynamicSecretSpec): { name: string; key: string } | undefined {
  return spec.provider.sqlDatabase?.passwordSecretRef ?? spec.provider.kubernetes?.clusterTokenSecretRef;
}

/** The Secret the spec reads, for the operator's Secret watch. */
export function referencedSecrets(namespace: string | undefined, spec: DynamicSecretSpec): NamedRef[] {
  const ref = credentialRef(spec);
  return ref ? [{ name: ref.name, ...(namespace ? { namespace } : {}) }] : [];
}

/** The admin credential's value (see the module comment). */
export async function readCredential(
  source: SecretSource,
  namespace: string,
  spec: DynamicSecretSpec,
): Promise<string> {
  const ref = credentialRef(spec);
  if (!ref) return '';
  const data = await source.read(namespace, ref.name);
  if (data === undefined) {
    throw new WaitingError(
      commonReasons.names.SecretNotFound,
      `cannot read Secret ${namespace}/${ref.name}: it does not exist`,
      MISSING_SECRET_REQUEUE_MS,
    );
  }
  const value = data[ref.key];
  if (value === undefined) {
    throw new WaitingError(
      commonReasons.names.SecretKeyNotFound,
      `cannot read key ${ref.key} of Secret ${namespace}/${ref.name}: the Secret has no such key`,
      MISSING_SECRET_REQUEUE_MS,
    );
  }
  return value;
}
