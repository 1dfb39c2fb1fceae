/**
 * What differs between an IdentityAuth and the configuration the service holds, credentials
 * aside: the method's fields, the JWT keys (compared by the hash recorded in status, since the
 * service does not return them), and a replaced method not yet revoked.
 */
import { jwtKeysHash, type ObservedConfig } from './binding.ts';
import { previousOf, type IdentityAuthObject } from './status.ts';

/** Names of the configuration fields that differ (empty when the configuration is up to date). */
export function configDrift(obj: IdentityAuthObject, observed: ObservedConfig): string[] {
  const drift = observed.drift(obj.spec);
  const hash = jwtKeysHash(obj.spec);
  if (hash && previousOf(obj)?.jwtKeysHash !== hash) drift.push('publicKeys/jwksCaCert');
  return drift;
}

/** `configDrift`, plus the method recorded in status when `spec.method` changed since. */
export function observedDrift(obj: IdentityAuthObject, observed: ObservedConfig): string[] {
  const drift = configDrift(obj, observed);
  const old = previousOf(obj)?.method;
  if (old && old !== obj.spec.method) drift.push(`method (${old} still to revoke)`);
  return drift;
}
