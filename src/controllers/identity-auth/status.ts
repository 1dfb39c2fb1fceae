/**
 * The adapter's part of IdentityAuth status and how it is built from an observed configuration.
 * Status holds ids, the method, times and a hash only, never credential values.
 */
import type { IdentityAuthSpec, IdentityAuthStatus } from '../../api/v1alpha1/index.ts';
import type { Creator, ExternalContext, ManagedObject } from '../../managed/external-client.ts';
import type { ObservedConfig } from './binding.ts';
import type { ClusterMaterial } from './cluster-material.ts';
import type { CredentialsStatus } from './credentials.ts';

/** The adapter's part of IdentityAuth status. */
export type IdentityAuthStatusFields = Pick<
  IdentityAuthStatus,
  'identityId' | 'method' | 'clientId' | 'credentials' | 'jwtKeysHash' | 'reviewerJwtHash'
>;

/** What references resolve to. */
export interface IdentityAuthRefs {
  readonly identityId: string;
  /** The Identity resource `identityRef` names, as read (absent while deleting after it went). */
  readonly identity?: Creator | undefined;
  /** What the method sends that is read from the cluster (empty while deleting). */
  readonly material: ClusterMaterial;
}

/** An IdentityAuth as the adapter receives it. */
export type IdentityAuthObject = ManagedObject<IdentityAuthSpec>;

/** The per-call context of the IdentityAuth adapter. */
export type IdentityAuthContext = ExternalContext<IdentityAuthRefs>;

/** The status recorded by the previous reconcile, if any. */
export function previousOf(obj: IdentityAuthObject): IdentityAuthStatusFields | undefined {
  return obj.status as IdentityAuthStatusFields | undefined;
}

/** What status records besides the configuration: the credentials and the hashes of key material. */
export interface StatusExtras {
  readonly credentials?: CredentialsStatus | undefined;
  readonly jwtKeysHash?: string | undefined;
  readonly reviewerJwtHash?: string | undefined;
}

/** The status for `config` attached to the resolved identity; absent extras are left out. */
export function statusOf(
  obj: IdentityAuthObject,
  ctx: IdentityAuthContext,
  config: ObservedConfig['config'],
  extra: StatusExtras,
): IdentityAuthStatusFields {
  return {
    identityId: ctx.references.identityId,
    method: obj.spec.method,
    ...(config.clientId ? { clientId: config.clientId } : {}),
    ...(extra.credentials ? { credentials: extra.credentials } : {}),
    ...(extra.jwtKeysHash ? { jwtKeysHash: extra.jwtKeysHash } : {}),
    ...(extra.reviewerJwtHash ? { reviewerJwtHash: extra.reviewerJwtHash } : {}),
  };
}
