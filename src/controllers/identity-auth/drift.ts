/**
 * What differs between an IdentityAuth and the configuration the service holds, credentials
 * aside: the method's fields, the key material the service does not return (the JWT keys and the
 * Kubernetes reviewer token, compared by the hashes recorded in status), and a replaced method
 * not yet revoked.
 */
import { jwtKeysHash, type ObservedConfig } from './binding.ts';
import { reviewerJwtHash, type ClusterMaterial } from './cluster-material.ts';
import { previousOf, type IdentityAuthObject, type StatusExtras } from './status.ts';

/** The hashes of the key material `obj` sends now, for status. */
export function keyHashes(obj: IdentityAuthObject, material: ClusterMaterial): StatusExtras {
  return { jwtKeysHash: jwtKeysHash(obj.spec, material), reviewerJwtHash: reviewerJwtHash(material) };
}

/** The hashes status recorded at the last write (kept while nothing is written). */
export function recordedHashes(obj: IdentityAuthObject): StatusExtras {
  const previous = previousOf(obj);
  return { jwtKeysHash: previous?.jwtKeysHash, reviewerJwtHash: previous?.reviewerJwtHash };
}

/** Names of the configuration fields that differ (empty when the configuration is up to date). */
export function configDrift(
  obj: IdentityAuthObject,
  observed: ObservedConfig,
  material: ClusterMaterial,
): string[] {
  const drift = observed.drift(obj.spec);
  const now = keyHashes(obj, material);
  const before = recordedHashes(obj);
  if (now.jwtKeysHash && before.jwtKeysHash !== now.jwtKeysHash) drift.push('publicKeys/jwksCaCert');
  if (obj.spec.method === 'kubernetes' && before.reviewerJwtHash !== now.reviewerJwtHash)
    drift.push('tokenReviewerJwt');
  return drift;
}

/** `configDrift`, plus the method recorded in status when `spec.method` changed since. */
export function observedDrift(
  obj: IdentityAuthObject,
  observed: ObservedConfig,
  material: ClusterMaterial,
): string[] {
  const drift = configDrift(obj, observed, material);
  const old = previousOf(obj)?.method;
  if (old && old !== obj.spec.method) drift.push(`method (${old} still to revoke)`);
  return drift;
}
